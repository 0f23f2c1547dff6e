#version 450
// kernel for eigh float[4,3] (node 8949d0b99415e6dfbf3a6745)
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 1 + int(gl_LocalInvocationIndex);
  if (u >= 1) return;
  float w0[9];
  float v1[9];
  float scale7 = 0.00000000;
  bool finite8 = true;
  for (int i2 = 0; i2 < 3; i2++) for (int j3 = 0; j3 < 3; j3++) {
    float t10 = b0.v[((i2)*3+j3)];
    float t11 = b0.v[((j3)*3+i2)];
    float x9 = (t10 + t11) * 0.500000000;
    w0[i2 * 3 + j3] = x9;
    finite8 = finite8 && !ppl_isnan(x9) && !ppl_isinf(x9);
    scale7 = abs(x9) > scale7 ? abs(x9) : scale7;
    v1[i2 * 3 + j3] = i2 == j3 ? 1.00000000 : 0.00000000;
  }
  if (!finite8) for (int i2 = 0; i2 <= 3; i2++) for (int j3 = 0; j3 < 3; j3++) {
    b1.v[((i2)*3+j3)] = uintBitsToFloat(0x7fc00000u);
  }
  if (finite8) {
    for (int sweep12 = 0; sweep12 < 30; sweep12++) {
      bool rotated13 = false;
      for (int p5 = 0; p5 < 2; p5++) for (int q6 = p5 + 1; q6 < 3; q6++) {
        float apq14 = w0[p5 * 3 + q6], app15 = w0[p5 * 3 + p5], aqq16 = w0[q6 * 3 + q6];
        float fl17 = sqrt(abs(app15)) * sqrt(abs(aqq16));
        if (abs(apq14) <= 1.19209290e-7 * (fl17 > scale7 ? fl17 : scale7)) continue;
        rotated13 = true;
        float theta18 = (aqq16 - app15) / (2.00000000 * apq14);
        float t019 = 1.00000000 / (abs(theta18) + sqrt(theta18 * theta18 + 1.00000000));
        float t20 = theta18 < 0.00000000 ? -t019 : t019;
        float c21 = 1.00000000 / sqrt(t20 * t20 + 1.00000000);
        float s22 = t20 * c21;
        w0[p5 * 3 + p5] = app15 - t20 * apq14;
        w0[q6 * 3 + q6] = aqq16 + t20 * apq14;
        w0[p5 * 3 + q6] = 0.00000000;
        w0[q6 * 3 + p5] = 0.00000000;
        for (int k4 = 0; k4 < 3; k4++) {
          if (k4 != p5 && k4 != q6) {
            float g23 = w0[k4 * 3 + p5], h24 = w0[k4 * 3 + q6];
            float gp25 = c21 * g23 - s22 * h24, hq26 = s22 * g23 + c21 * h24;
            w0[k4 * 3 + p5] = gp25; w0[p5 * 3 + k4] = gp25;
            w0[k4 * 3 + q6] = hq26; w0[q6 * 3 + k4] = hq26;
          }
          float vg27 = v1[k4 * 3 + p5], vh28 = v1[k4 * 3 + q6];
          v1[k4 * 3 + p5] = c21 * vg27 - s22 * vh28;
          v1[k4 * 3 + q6] = s22 * vg27 + c21 * vh28;
        }
      }
      if (!rotated13) break;
    }
    for (int i2 = 0; i2 < 3; i2++) {
      float d29 = w0[i2 * 3 + i2];
      int rank30 = 0;
      for (int j3 = 0; j3 < 3; j3++) {
        float e31 = w0[j3 * 3 + j3];
        if (e31 < d29 || (e31 == d29 && j3 < i2)) rank30++;
      }
      float big32 = 0.00000000;
      int at33 = 0;
      for (int k4 = 0; k4 < 3; k4++) {
        float ax34 = abs(v1[k4 * 3 + i2]);
        if (ax34 > big32) { big32 = ax34; at33 = k4; }
      }
      float flip35 = v1[at33 * 3 + i2] < 0.00000000 ? (-1.00000000) : 1.00000000;
      for (int k4 = 0; k4 < 3; k4++) {
        b1.v[((k4)*3+rank30)] = flip35 * v1[k4 * 3 + i2];
      }
      b1.v[((3)*3+rank30)] = d29;
    }
  }
}

// ----
#version 450
// kernel for reshape float[3] (node 783ef9ef2cfb8a566732441a)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 3) return;
  float t0 = b0.v[((3)*3+(u)%3)];
  float t1 = t0;
  b1.v[u] = t1;
}

// ----
#version 450
// kernel for slice float[3,3] (node e4584079ce7f9cf80e78f663)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 9) return;
  float t0 = b0.v[(((u)/3)*3+(u)%3)];
  b1.v[u] = t0;
}
