#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
// kernel for reduce_sum float[1024] (node 60f479470a9a47e3f0fe2714): parallel reduction (1 workgroup per output)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
shared float ppl_sh0[256];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1024) return;
  int o = gid / 1;
  int p = gid - o * 1;
  int kEnd = min(1000, (p + 1) * 1000);
  float red_s0 = 0.00000000;
  for (int k = p * 1000 + int(gl_LocalInvocationIndex); k < kEnd; k += 256) {
    float t0 = b0.v[((o)*1000+k)];
    float t1 = ppl_exp(t0);
    red_s0 = red_s0 + t1;
  }
  red_s0 = subgroupAdd(red_s0);
  if (subgroupElect()) { ppl_sh0[gl_SubgroupID] = red_s0; }
  memoryBarrierShared(); barrier();
  if (gl_SubgroupID == 0) {
    red_s0 = 0.00000000;
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) {
      red_s0 = red_s0 + ppl_sh0[i];
    }
    red_s0 = subgroupAdd(red_s0);
  }
  if ((gl_SubgroupID == 0 && subgroupElect())) { b1.v[o] = red_s0; }
}
