#version 450
// kernel for slogdet float[2] (node a8d401eb557300f17698927f)
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 1 + int(gl_LocalInvocationIndex);
  if (u >= 1) return;
  float w0[16];
  for (int i2 = 0; i2 < 4; i2++) for (int j3 = 0; j3 < 4; j3++) {
    float t5 = b0.v[((i2)*4+j3)];
    w0[i2 * 4 + j3] = t5;
  }
  float sign6 = 1.00000000;
  float logabs7 = 0.00000000;
  for (int k1 = 0; k1 < 4; k1++) {
    int p4 = k1;
    float best8 = abs(w0[k1 * 4 + k1]);
    for (int i2 = k1 + 1; i2 < 4; i2++) {
      float av9 = abs(w0[i2 * 4 + k1]);
      if (av9 > best8) { best8 = av9; p4 = i2; }
    }
    if (p4 != k1) {
      for (int j3 = 0; j3 < 4; j3++) {
        float t10 = w0[k1 * 4 + j3];
        w0[k1 * 4 + j3] = w0[p4 * 4 + j3];
        w0[p4 * 4 + j3] = t10;
      }
      sign6 = -sign6;
    }
    float d11 = w0[k1 * 4 + k1];
    if (d11 != 0.00000000) {
      for (int i2 = k1 + 1; i2 < 4; i2++) {
        float l12 = w0[i2 * 4 + k1] / d11;
        w0[i2 * 4 + k1] = l12;
        for (int j3 = k1 + 1; j3 < 4; j3++) {
          w0[i2 * 4 + j3] = w0[i2 * 4 + j3] - l12 * w0[k1 * 4 + j3];
        }
      }
    }
    sign6 = d11 > 0.00000000 ? sign6 : d11 < 0.00000000 ? -sign6 : d11 == 0.00000000 ? 0.00000000 : uintBitsToFloat(0x7fc00000u);
    logabs7 += ppl_log(abs(d11));
  }
  b1.v[0] = sign6;
  b1.v[1] = logabs7;
}

// ----
#version 450
// kernel for reshape float[] (node 3fb6b06ed7acb66d0db1ec97)
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 1 + int(gl_LocalInvocationIndex);
  if (u >= 1) return;
  float t0 = b0.v[0];
  float t1 = t0;
  b1.v[u] = t1;
}

// ----
#version 450
// kernel for reshape float[] (node 432a9821e09d826a23fb1b3c)
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 1 + int(gl_LocalInvocationIndex);
  if (u >= 1) return;
  float t0 = b0.v[1];
  float t1 = t0;
  b1.v[u] = t1;
}
