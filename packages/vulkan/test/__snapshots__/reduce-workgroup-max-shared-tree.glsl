#version 450
// kernel for reduce_max float[1024] (node 3ec0cb7058a718e101483dcf): parallel reduction (1 workgroup per output)
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
  float red_s0 = uintBitsToFloat(0xff800000u);
  for (int k_at = p * 1000 + int(gl_LocalInvocationIndex); k_at < kEnd; k_at += 2048) {
    int k_0 = k_at;
    int k_1 = min(k_at + 256, kEnd - 1);
    int k_2 = min(k_at + 512, kEnd - 1);
    int k_3 = min(k_at + 768, kEnd - 1);
    int k_4 = min(k_at + 1024, kEnd - 1);
    int k_5 = min(k_at + 1280, kEnd - 1);
    int k_6 = min(k_at + 1536, kEnd - 1);
    int k_7 = min(k_at + 1792, kEnd - 1);
    float t0 = b0.v[((o)*1000+k_0)];
    float t1 = b0.v[((o)*1000+k_1)];
    float t2 = b0.v[((o)*1000+k_2)];
    float t3 = b0.v[((o)*1000+k_3)];
    float t4 = b0.v[((o)*1000+k_4)];
    float t5 = b0.v[((o)*1000+k_5)];
    float t6 = b0.v[((o)*1000+k_6)];
    float t7 = b0.v[((o)*1000+k_7)];
    red_s0 = ppl_max(red_s0, t0);
    if (k_at + 256 < kEnd) { red_s0 = ppl_max(red_s0, t1); }
    if (k_at + 512 < kEnd) { red_s0 = ppl_max(red_s0, t2); }
    if (k_at + 768 < kEnd) { red_s0 = ppl_max(red_s0, t3); }
    if (k_at + 1024 < kEnd) { red_s0 = ppl_max(red_s0, t4); }
    if (k_at + 1280 < kEnd) { red_s0 = ppl_max(red_s0, t5); }
    if (k_at + 1536 < kEnd) { red_s0 = ppl_max(red_s0, t6); }
    if (k_at + 1792 < kEnd) { red_s0 = ppl_max(red_s0, t7); }
  }
  ppl_sh0[gl_LocalInvocationIndex] = red_s0;
  memoryBarrierShared(); barrier();
  for (uint st = 128u; st > 0u; st >>= 1) {
    if (gl_LocalInvocationIndex < st) {
      red_s0 = ppl_max(red_s0, ppl_sh0[gl_LocalInvocationIndex + st]);
      ppl_sh0[gl_LocalInvocationIndex] = red_s0;
    }
    memoryBarrierShared(); barrier();
  }
  if ((gl_LocalInvocationIndex == 0)) { b1.v[o] = red_s0; }
}
