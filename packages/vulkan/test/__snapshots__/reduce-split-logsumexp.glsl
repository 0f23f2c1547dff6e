#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
// kernel for reduce_logsumexp float[] (node 58573914568c065a19c11dcc): parallel reduction (49 workgroups per output, the last merges their partials)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) coherent restrict buffer Buf1 { float v[]; } b1; // scratch: 49 partial reduce_logsumexp states per output
layout(std430, set = 0, binding = 2) coherent restrict buffer Buf2 { int v[]; } b2; // scratch: workgroups of each output's reduce_logsumexp done
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
shared float ppl_sh0[256];
shared float ppl_sh1[256];
// (math prelude: f32, i32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 49) return;
  int o = gid / 49;
  int p = gid - o * 49;
  int kEnd = min(100000, (p + 1) * 2041);
  float red_s0 = uintBitsToFloat(0xff800000u);
  float red_s1 = 0.00000000;
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
    float t1 = b0.v[k_1];
    float t2 = b0.v[k_2];
    float t3 = b0.v[k_3];
    float t4 = b0.v[k_4];
    float t5 = b0.v[k_5];
    float t6 = b0.v[k_6];
    float t7 = b0.v[k_7];
    if (t0 > red_s0) { red_s1 = red_s1 * ppl_exp(red_s0 - t0) + 1.00000000; red_s0 = t0; }
    else if (!isinf(red_s0) || red_s0 > 0) { red_s1 += ppl_exp(t0 - red_s0); }
    if (isnan(t0)) { red_s0 = t0; }
    if (k_at + 256 < kEnd) { if (t1 > red_s0) { red_s1 = red_s1 * ppl_exp(red_s0 - t1) + 1.00000000; red_s0 = t1; } else if (!isinf(red_s0) || red_s0 > 0) { red_s1 += ppl_exp(t1 - red_s0); } if (isnan(t1)) { red_s0 = t1; } }
    if (k_at + 512 < kEnd) { if (t2 > red_s0) { red_s1 = red_s1 * ppl_exp(red_s0 - t2) + 1.00000000; red_s0 = t2; } else if (!isinf(red_s0) || red_s0 > 0) { red_s1 += ppl_exp(t2 - red_s0); } if (isnan(t2)) { red_s0 = t2; } }
    if (k_at + 768 < kEnd) { if (t3 > red_s0) { red_s1 = red_s1 * ppl_exp(red_s0 - t3) + 1.00000000; red_s0 = t3; } else if (!isinf(red_s0) || red_s0 > 0) { red_s1 += ppl_exp(t3 - red_s0); } if (isnan(t3)) { red_s0 = t3; } }
    if (k_at + 1024 < kEnd) { if (t4 > red_s0) { red_s1 = red_s1 * ppl_exp(red_s0 - t4) + 1.00000000; red_s0 = t4; } else if (!isinf(red_s0) || red_s0 > 0) { red_s1 += ppl_exp(t4 - red_s0); } if (isnan(t4)) { red_s0 = t4; } }
    if (k_at + 1280 < kEnd) { if (t5 > red_s0) { red_s1 = red_s1 * ppl_exp(red_s0 - t5) + 1.00000000; red_s0 = t5; } else if (!isinf(red_s0) || red_s0 > 0) { red_s1 += ppl_exp(t5 - red_s0); } if (isnan(t5)) { red_s0 = t5; } }
    if (k_at + 1536 < kEnd) { if (t6 > red_s0) { red_s1 = red_s1 * ppl_exp(red_s0 - t6) + 1.00000000; red_s0 = t6; } else if (!isinf(red_s0) || red_s0 > 0) { red_s1 += ppl_exp(t6 - red_s0); } if (isnan(t6)) { red_s0 = t6; } }
    if (k_at + 1792 < kEnd) { if (t7 > red_s0) { red_s1 = red_s1 * ppl_exp(red_s0 - t7) + 1.00000000; red_s0 = t7; } else if (!isinf(red_s0) || red_s0 > 0) { red_s1 += ppl_exp(t7 - red_s0); } if (isnan(t7)) { red_s0 = t7; } }
  }
  { bool anyNan = subgroupAny(ppl_isnan(red_s0)); float mx = subgroupMax(red_s0);
    float scaled = ppl_isinf(mx) ? 0.00000000 : red_s1 * ppl_exp(red_s0 - mx);
    red_s1 = subgroupAdd(scaled); red_s0 = anyNan ? uintBitsToFloat(0x7fc00000u) : mx; }
  if (subgroupElect()) { ppl_sh0[gl_SubgroupID] = red_s0; ppl_sh1[gl_SubgroupID] = red_s1; }
  memoryBarrierShared(); barrier();
  if (gl_SubgroupID == 0) {
    red_s0 = uintBitsToFloat(0xff800000u); red_s1 = 0.00000000;
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) {
      if (ppl_isnan(red_s0) || ppl_isnan(ppl_sh0[i])) { red_s0 = uintBitsToFloat(0x7fc00000u); }
      else { float mx = max(red_s0, ppl_sh0[i]); if (!ppl_isinf(mx)) { red_s1 = red_s1 * ppl_exp(red_s0 - mx) + ppl_sh1[i] * ppl_exp(ppl_sh0[i] - mx); } red_s0 = mx; }
    }
    { bool anyNan = subgroupAny(ppl_isnan(red_s0)); float mx = subgroupMax(red_s0);
      float scaled = ppl_isinf(mx) ? 0.00000000 : red_s1 * ppl_exp(red_s0 - mx);
      red_s1 = subgroupAdd(scaled); red_s0 = anyNan ? uintBitsToFloat(0x7fc00000u) : mx; }
  }
  if (gl_SubgroupID != 0) return;
  bool ppl_last = false;
  if (subgroupElect()) { b1.v[0 + gid] = red_s0; b1.v[49 + gid] = red_s1; memoryBarrierBuffer(); ppl_last = atomicAdd(b2.v[o], 1) == 48; }
  if (!subgroupAny(ppl_last)) return;
  int ppl_merge_lanes = int(min(gl_SubgroupSize, 256u));
  memoryBarrierBuffer();
  red_s0 = uintBitsToFloat(0xff800000u); red_s1 = 0.00000000;
  for (int i_at = int(gl_SubgroupInvocationID); i_at < 49; i_at += 2 * ppl_merge_lanes) {
    int i_0 = i_at;
    int i_1 = min(i_at + 1 * ppl_merge_lanes, 49 - 1);
    float i_0_p0 = b1.v[0 + o * 49 + i_0];
    float i_0_p1 = b1.v[49 + o * 49 + i_0];
    float i_1_p0 = b1.v[0 + o * 49 + i_1];
    float i_1_p1 = b1.v[49 + o * 49 + i_1];
    if (ppl_isnan(red_s0) || ppl_isnan(i_0_p0)) { red_s0 = uintBitsToFloat(0x7fc00000u); }
    else { float mx = max(red_s0, i_0_p0); if (!ppl_isinf(mx)) { red_s1 = red_s1 * ppl_exp(red_s0 - mx) + i_0_p1 * ppl_exp(i_0_p0 - mx); } red_s0 = mx; }
    if (i_at + 1 * ppl_merge_lanes < 49) { if (ppl_isnan(red_s0) || ppl_isnan(i_1_p0)) { red_s0 = uintBitsToFloat(0x7fc00000u); } else { float mx = max(red_s0, i_1_p0); if (!ppl_isinf(mx)) { red_s1 = red_s1 * ppl_exp(red_s0 - mx) + i_1_p1 * ppl_exp(i_1_p0 - mx); } red_s0 = mx; } }
  }
  { bool anyNan = subgroupAny(ppl_isnan(red_s0)); float mx = subgroupMax(red_s0);
    float scaled = ppl_isinf(mx) ? 0.00000000 : red_s1 * ppl_exp(red_s0 - mx);
    red_s1 = subgroupAdd(scaled); red_s0 = anyNan ? uintBitsToFloat(0x7fc00000u) : mx; }
  if (subgroupElect()) { b3.v[o] = ((isinf(red_s0) || isnan(red_s0)) ? red_s0 : red_s0 + ppl_log(red_s1)); b2.v[o] = 0; }
}
