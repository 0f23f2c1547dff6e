#version 450
// kernel for matmul float[1000,1024] (node 59836151b90eda4e5a288b0d): wide row pass over X [1000,10] and 1024 columns, a thread a column and chunk, 63 chunks of 16 rows, 4 a workgroup (16 partials): η = X·B, 1 row sum, 1 product with Xᵀ
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3; // scratch: 16 partial products per output
layout(std430, set = 0, binding = 4) writeonly restrict buffer Buf4 { float v[]; } b4; // scratch: 16 partial products per output
shared float ppl_xs[640];
shared float ppl_ws[2816];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 256) return;
  int cg = gid % 16; int wg = gid / 16;
  int l = int(gl_LocalInvocationIndex) % 64; int s = int(gl_LocalInvocationIndex) / 64; int part = wg * 4 + s;
  int c = cg * 64 + l; int cc = min(c, 1023);
  float t0 = b0.v[(cc)*10];
  float t1 = t0;
  float bk0 = t1;
  float t2 = b0.v[((cc)*10+1)];
  float t3 = t2;
  float bk1 = t3;
  float t4 = b0.v[((cc)*10+2)];
  float t5 = t4;
  float bk2 = t5;
  float t6 = b0.v[((cc)*10+3)];
  float t7 = t6;
  float bk3 = t7;
  float t8 = b0.v[((cc)*10+4)];
  float t9 = t8;
  float bk4 = t9;
  float t10 = b0.v[((cc)*10+5)];
  float t11 = t10;
  float bk5 = t11;
  float t12 = b0.v[((cc)*10+6)];
  float t13 = t12;
  float bk6 = t13;
  float t14 = b0.v[((cc)*10+7)];
  float t15 = t14;
  float bk7 = t15;
  float t16 = b0.v[((cc)*10+8)];
  float t17 = t16;
  float bk8 = t17;
  float t18 = b0.v[((cc)*10+9)];
  float t19 = t18;
  float bk9 = t19;
  float g0_0 = 0.00000000; float g0_1 = 0.00000000; float g0_2 = 0.00000000; float g0_3 = 0.00000000; float g0_4 = 0.00000000; float g0_5 = 0.00000000; float g0_6 = 0.00000000; float g0_7 = 0.00000000; float g0_8 = 0.00000000; float g0_9 = 0.00000000;
  float red0 = 0.00000000;
  int rowEnd = min(1000, part * 16 + 16);
  for (int i = int(gl_LocalInvocationIndex); i < 640; i += 256) {
    int nn = min(wg * 64 + i / 10, 999); int kk = i % 10;
    float t20 = b1.v[((nn)*10+kk)];
    ppl_xs[i] = t20;
  }
  memoryBarrierShared(); barrier();
  for (int n = part * 16; n < rowEnd; n++) {
    float xs0 = ppl_xs[(n - wg * 64) * 10 + 0];
    float xs1 = ppl_xs[(n - wg * 64) * 10 + 1];
    float xs2 = ppl_xs[(n - wg * 64) * 10 + 2];
    float xs3 = ppl_xs[(n - wg * 64) * 10 + 3];
    float xs4 = ppl_xs[(n - wg * 64) * 10 + 4];
    float xs5 = ppl_xs[(n - wg * 64) * 10 + 5];
    float xs6 = ppl_xs[(n - wg * 64) * 10 + 6];
    float xs7 = ppl_xs[(n - wg * 64) * 10 + 7];
    float xs8 = ppl_xs[(n - wg * 64) * 10 + 8];
    float xs9 = ppl_xs[(n - wg * 64) * 10 + 9];
    float e = xs0 * bk0 + xs1 * bk1 + xs2 * bk2 + xs3 * bk3 + xs4 * bk4 + xs5 * bk5 + xs6 * bk6 + xs7 * bk7 + xs8 * bk8 + xs9 * bk9;
    float t21 = b2.v[n];
    float t22 = e;
    float t23 = t22;
    float t24 = (t21*t23);
    bool t25 = (t23>0.00000000);
    float t26 = abs(t23);
    float t27 = (-t26);
    float t28 = ppl_exp(t27);
    float t29 = ppl_log1p(t28);
    float t30 = (t23+t29);
    float t31 = (t25 ? t30 : t29);
    float t32 = (t24-t31);
    red0 += t32;
    bool t33 = (t23>=0.00000000);
    float t34 = (t33 ? 1.00000000 : t28);
    float t35 = (1.00000000+t28);
    float t36 = (t34/t35);
    float t37 = ((-1.00000000)*t36);
    float t38 = (t37+t21);
    float t39 = t38;
    g0_0 += xs0 * t39;
    g0_1 += xs1 * t39;
    g0_2 += xs2 * t39;
    g0_3 += xs3 * t39;
    g0_4 += xs4 * t39;
    g0_5 += xs5 * t39;
    g0_6 += xs6 * t39;
    g0_7 += xs7 * t39;
    g0_8 += xs8 * t39;
    g0_9 += xs9 * t39;
  }
  ppl_ws[0 * 64 + int(gl_LocalInvocationIndex)] = red0;
  ppl_ws[4 * 64 + int(gl_LocalInvocationIndex)] = g0_0;
  ppl_ws[8 * 64 + int(gl_LocalInvocationIndex)] = g0_1;
  ppl_ws[12 * 64 + int(gl_LocalInvocationIndex)] = g0_2;
  ppl_ws[16 * 64 + int(gl_LocalInvocationIndex)] = g0_3;
  ppl_ws[20 * 64 + int(gl_LocalInvocationIndex)] = g0_4;
  ppl_ws[24 * 64 + int(gl_LocalInvocationIndex)] = g0_5;
  ppl_ws[28 * 64 + int(gl_LocalInvocationIndex)] = g0_6;
  ppl_ws[32 * 64 + int(gl_LocalInvocationIndex)] = g0_7;
  ppl_ws[36 * 64 + int(gl_LocalInvocationIndex)] = g0_8;
  ppl_ws[40 * 64 + int(gl_LocalInvocationIndex)] = g0_9;
  memoryBarrierShared(); barrier();
  if (c < 1024) {
    if (s == 0) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(0 + q) * 64 + l]; b3.v[wg * 1024 + c] = v; }
    if (s == 1) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(4 + q) * 64 + l]; b4.v[wg * 10240 + 0 + c] = v; }
    if (s == 2) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(8 + q) * 64 + l]; b4.v[wg * 10240 + 1024 + c] = v; }
    if (s == 3) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(12 + q) * 64 + l]; b4.v[wg * 10240 + 2048 + c] = v; }
    if (s == 0) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(16 + q) * 64 + l]; b4.v[wg * 10240 + 3072 + c] = v; }
    if (s == 1) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(20 + q) * 64 + l]; b4.v[wg * 10240 + 4096 + c] = v; }
    if (s == 2) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(24 + q) * 64 + l]; b4.v[wg * 10240 + 5120 + c] = v; }
    if (s == 3) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(28 + q) * 64 + l]; b4.v[wg * 10240 + 6144 + c] = v; }
    if (s == 0) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(32 + q) * 64 + l]; b4.v[wg * 10240 + 7168 + c] = v; }
    if (s == 1) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(36 + q) * 64 + l]; b4.v[wg * 10240 + 8192 + c] = v; }
    if (s == 2) { float v = 0.00000000; for (int q = 0; q < 4; q++) v += ppl_ws[(40 + q) * 64 + l]; b4.v[wg * 10240 + 9216 + c] = v; }
  }
}
