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
  for (int k = p * 1000 + int(gl_LocalInvocationIndex); k < kEnd; k += 256) {
    float t0 = b0.v[((o)*1000+k)];
    red_s0 = ppl_max(red_s0, t0);
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
