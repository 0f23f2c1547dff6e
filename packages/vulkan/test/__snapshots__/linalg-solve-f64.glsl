#version 450
// kernel for solve double[2,3,2] (node 7a5aeb3d0cc78b154ab03d8b)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { double v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { double v[]; } b1;
layout(std430, set = 0, binding = 2) restrict buffer Buf2 { double v[]; } b2;
// (math prelude: f64)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 4) return;
  double w0[9];
  for (int i2 = 0; i2 < 3; i2++) for (int j3 = 0; j3 < 3; j3++) {
    double t5 = b0.v[(((u)/2)*9+(i2)*3+j3)];
    w0[i2 * 3 + j3] = t5;
  }
  for (int i2 = 0; i2 < 3; i2++) {
    double t6 = b1.v[((i2)*2+(u)%2)];
    b2.v[(((u)/2)*6+(i2)*2+(u)%2)] = t6;
  }
  for (int k1 = 0; k1 < 3; k1++) {
    int p4 = k1;
    double best8 = abs(w0[k1 * 3 + k1]);
    for (int i2 = k1 + 1; i2 < 3; i2++) {
      double av9 = abs(w0[i2 * 3 + k1]);
      if (av9 > best8) { best8 = av9; p4 = i2; }
    }
    if (p4 != k1) {
      for (int j3 = 0; j3 < 3; j3++) {
        double t10 = w0[k1 * 3 + j3];
        w0[k1 * 3 + j3] = w0[p4 * 3 + j3];
        w0[p4 * 3 + j3] = t10;
      }
      double t13 = b2.v[(((u)/2)*6+(k1)*2+(u)%2)];
      b2.v[(((u)/2)*6+(k1)*2+(u)%2)] = b2.v[(((u)/2)*6+(p4)*2+(u)%2)];
      b2.v[(((u)/2)*6+(p4)*2+(u)%2)] = t13;
    }
    double d11 = w0[k1 * 3 + k1];
    if (d11 != 0.0000000000000000LF) {
      double yk7 = b2.v[(((u)/2)*6+(k1)*2+(u)%2)];
      for (int i2 = k1 + 1; i2 < 3; i2++) {
        double l12 = w0[i2 * 3 + k1] / d11;
        w0[i2 * 3 + k1] = l12;
        for (int j3 = k1 + 1; j3 < 3; j3++) {
          w0[i2 * 3 + j3] = w0[i2 * 3 + j3] - l12 * w0[k1 * 3 + j3];
        }
        b2.v[(((u)/2)*6+(i2)*2+(u)%2)] = b2.v[(((u)/2)*6+(i2)*2+(u)%2)] - l12 * yk7;
      }
    }
  }
  for (int s14 = 0; s14 < 3; s14++) {
    int i2 = 2 - s14;
    double v16 = b2.v[(((u)/2)*6+(i2)*2+(u)%2)];
    for (int q15 = 0; q15 < s14; q15++) {
      int j3 = 2 - q15;
      v16 -= w0[i2 * 3 + j3] * b2.v[(((u)/2)*6+(j3)*2+(u)%2)];
    }
    b2.v[(((u)/2)*6+(i2)*2+(u)%2)] = v16 / w0[i2 * 3 + i2];
  }
}
