#version 450
// kernel for reduce_sum float[64] (node 7f97a7e9e37d90588d867f85)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 64) return;
  float acc0 = 0.00000000;
  for (int k1 = 0; k1 < 8; k1++) {
    float t2 = b0.v[((u)*8+k1)];
    float t3 = (t2*t2);
    acc0 = acc0 + t3;
  }
  b1.v[u] = acc0;
}
