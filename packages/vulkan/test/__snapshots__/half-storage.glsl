#version 450
#extension GL_EXT_shader_16bit_storage : require
// kernel for matmul float[1024,2] (node af78a5dcd6c8a8bc5ee621d6)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float16_t v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) writeonly restrict buffer Buf2 { float v[]; } b2;
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 32) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 2048) return;
  float acc0 = 0.00000000;
  for (int l1 = 0; l1 < 8; l1++) {
    float t2 = float(b0.v[(((u)/2)*8+l1)]);
    float t3 = b1.v[((l1)*2+(u)%2)];
    acc0 += t2 * t3;
  }
  b2.v[u] = acc0;
}

// ----
#version 450
#extension GL_EXT_shader_16bit_storage : require
// kernel for reduce_sum float[1024] (node 2172a28b2552dec960fb42af)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float16_t v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 16) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 1024) return;
  float acc0 = 0.00000000;
  for (int k1 = 0; k1 < 8; k1++) {
    float t2 = float(b0.v[((u)*8+k1)]);
    float t3 = (t2*0.500000000);
    float t4 = ppl_exp(t3);
    acc0 = acc0 + t4;
  }
  b1.v[u] = acc0;
}
