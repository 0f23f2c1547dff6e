#version 450
// kernel for matmul float[100000,4] (node 0626a0d834c475193e57acfc): row pass over X [100000,100] in blocks of 64 rows, 256 rows per workgroup: η = X·B, 1 row sum, 1 product with Xᵀ
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3; // scratch: 391 partial products per output
layout(std430, set = 0, binding = 4) writeonly restrict buffer Buf4 { float v[]; } b4; // scratch: 391 partial products per output
shared float ppl_Bs[400];
shared float ppl_Xs[6464];
shared float ppl_eta[256];
shared float ppl_R0[256];
shared float ppl_cm[800];
shared float ppl_lanes[256];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 391) return;
  int t = int(gl_LocalInvocationIndex);
  for (int e = t; e < 400; e += 256) {
    int q = e / 4; int c = e - q * 4;
    float t0 = b0.v[((c)*100+q)];
    float t1 = t0;
    ppl_Bs[e] = t1;
  }
  int rowBegin = gid * 256; int rowEnd = min(100000, rowBegin + 256);
  float red0 = 0.00000000; int ro0 = t % 4; int rl0 = t / 4;
  int kk = t % 100; int slot = t / 100;
  float con0_0 = 0.00000000; float con0_1 = 0.00000000; float con0_2 = 0.00000000; float con0_3 = 0.00000000;
  for (int n0 = rowBegin; n0 < rowEnd; n0 += 64) {
    int rows = min(64, rowEnd - n0);
    memoryBarrierShared(); barrier();
    int xe0 = 0 + t; int xr0 = xe0 / 100; int xk0 = xe0 - xr0 * 100;
    float t2 = b1.v[((min(n0 + xr0, 99999))*100+xk0)];
    int xe1 = 256 + t; int xr1 = xe1 / 100; int xk1 = xe1 - xr1 * 100;
    float t3 = b1.v[((min(n0 + xr1, 99999))*100+xk1)];
    int xe2 = 512 + t; int xr2 = xe2 / 100; int xk2 = xe2 - xr2 * 100;
    float t4 = b1.v[((min(n0 + xr2, 99999))*100+xk2)];
    int xe3 = 768 + t; int xr3 = xe3 / 100; int xk3 = xe3 - xr3 * 100;
    float t5 = b1.v[((min(n0 + xr3, 99999))*100+xk3)];
    int xe4 = 1024 + t; int xr4 = xe4 / 100; int xk4 = xe4 - xr4 * 100;
    float t6 = b1.v[((min(n0 + xr4, 99999))*100+xk4)];
    int xe5 = 1280 + t; int xr5 = xe5 / 100; int xk5 = xe5 - xr5 * 100;
    float t7 = b1.v[((min(n0 + xr5, 99999))*100+xk5)];
    int xe6 = 1536 + t; int xr6 = xe6 / 100; int xk6 = xe6 - xr6 * 100;
    float t8 = b1.v[((min(n0 + xr6, 99999))*100+xk6)];
    int xe7 = 1792 + t; int xr7 = xe7 / 100; int xk7 = xe7 - xr7 * 100;
    float t9 = b1.v[((min(n0 + xr7, 99999))*100+xk7)];
    int xe8 = 2048 + t; int xr8 = xe8 / 100; int xk8 = xe8 - xr8 * 100;
    float t10 = b1.v[((min(n0 + xr8, 99999))*100+xk8)];
    int xe9 = 2304 + t; int xr9 = xe9 / 100; int xk9 = xe9 - xr9 * 100;
    float t11 = b1.v[((min(n0 + xr9, 99999))*100+xk9)];
    int xe10 = 2560 + t; int xr10 = xe10 / 100; int xk10 = xe10 - xr10 * 100;
    float t12 = b1.v[((min(n0 + xr10, 99999))*100+xk10)];
    int xe11 = 2816 + t; int xr11 = xe11 / 100; int xk11 = xe11 - xr11 * 100;
    float t13 = b1.v[((min(n0 + xr11, 99999))*100+xk11)];
    int xe12 = 3072 + t; int xr12 = xe12 / 100; int xk12 = xe12 - xr12 * 100;
    float t14 = b1.v[((min(n0 + xr12, 99999))*100+xk12)];
    int xe13 = 3328 + t; int xr13 = xe13 / 100; int xk13 = xe13 - xr13 * 100;
    float t15 = b1.v[((min(n0 + xr13, 99999))*100+xk13)];
    int xe14 = 3584 + t; int xr14 = xe14 / 100; int xk14 = xe14 - xr14 * 100;
    float t16 = b1.v[((min(n0 + xr14, 99999))*100+xk14)];
    int xe15 = 3840 + t; int xr15 = xe15 / 100; int xk15 = xe15 - xr15 * 100;
    float t17 = b1.v[((min(n0 + xr15, 99999))*100+xk15)];
    int xe16 = 4096 + t; int xr16 = xe16 / 100; int xk16 = xe16 - xr16 * 100;
    float t18 = b1.v[((min(n0 + xr16, 99999))*100+xk16)];
    int xe17 = 4352 + t; int xr17 = xe17 / 100; int xk17 = xe17 - xr17 * 100;
    float t19 = b1.v[((min(n0 + xr17, 99999))*100+xk17)];
    int xe18 = 4608 + t; int xr18 = xe18 / 100; int xk18 = xe18 - xr18 * 100;
    float t20 = b1.v[((min(n0 + xr18, 99999))*100+xk18)];
    int xe19 = 4864 + t; int xr19 = xe19 / 100; int xk19 = xe19 - xr19 * 100;
    float t21 = b1.v[((min(n0 + xr19, 99999))*100+xk19)];
    int xe20 = 5120 + t; int xr20 = xe20 / 100; int xk20 = xe20 - xr20 * 100;
    float t22 = b1.v[((min(n0 + xr20, 99999))*100+xk20)];
    int xe21 = 5376 + t; int xr21 = xe21 / 100; int xk21 = xe21 - xr21 * 100;
    float t23 = b1.v[((min(n0 + xr21, 99999))*100+xk21)];
    int xe22 = 5632 + t; int xr22 = xe22 / 100; int xk22 = xe22 - xr22 * 100;
    float t24 = b1.v[((min(n0 + xr22, 99999))*100+xk22)];
    int xe23 = 5888 + t; int xr23 = xe23 / 100; int xk23 = xe23 - xr23 * 100;
    float t25 = b1.v[((min(n0 + xr23, 99999))*100+xk23)];
    int xe24 = 6144 + t; int xr24 = xe24 / 100; int xk24 = xe24 - xr24 * 100;
    float t26 = b1.v[((min(n0 + xr24, 99999))*100+xk24)];
    ppl_Xs[xr0 * 101 + xk0] = t2;
    ppl_Xs[xr1 * 101 + xk1] = t3;
    ppl_Xs[xr2 * 101 + xk2] = t4;
    ppl_Xs[xr3 * 101 + xk3] = t5;
    ppl_Xs[xr4 * 101 + xk4] = t6;
    ppl_Xs[xr5 * 101 + xk5] = t7;
    ppl_Xs[xr6 * 101 + xk6] = t8;
    ppl_Xs[xr7 * 101 + xk7] = t9;
    ppl_Xs[xr8 * 101 + xk8] = t10;
    ppl_Xs[xr9 * 101 + xk9] = t11;
    ppl_Xs[xr10 * 101 + xk10] = t12;
    ppl_Xs[xr11 * 101 + xk11] = t13;
    ppl_Xs[xr12 * 101 + xk12] = t14;
    ppl_Xs[xr13 * 101 + xk13] = t15;
    ppl_Xs[xr14 * 101 + xk14] = t16;
    ppl_Xs[xr15 * 101 + xk15] = t17;
    ppl_Xs[xr16 * 101 + xk16] = t18;
    ppl_Xs[xr17 * 101 + xk17] = t19;
    ppl_Xs[xr18 * 101 + xk18] = t20;
    ppl_Xs[xr19 * 101 + xk19] = t21;
    ppl_Xs[xr20 * 101 + xk20] = t22;
    ppl_Xs[xr21 * 101 + xk21] = t23;
    ppl_Xs[xr22 * 101 + xk22] = t24;
    ppl_Xs[xr23 * 101 + xk23] = t25;
    ppl_Xs[xr24 * 101 + xk24] = t26;
    memoryBarrierShared(); barrier();
    for (int e = t; e < rows * 4; e += 256) {
      int rr = e / 4; int c = e - rr * 4;
      float s = 0.00000000;
      for (int q = 0; q < 100; q++) s += ppl_Xs[rr * 101 + q] * ppl_Bs[q * 4 + c];
      ppl_eta[e] = s;
    }
    memoryBarrierShared(); barrier();
    if (rl0 < 64) for (int rr = rl0; rr < rows; rr += 64) {
      float t27 = b2.v[(n0 + rr)];
      float t28 = ppl_eta[((n0 + rr) - n0) * 4 + ro0];
      float t29 = t28;
      float t30 = (t27*t29);
      float t31 = ppl_softplus(t29);
      float t32 = (t30-t31);
      red0 += t32;
    }
    for (int e = t; e < rows * 4; e += 256) {
      int rr = e / 4; int c = e - rr * 4;
      float t33 = ppl_eta[((n0 + rr) - n0) * 4 + c];
      float t34 = t33;
      float t35 = ppl_sigmoid(t34);
      float t36 = ((-1.00000000)*t35);
      float t37 = b2.v[(n0 + rr)];
      float t38 = (t36+t37);
      float t39 = t38;
      ppl_R0[e] = t39;
    }
    memoryBarrierShared(); barrier();
    if (slot < 2) for (int rr = slot; rr < rows; rr += 2) {
      float x = ppl_Xs[rr * 101 + kk];
      con0_0 += x * ppl_R0[rr * 4 + 0];
      con0_1 += x * ppl_R0[rr * 4 + 1];
      con0_2 += x * ppl_R0[rr * 4 + 2];
      con0_3 += x * ppl_R0[rr * 4 + 3];
    }
  }
  memoryBarrierShared(); barrier();
   {
    int j = rl0; float acc = j < 64 ? red0 : 0.00000000;
    ppl_lanes[t] = acc;
    memoryBarrierShared(); barrier();
    for (int w = 32; w > 0; w >>= 1) { if (j < w) ppl_lanes[t] += ppl_lanes[t + w * 4]; memoryBarrierShared(); barrier(); }
    if (j == 0 && t < 4) { b3.v[gid * 4 + t] = ppl_lanes[t]; }
  }
  memoryBarrierShared(); barrier();
  if (slot < 2) { ppl_cm[(slot * 100 + kk) * 4 + 0] = con0_0; ppl_cm[(slot * 100 + kk) * 4 + 1] = con0_1; ppl_cm[(slot * 100 + kk) * 4 + 2] = con0_2; ppl_cm[(slot * 100 + kk) * 4 + 3] = con0_3; }
  memoryBarrierShared(); barrier();
  if (t < 100) {
    float s0 = 0.00000000; for (int q = 0; q < 2; q++) s0 += ppl_cm[(q * 100 + t) * 4 + 0];
    b4.v[gid * 400 + t * 4 + 0] = s0;
    float s1 = 0.00000000; for (int q = 0; q < 2; q++) s1 += ppl_cm[(q * 100 + t) * 4 + 1];
    b4.v[gid * 400 + t * 4 + 1] = s1;
    float s2 = 0.00000000; for (int q = 0; q < 2; q++) s2 += ppl_cm[(q * 100 + t) * 4 + 2];
    b4.v[gid * 400 + t * 4 + 2] = s2;
    float s3 = 0.00000000; for (int q = 0; q < 2; q++) s3 += ppl_cm[(q * 100 + t) * 4 + 3];
    b4.v[gid * 400 + t * 4 + 3] = s3;
  }
}

// ----
#version 450
// kernel for reduce_sum float[4] (node 623e006b0ec4997fdc03cc14): sum of 391 k-slices, 32 threads an output
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0; // scratch: 391 partial products per output
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
shared float ppl_lanes[256];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int t = int(gl_LocalInvocationIndex); int j = t / 8; int o = t - j * 8; int u = gid * 8 + o;
  float acc = 0.00000000;
  if (u < 4) { for (int p = j; p < 391; p += 32) acc += b0.v[p * 4 + u]; }
  ppl_lanes[t] = acc;
  memoryBarrierShared(); barrier();
  for (int w = 16; w > 0; w >>= 1) { if (j < w) ppl_lanes[t] += ppl_lanes[t + w * 8]; memoryBarrierShared(); barrier(); }
  if (j == 0 && u < 4) { b1.v[u] = ppl_lanes[t]; }
}

// ----
#version 450
// kernel for matmul float[100,4] (node dba57260471d75f186d21cda): sum of 391 k-slices, 32 threads an output
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0; // scratch: 391 partial products per output
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
shared float ppl_lanes[256];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 50) return;
  int t = int(gl_LocalInvocationIndex); int j = t / 8; int o = t - j * 8; int u = gid * 8 + o;
  float acc = 0.00000000;
  if (u < 400) { for (int p = j; p < 391; p += 32) acc += b0.v[p * 400 + u]; }
  ppl_lanes[t] = acc;
  memoryBarrierShared(); barrier();
  for (int w = 16; w > 0; w >>= 1) { if (j < w) ppl_lanes[t] += ppl_lanes[t + w * 8]; memoryBarrierShared(); barrier(); }
  if (j == 0 && u < 400) { b1.v[u] = ppl_lanes[t]; }
}
