#version 450
// 2 independent kernels in one dispatch, each on its own workgroups:
//   part 0: reduce_sum [1024] (node 49a3567490b222fbc75b8aaa)
//   part 1: matmul [200,1024] (node c29d74273963bf6d5cd553a8): wide row pass over X [200,3] and 1024 columns, a thread a column and chunk, 25 chunks of 8 rows, 2 a workgroup (13 partials): η = X·B, 2 row sums, 1 product with Xᵀ
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) readonly restrict buffer Buf3 { float v[]; } b3;
layout(std430, set = 0, binding = 4) writeonly restrict buffer Buf4 { float v[]; } b4; // scratch: 13 partial products per output
layout(std430, set = 0, binding = 5) writeonly restrict buffer Buf5 { float v[]; } b5; // scratch: 13 partial products per output
layout(std430, set = 0, binding = 6) writeonly restrict buffer Buf6 { float v[]; } b6; // scratch: 13 partial products per output
shared float ppl_xs[48];
shared float ppl_ws[640];
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// (shaders/prelude, float: left out of the golden)
// part 0: reduce_sum [1024] (node 49a3567490b222fbc75b8aaa)
void ppl_part0(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float acc0 = 0.00000000;
  for (int k1 = 0; k1 < 3; k1++) {
    float t2 = b0.v[((u)*4+(1+k1))];
    float t3 = t2;
    float t4 = (t3/2.50000000);
    float t5 = (t4*t4);
    float t6 = (0.500000000*t5);
    float t7 = (t6+0.916290760);
    float t8 = (-t7);
    float t9 = (t8-0.918938518);
    acc0 = acc0 + t9;
  }
  b1.v[u] = acc0;
}
// part 1: matmul [200,1024] (node c29d74273963bf6d5cd553a8): wide row pass over X [200,3] and 1024 columns, a thread a column and chunk, 25 chunks of 8 rows, 2 a workgroup (13 partials): η = X·B, 2 row sums, 1 product with Xᵀ
void ppl_part1(int gid, uint ppl_lid) {
  if (gid >= 208) return;
  int cg = gid % 16; int wg = gid / 16;
  int l = int(ppl_lid) % 64; int s = int(ppl_lid) / 64; int part = wg * 2 + s;
  int c = cg * 64 + l; int cc = min(c, 1023);
  float t0 = b0.v[((cc)*4+1)];
  float t1 = t0;
  float t2 = t1;
  float bk0 = t2;
  float t3 = b0.v[((cc)*4+(1+1))];
  float t4 = t3;
  float t5 = t4;
  float bk1 = t5;
  float t6 = b0.v[((cc)*4+(1+2))];
  float t7 = t6;
  float t8 = t7;
  float bk2 = t8;
  float g0_0 = 0.00000000; float g0_1 = 0.00000000; float g0_2 = 0.00000000;
  float red0 = 0.00000000;
  float red1 = 0.00000000;
  int rowEnd = min(200, part * 8 + 8);
  for (int i = int(ppl_lid); i < 48; i += 128) {
    int nn = min(wg * 16 + i / 3, 199); int kk = i % 3;
    float t9 = b2.v[((nn)*3+kk)];
    ppl_xs[i] = t9;
  }
  memoryBarrierShared(); barrier();
  float t16 = b0.v[(cc)*4];
  float t17 = t16;
  for (int n = part * 8; n < rowEnd; n++) {
    float xs0 = ppl_xs[(n - wg * 16) * 3 + 0];
    float xs1 = ppl_xs[(n - wg * 16) * 3 + 1];
    float xs2 = ppl_xs[(n - wg * 16) * 3 + 2];
    float e = xs0 * bk0 + xs1 * bk1 + xs2 * bk2;
    float t10 = b3.v[n];
    bool t11 = (t10>=0.00000000);
    bool t12 = (t10<=1.00000000);
    bool t13 = (t11&&t12);
    float t14 = (2.00000000*t10);
    float t15 = (t14-1.00000000);
    float t18 = e;
    float t19 = t18;
    float t20 = (t17+t19);
    float t21 = (t15*t20);
    bool t22 = (t21<0.00000000);
    float t23 = abs(t21);
    float t24 = (-t23);
    float t25 = ppl_exp(t24);
    float t26 = ppl_log1p(t25);
    float t27 = (t21-t26);
    float t28 = (-t26);
    float t29 = (t22 ? t27 : t28);
    float t30 = (t13 ? t29 : uintBitsToFloat(0xff800000u));
    red0 += t30;
    float t31 = (t13 ? 1.00000000 : 0.00000000);
    float t32 = (-t21);
    bool t33 = (t32>=0.00000000);
    float t34 = (t33 ? 1.00000000 : t25);
    float t35 = (1.00000000+t25);
    float t36 = (t34/t35);
    float t37 = (t31*t36);
    float t38 = (t37*t15);
    red1 += t38;
    float t39 = t38;
    g0_0 += xs0 * t39;
    g0_1 += xs1 * t39;
    g0_2 += xs2 * t39;
  }
  ppl_ws[0 * 64 + int(ppl_lid)] = red0;
  ppl_ws[2 * 64 + int(ppl_lid)] = red1;
  ppl_ws[4 * 64 + int(ppl_lid)] = g0_0;
  ppl_ws[6 * 64 + int(ppl_lid)] = g0_1;
  ppl_ws[8 * 64 + int(ppl_lid)] = g0_2;
  memoryBarrierShared(); barrier();
  if (c < 1024) {
    if (s == 0) { float v = 0.00000000; for (int q = 0; q < 2; q++) v += ppl_ws[(0 + q) * 64 + l]; b4.v[wg * 1024 + c] = v; }
    if (s == 1) { float v = 0.00000000; for (int q = 0; q < 2; q++) v += ppl_ws[(2 + q) * 64 + l]; b5.v[wg * 1024 + c] = v; }
    if (s == 0) { float v = 0.00000000; for (int q = 0; q < 2; q++) v += ppl_ws[(4 + q) * 64 + l]; b6.v[wg * 3072 + 0 + c] = v; }
    if (s == 1) { float v = 0.00000000; for (int q = 0; q < 2; q++) v += ppl_ws[(6 + q) * 64 + l]; b6.v[wg * 3072 + 1024 + c] = v; }
    if (s == 0) { float v = 0.00000000; for (int q = 0; q < 2; q++) v += ppl_ws[(8 + q) * 64 + l]; b6.v[wg * 3072 + 2048 + c] = v; }
  }
}
void main() {
  int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (g < 8) { ppl_part0(g * 2 + int(gl_LocalInvocationIndex / 64u), gl_LocalInvocationIndex % 64u); return; }
  g -= 8;
  if (g < 208) { ppl_part1(g, gl_LocalInvocationIndex); return; }
}

// ----
#version 450
// 2 independent kernels in one dispatch, each on its own workgroups:
//   part 0: add [1024] (node fa07f07e25487866e6ed0e59)
//   part 1: add [1024,4] (node 50356e3217414a0763fb55de)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2; // scratch: 13 partial products per output
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
layout(std430, set = 0, binding = 4) readonly restrict buffer Buf4 { float v[]; } b4; // scratch: 13 partial products per output
layout(std430, set = 0, binding = 5) readonly restrict buffer Buf5 { float v[]; } b5; // scratch: 13 partial products per output
layout(std430, set = 0, binding = 6) writeonly restrict buffer Buf6 { float v[]; } b6;
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// (shaders/prelude, float: left out of the golden)
// part 0: add [1024] (node fa07f07e25487866e6ed0e59)
void ppl_part0(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float t0 = b0.v[(u)*4];
  float t1 = t0;
  float t2 = t1;
  float t3 = (t2/2.50000000);
  float t4 = (t3*t3);
  float t5 = (0.500000000*t4);
  float t6 = (t5+0.916290760);
  float t7 = (-t6);
  float t8 = (t7-0.918938518);
  float t9 = b1.v[u];
  float t10 = (t8+t9);
  int ppl_sl0_at = u;
  float ppl_sl0_0 = b2.v[ppl_sl0_at];
  float ppl_sl0_1 = b2.v[1024 + ppl_sl0_at];
  float ppl_sl0_2 = b2.v[2048 + ppl_sl0_at];
  float ppl_sl0_3 = b2.v[3072 + ppl_sl0_at];
  float ppl_sl0_4 = b2.v[4096 + ppl_sl0_at];
  float ppl_sl0_5 = b2.v[5120 + ppl_sl0_at];
  float ppl_sl0_6 = b2.v[6144 + ppl_sl0_at];
  float ppl_sl0_7 = b2.v[7168 + ppl_sl0_at];
  float ppl_sl0_8 = b2.v[8192 + ppl_sl0_at];
  float ppl_sl0_9 = b2.v[9216 + ppl_sl0_at];
  float ppl_sl0_10 = b2.v[10240 + ppl_sl0_at];
  float ppl_sl0_11 = b2.v[11264 + ppl_sl0_at];
  float ppl_sl0_12 = b2.v[12288 + ppl_sl0_at];
  float ppl_sl0 = ((((ppl_sl0_0 + ppl_sl0_1) + (ppl_sl0_2 + ppl_sl0_3)) + ((ppl_sl0_4 + ppl_sl0_5) + ppl_sl0_6)) + (((ppl_sl0_7 + ppl_sl0_8) + ppl_sl0_9) + ((ppl_sl0_10 + ppl_sl0_11) + ppl_sl0_12)));
  float t11 = ppl_sl0;
  b3.v[u] = (t10+t11);
}
// part 1: add [1024,4] (node 50356e3217414a0763fb55de)
void ppl_part1(int gid, uint ppl_lid) {
  if (gid >= 64) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 4096) return;
  int ppl_sl0_at = ((clamp(((u)%4-1), 0, 2))*1024+(u)/4);
  float ppl_sl0_0 = b4.v[ppl_sl0_at];
  float ppl_sl0_1 = b4.v[3072 + ppl_sl0_at];
  float ppl_sl0_2 = b4.v[6144 + ppl_sl0_at];
  float ppl_sl0_3 = b4.v[9216 + ppl_sl0_at];
  float ppl_sl0_4 = b4.v[12288 + ppl_sl0_at];
  float ppl_sl0_5 = b4.v[15360 + ppl_sl0_at];
  float ppl_sl0_6 = b4.v[18432 + ppl_sl0_at];
  float ppl_sl0_7 = b4.v[21504 + ppl_sl0_at];
  float ppl_sl0_8 = b4.v[24576 + ppl_sl0_at];
  float ppl_sl0_9 = b4.v[27648 + ppl_sl0_at];
  float ppl_sl0_10 = b4.v[30720 + ppl_sl0_at];
  float ppl_sl0_11 = b4.v[33792 + ppl_sl0_at];
  float ppl_sl0_12 = b4.v[36864 + ppl_sl0_at];
  float ppl_sl0 = ((((ppl_sl0_0 + ppl_sl0_1) + (ppl_sl0_2 + ppl_sl0_3)) + ((ppl_sl0_4 + ppl_sl0_5) + ppl_sl0_6)) + (((ppl_sl0_7 + ppl_sl0_8) + ppl_sl0_9) + ((ppl_sl0_10 + ppl_sl0_11) + ppl_sl0_12)));
  float t0 = ppl_sl0;
  float t1 = t0;
  float t2 = b0.v[(((u)/4)*4+(1+clamp(((u)%4-1), 0, 2)))];
  float t3 = t2;
  float t4 = (t3/2.50000000);
  float t5 = (t4*2.00000000);
  float t6 = ((-0.500000000)*t5);
  float t7 = (t6/2.50000000);
  float t8 = (t1+t7);
  float t9 = ((((u)%4-1) >= 0 && ((u)%4-1) < 3) ? t8 : 0.00000000);
  int ppl_sl1_at = (u)/4;
  float ppl_sl1_0 = b5.v[ppl_sl1_at];
  float ppl_sl1_1 = b5.v[1024 + ppl_sl1_at];
  float ppl_sl1_2 = b5.v[2048 + ppl_sl1_at];
  float ppl_sl1_3 = b5.v[3072 + ppl_sl1_at];
  float ppl_sl1_4 = b5.v[4096 + ppl_sl1_at];
  float ppl_sl1_5 = b5.v[5120 + ppl_sl1_at];
  float ppl_sl1_6 = b5.v[6144 + ppl_sl1_at];
  float ppl_sl1_7 = b5.v[7168 + ppl_sl1_at];
  float ppl_sl1_8 = b5.v[8192 + ppl_sl1_at];
  float ppl_sl1_9 = b5.v[9216 + ppl_sl1_at];
  float ppl_sl1_10 = b5.v[10240 + ppl_sl1_at];
  float ppl_sl1_11 = b5.v[11264 + ppl_sl1_at];
  float ppl_sl1_12 = b5.v[12288 + ppl_sl1_at];
  float ppl_sl1 = ((((ppl_sl1_0 + ppl_sl1_1) + (ppl_sl1_2 + ppl_sl1_3)) + ((ppl_sl1_4 + ppl_sl1_5) + ppl_sl1_6)) + (((ppl_sl1_7 + ppl_sl1_8) + ppl_sl1_9) + ((ppl_sl1_10 + ppl_sl1_11) + ppl_sl1_12)));
  float t10 = ppl_sl1;
  float t11 = b0.v[((u)/4)*4];
  float t12 = t11;
  float t13 = t12;
  float t14 = (t13/2.50000000);
  float t15 = (t14*2.00000000);
  float t16 = ((-0.500000000)*t15);
  float t17 = (t16/2.50000000);
  float t18 = (t10+t17);
  float t19 = t18;
  float t20 = (((u)%4 >= 0 && (u)%4 < 1) ? t19 : 0.00000000);
  b6.v[u] = (t9+t20);
}
void main() {
  int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (g < 16) { ppl_part0(g, gl_LocalInvocationIndex); return; }
  g -= 16;
  if (g < 64) { ppl_part1(g, gl_LocalInvocationIndex); return; }
}
