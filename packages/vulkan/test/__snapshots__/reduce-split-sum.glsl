#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
// kernel for reduce_sum float[] (node 90edd4de789fef8092cae370): parallel reduction (49 workgroups per output, the last merges their partials)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) coherent restrict buffer Buf1 { float v[]; } b1; // scratch: 49 partial reduce_sum states per output
layout(std430, set = 0, binding = 2) coherent restrict buffer Buf2 { int v[]; } b2; // scratch: workgroups of each output's reduce_sum done
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
shared float ppl_sh0[256];
// (math prelude: f32, i32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 49) return;
  int o = gid / 49;
  int p = gid - o * 49;
  int kEnd = min(100000, (p + 1) * 2041);
  float red_s0 = 0.00000000;
  for (int k_at = p * 2041 + int(gl_LocalInvocationIndex); k_at < kEnd; k_at += 2048) {
    int k_0 = k_at;
    int k_1 = min(k_at + 256, kEnd - 1);
    int k_2 = min(k_at + 512, kEnd - 1);
    int k_3 = min(k_at + 768, kEnd - 1);
    int k_4 = min(k_at + 1024, kEnd - 1);
    int k_5 = min(k_at + 1280, kEnd - 1);
    int k_6 = min(k_at + 1536, kEnd - 1);
    int k_7 = min(k_at + 1792, kEnd - 1);
    float t0 = b0.v[k_0];
    float t1 = (t0*t0);
    float t2 = b0.v[k_1];
    float t3 = (t2*t2);
    float t4 = b0.v[k_2];
    float t5 = (t4*t4);
    float t6 = b0.v[k_3];
    float t7 = (t6*t6);
    float t8 = b0.v[k_4];
    float t9 = (t8*t8);
    float t10 = b0.v[k_5];
    float t11 = (t10*t10);
    float t12 = b0.v[k_6];
    float t13 = (t12*t12);
    float t14 = b0.v[k_7];
    float t15 = (t14*t14);
    red_s0 = red_s0 + t1;
    if (k_at + 256 < kEnd) { red_s0 = red_s0 + t3; }
    if (k_at + 512 < kEnd) { red_s0 = red_s0 + t5; }
    if (k_at + 768 < kEnd) { red_s0 = red_s0 + t7; }
    if (k_at + 1024 < kEnd) { red_s0 = red_s0 + t9; }
    if (k_at + 1280 < kEnd) { red_s0 = red_s0 + t11; }
    if (k_at + 1536 < kEnd) { red_s0 = red_s0 + t13; }
    if (k_at + 1792 < kEnd) { red_s0 = red_s0 + t15; }
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
  if (gl_SubgroupID != 0) return;
  bool ppl_last = false;
  if (subgroupElect()) { b1.v[0 + gid] = red_s0; memoryBarrierBuffer(); ppl_last = atomicAdd(b2.v[o], 1) == 48; }
  if (!subgroupAny(ppl_last)) return;
  int ppl_merge_lanes = int(min(gl_SubgroupSize, 256u));
  memoryBarrierBuffer();
  red_s0 = 0.00000000;
  for (int i_at = int(gl_SubgroupInvocationID); i_at < 49; i_at += 2 * ppl_merge_lanes) {
    int i_0 = i_at;
    int i_1 = min(i_at + 1 * ppl_merge_lanes, 49 - 1);
    float i_0_p0 = b1.v[0 + o * 49 + i_0];
    float i_1_p0 = b1.v[0 + o * 49 + i_1];
    red_s0 = red_s0 + i_0_p0;
    if (i_at + 1 * ppl_merge_lanes < 49) { red_s0 = red_s0 + i_1_p0; }
  }
  red_s0 = subgroupAdd(red_s0);
  if (subgroupElect()) { b3.v[o] = red_s0; b2.v[o] = 0; }
}
