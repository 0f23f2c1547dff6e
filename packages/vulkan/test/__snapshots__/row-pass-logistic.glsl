#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
// kernel for matmul float[100000,4] (node 0626a0d834c475193e57acfc): row pass over X [100000,100], 4 teams of 32 lanes (subgroup shuffles) x 8 rows a step, 224 rows per workgroup: η = X·B, 1 row sum, 1 product with Xᵀ
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3; // scratch: 447 partial products per output
layout(std430, set = 0, binding = 4) writeonly restrict buffer Buf4 { float v[]; } b4; // scratch: 447 partial products per output
shared float ppl_ps[1600];
shared float ppl_eta[256];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 447) return;
  int w = int(gl_SubgroupID); int l = int(gl_SubgroupInvocationID); int t = w * 32 + l;
  int k0 = l + 0;
  float t0 = b0.v[min(k0, 99)];
  float t1 = t0;
  float b0_0 = k0 < 100 ? t1 : 0.00000000;
  float t2 = b0.v[((1)*100+min(k0, 99))];
  float t3 = t2;
  float b0_1 = k0 < 100 ? t3 : 0.00000000;
  float t4 = b0.v[((2)*100+min(k0, 99))];
  float t5 = t4;
  float b0_2 = k0 < 100 ? t5 : 0.00000000;
  float t6 = b0.v[((3)*100+min(k0, 99))];
  float t7 = t6;
  float b0_3 = k0 < 100 ? t7 : 0.00000000;
  int k1 = l + 32;
  float t8 = b0.v[min(k1, 99)];
  float t9 = t8;
  float b1_0 = k1 < 100 ? t9 : 0.00000000;
  float t10 = b0.v[((1)*100+min(k1, 99))];
  float t11 = t10;
  float b1_1 = k1 < 100 ? t11 : 0.00000000;
  float t12 = b0.v[((2)*100+min(k1, 99))];
  float t13 = t12;
  float b1_2 = k1 < 100 ? t13 : 0.00000000;
  float t14 = b0.v[((3)*100+min(k1, 99))];
  float t15 = t14;
  float b1_3 = k1 < 100 ? t15 : 0.00000000;
  int k2 = l + 64;
  float t16 = b0.v[min(k2, 99)];
  float t17 = t16;
  float b2_0 = k2 < 100 ? t17 : 0.00000000;
  float t18 = b0.v[((1)*100+min(k2, 99))];
  float t19 = t18;
  float b2_1 = k2 < 100 ? t19 : 0.00000000;
  float t20 = b0.v[((2)*100+min(k2, 99))];
  float t21 = t20;
  float b2_2 = k2 < 100 ? t21 : 0.00000000;
  float t22 = b0.v[((3)*100+min(k2, 99))];
  float t23 = t22;
  float b2_3 = k2 < 100 ? t23 : 0.00000000;
  int k3 = l + 96;
  float t24 = b0.v[min(k3, 99)];
  float t25 = t24;
  float b3_0 = k3 < 100 ? t25 : 0.00000000;
  float t26 = b0.v[((1)*100+min(k3, 99))];
  float t27 = t26;
  float b3_1 = k3 < 100 ? t27 : 0.00000000;
  float t28 = b0.v[((2)*100+min(k3, 99))];
  float t29 = t28;
  float b3_2 = k3 < 100 ? t29 : 0.00000000;
  float t30 = b0.v[((3)*100+min(k3, 99))];
  float t31 = t30;
  float b3_3 = k3 < 100 ? t31 : 0.00000000;
  float g0_0_0 = 0.00000000; float g0_0_1 = 0.00000000; float g0_0_2 = 0.00000000; float g0_0_3 = 0.00000000; float g0_1_0 = 0.00000000; float g0_1_1 = 0.00000000; float g0_1_2 = 0.00000000; float g0_1_3 = 0.00000000; float g0_2_0 = 0.00000000; float g0_2_1 = 0.00000000; float g0_2_2 = 0.00000000; float g0_2_3 = 0.00000000; float g0_3_0 = 0.00000000; float g0_3_1 = 0.00000000; float g0_3_2 = 0.00000000; float g0_3_3 = 0.00000000;
  float red0_0 = 0.00000000;
  int rowBegin = gid * 224; int rowEnd = min(100000, rowBegin + 224);
  for (int n0 = rowBegin; n0 < rowEnd; n0 += 32) {
    int base = n0 + w * 8;
    int etaHalf = (((n0 - rowBegin) / 32) & 1) * 128;
    float t32 = b1.v[((min(base + 0, 99999))*100+min(k0, 99))];
    float x0_0 = t32;
    float t33 = b1.v[((min(base + 0, 99999))*100+min(k1, 99))];
    float x0_1 = t33;
    float t34 = b1.v[((min(base + 0, 99999))*100+min(k2, 99))];
    float x0_2 = t34;
    float t35 = b1.v[((min(base + 0, 99999))*100+min(k3, 99))];
    float x0_3 = t35;
    float t36 = b1.v[((min(base + 1, 99999))*100+min(k0, 99))];
    float x1_0 = t36;
    float t37 = b1.v[((min(base + 1, 99999))*100+min(k1, 99))];
    float x1_1 = t37;
    float t38 = b1.v[((min(base + 1, 99999))*100+min(k2, 99))];
    float x1_2 = t38;
    float t39 = b1.v[((min(base + 1, 99999))*100+min(k3, 99))];
    float x1_3 = t39;
    float t40 = b1.v[((min(base + 2, 99999))*100+min(k0, 99))];
    float x2_0 = t40;
    float t41 = b1.v[((min(base + 2, 99999))*100+min(k1, 99))];
    float x2_1 = t41;
    float t42 = b1.v[((min(base + 2, 99999))*100+min(k2, 99))];
    float x2_2 = t42;
    float t43 = b1.v[((min(base + 2, 99999))*100+min(k3, 99))];
    float x2_3 = t43;
    float t44 = b1.v[((min(base + 3, 99999))*100+min(k0, 99))];
    float x3_0 = t44;
    float t45 = b1.v[((min(base + 3, 99999))*100+min(k1, 99))];
    float x3_1 = t45;
    float t46 = b1.v[((min(base + 3, 99999))*100+min(k2, 99))];
    float x3_2 = t46;
    float t47 = b1.v[((min(base + 3, 99999))*100+min(k3, 99))];
    float x3_3 = t47;
    float t48 = b1.v[((min(base + 4, 99999))*100+min(k0, 99))];
    float x4_0 = t48;
    float t49 = b1.v[((min(base + 4, 99999))*100+min(k1, 99))];
    float x4_1 = t49;
    float t50 = b1.v[((min(base + 4, 99999))*100+min(k2, 99))];
    float x4_2 = t50;
    float t51 = b1.v[((min(base + 4, 99999))*100+min(k3, 99))];
    float x4_3 = t51;
    float t52 = b1.v[((min(base + 5, 99999))*100+min(k0, 99))];
    float x5_0 = t52;
    float t53 = b1.v[((min(base + 5, 99999))*100+min(k1, 99))];
    float x5_1 = t53;
    float t54 = b1.v[((min(base + 5, 99999))*100+min(k2, 99))];
    float x5_2 = t54;
    float t55 = b1.v[((min(base + 5, 99999))*100+min(k3, 99))];
    float x5_3 = t55;
    float t56 = b1.v[((min(base + 6, 99999))*100+min(k0, 99))];
    float x6_0 = t56;
    float t57 = b1.v[((min(base + 6, 99999))*100+min(k1, 99))];
    float x6_1 = t57;
    float t58 = b1.v[((min(base + 6, 99999))*100+min(k2, 99))];
    float x6_2 = t58;
    float t59 = b1.v[((min(base + 6, 99999))*100+min(k3, 99))];
    float x6_3 = t59;
    float t60 = b1.v[((min(base + 7, 99999))*100+min(k0, 99))];
    float x7_0 = t60;
    float t61 = b1.v[((min(base + 7, 99999))*100+min(k1, 99))];
    float x7_1 = t61;
    float t62 = b1.v[((min(base + 7, 99999))*100+min(k2, 99))];
    float x7_2 = t62;
    float t63 = b1.v[((min(base + 7, 99999))*100+min(k3, 99))];
    float x7_3 = t63;
    float e0_0 = x0_0 * b0_0 + x0_1 * b1_0 + x0_2 * b2_0 + x0_3 * b3_0; float e0_1 = x0_0 * b0_1 + x0_1 * b1_1 + x0_2 * b2_1 + x0_3 * b3_1; float e0_2 = x0_0 * b0_2 + x0_1 * b1_2 + x0_2 * b2_2 + x0_3 * b3_2; float e0_3 = x0_0 * b0_3 + x0_1 * b1_3 + x0_2 * b2_3 + x0_3 * b3_3; float e0_4 = x1_0 * b0_0 + x1_1 * b1_0 + x1_2 * b2_0 + x1_3 * b3_0; float e0_5 = x1_0 * b0_1 + x1_1 * b1_1 + x1_2 * b2_1 + x1_3 * b3_1; float e0_6 = x1_0 * b0_2 + x1_1 * b1_2 + x1_2 * b2_2 + x1_3 * b3_2; float e0_7 = x1_0 * b0_3 + x1_1 * b1_3 + x1_2 * b2_3 + x1_3 * b3_3; float e0_8 = x2_0 * b0_0 + x2_1 * b1_0 + x2_2 * b2_0 + x2_3 * b3_0; float e0_9 = x2_0 * b0_1 + x2_1 * b1_1 + x2_2 * b2_1 + x2_3 * b3_1; float e0_10 = x2_0 * b0_2 + x2_1 * b1_2 + x2_2 * b2_2 + x2_3 * b3_2; float e0_11 = x2_0 * b0_3 + x2_1 * b1_3 + x2_2 * b2_3 + x2_3 * b3_3; float e0_12 = x3_0 * b0_0 + x3_1 * b1_0 + x3_2 * b2_0 + x3_3 * b3_0; float e0_13 = x3_0 * b0_1 + x3_1 * b1_1 + x3_2 * b2_1 + x3_3 * b3_1; float e0_14 = x3_0 * b0_2 + x3_1 * b1_2 + x3_2 * b2_2 + x3_3 * b3_2; float e0_15 = x3_0 * b0_3 + x3_1 * b1_3 + x3_2 * b2_3 + x3_3 * b3_3; float e0_16 = x4_0 * b0_0 + x4_1 * b1_0 + x4_2 * b2_0 + x4_3 * b3_0; float e0_17 = x4_0 * b0_1 + x4_1 * b1_1 + x4_2 * b2_1 + x4_3 * b3_1; float e0_18 = x4_0 * b0_2 + x4_1 * b1_2 + x4_2 * b2_2 + x4_3 * b3_2; float e0_19 = x4_0 * b0_3 + x4_1 * b1_3 + x4_2 * b2_3 + x4_3 * b3_3; float e0_20 = x5_0 * b0_0 + x5_1 * b1_0 + x5_2 * b2_0 + x5_3 * b3_0; float e0_21 = x5_0 * b0_1 + x5_1 * b1_1 + x5_2 * b2_1 + x5_3 * b3_1; float e0_22 = x5_0 * b0_2 + x5_1 * b1_2 + x5_2 * b2_2 + x5_3 * b3_2; float e0_23 = x5_0 * b0_3 + x5_1 * b1_3 + x5_2 * b2_3 + x5_3 * b3_3; float e0_24 = x6_0 * b0_0 + x6_1 * b1_0 + x6_2 * b2_0 + x6_3 * b3_0; float e0_25 = x6_0 * b0_1 + x6_1 * b1_1 + x6_2 * b2_1 + x6_3 * b3_1; float e0_26 = x6_0 * b0_2 + x6_1 * b1_2 + x6_2 * b2_2 + x6_3 * b3_2; float e0_27 = x6_0 * b0_3 + x6_1 * b1_3 + x6_2 * b2_3 + x6_3 * b3_3; float e0_28 = x7_0 * b0_0 + x7_1 * b1_0 + x7_2 * b2_0 + x7_3 * b3_0; float e0_29 = x7_0 * b0_1 + x7_1 * b1_1 + x7_2 * b2_1 + x7_3 * b3_1; float e0_30 = x7_0 * b0_2 + x7_1 * b1_2 + x7_2 * b2_2 + x7_3 * b3_2; float e0_31 = x7_0 * b0_3 + x7_1 * b1_3 + x7_2 * b2_3 + x7_3 * b3_3;
    bool up0 = (l & 16) != 0;
    float e1_0 = (up0 ? e0_16 : e0_0) + subgroupShuffleXor(up0 ? e0_0 : e0_16, 16);
    float e1_1 = (up0 ? e0_17 : e0_1) + subgroupShuffleXor(up0 ? e0_1 : e0_17, 16);
    float e1_2 = (up0 ? e0_18 : e0_2) + subgroupShuffleXor(up0 ? e0_2 : e0_18, 16);
    float e1_3 = (up0 ? e0_19 : e0_3) + subgroupShuffleXor(up0 ? e0_3 : e0_19, 16);
    float e1_4 = (up0 ? e0_20 : e0_4) + subgroupShuffleXor(up0 ? e0_4 : e0_20, 16);
    float e1_5 = (up0 ? e0_21 : e0_5) + subgroupShuffleXor(up0 ? e0_5 : e0_21, 16);
    float e1_6 = (up0 ? e0_22 : e0_6) + subgroupShuffleXor(up0 ? e0_6 : e0_22, 16);
    float e1_7 = (up0 ? e0_23 : e0_7) + subgroupShuffleXor(up0 ? e0_7 : e0_23, 16);
    float e1_8 = (up0 ? e0_24 : e0_8) + subgroupShuffleXor(up0 ? e0_8 : e0_24, 16);
    float e1_9 = (up0 ? e0_25 : e0_9) + subgroupShuffleXor(up0 ? e0_9 : e0_25, 16);
    float e1_10 = (up0 ? e0_26 : e0_10) + subgroupShuffleXor(up0 ? e0_10 : e0_26, 16);
    float e1_11 = (up0 ? e0_27 : e0_11) + subgroupShuffleXor(up0 ? e0_11 : e0_27, 16);
    float e1_12 = (up0 ? e0_28 : e0_12) + subgroupShuffleXor(up0 ? e0_12 : e0_28, 16);
    float e1_13 = (up0 ? e0_29 : e0_13) + subgroupShuffleXor(up0 ? e0_13 : e0_29, 16);
    float e1_14 = (up0 ? e0_30 : e0_14) + subgroupShuffleXor(up0 ? e0_14 : e0_30, 16);
    float e1_15 = (up0 ? e0_31 : e0_15) + subgroupShuffleXor(up0 ? e0_15 : e0_31, 16);
    bool up1 = (l & 8) != 0;
    float e2_0 = (up1 ? e1_8 : e1_0) + subgroupShuffleXor(up1 ? e1_0 : e1_8, 8);
    float e2_1 = (up1 ? e1_9 : e1_1) + subgroupShuffleXor(up1 ? e1_1 : e1_9, 8);
    float e2_2 = (up1 ? e1_10 : e1_2) + subgroupShuffleXor(up1 ? e1_2 : e1_10, 8);
    float e2_3 = (up1 ? e1_11 : e1_3) + subgroupShuffleXor(up1 ? e1_3 : e1_11, 8);
    float e2_4 = (up1 ? e1_12 : e1_4) + subgroupShuffleXor(up1 ? e1_4 : e1_12, 8);
    float e2_5 = (up1 ? e1_13 : e1_5) + subgroupShuffleXor(up1 ? e1_5 : e1_13, 8);
    float e2_6 = (up1 ? e1_14 : e1_6) + subgroupShuffleXor(up1 ? e1_6 : e1_14, 8);
    float e2_7 = (up1 ? e1_15 : e1_7) + subgroupShuffleXor(up1 ? e1_7 : e1_15, 8);
    bool up2 = (l & 4) != 0;
    float e3_0 = (up2 ? e2_4 : e2_0) + subgroupShuffleXor(up2 ? e2_0 : e2_4, 4);
    float e3_1 = (up2 ? e2_5 : e2_1) + subgroupShuffleXor(up2 ? e2_1 : e2_5, 4);
    float e3_2 = (up2 ? e2_6 : e2_2) + subgroupShuffleXor(up2 ? e2_2 : e2_6, 4);
    float e3_3 = (up2 ? e2_7 : e2_3) + subgroupShuffleXor(up2 ? e2_3 : e2_7, 4);
    bool up3 = (l & 2) != 0;
    float e4_0 = (up3 ? e3_2 : e3_0) + subgroupShuffleXor(up3 ? e3_0 : e3_2, 2);
    float e4_1 = (up3 ? e3_3 : e3_1) + subgroupShuffleXor(up3 ? e3_1 : e3_3, 2);
    bool up4 = (l & 1) != 0;
    float e5_0 = (up4 ? e4_1 : e4_0) + subgroupShuffleXor(up4 ? e4_0 : e4_1, 1);
     {
      int q = l * 1 + 0;
      ppl_eta[etaHalf + w * 32 + q] = e5_0;
    }
    subgroupBarrier();
    float rv0_0 = 0.00000000;
    if (l + 0 < 32) {
      int i = (l + 0) / 4; int e = l + 0 - i * 4;
      float v0 = 0.00000000;
      if (base + i < rowEnd) {
        float t64 = b2.v[(base + i)];
        float t65 = ppl_eta[etaHalf + w * 32 + (((base + i)) - base) * 4 + e];
        float t66 = t65;
        float t67 = (t64*t66);
        bool t68 = (t66>0.00000000);
        float t69 = abs(t66);
        float t70 = (-t69);
        float t71 = ppl_exp(t70);
        float t72 = ppl_log1p(t71);
        float t73 = (t66+t72);
        float t74 = (t68 ? t73 : t72);
        float t75 = (t67-t74);
        red0_0 += t75;
        bool t76 = (t66>=0.00000000);
        float t77 = (t76 ? 1.00000000 : t71);
        float t78 = (1.00000000+t71);
        float t79 = (t77/t78);
        float t80 = ((-1.00000000)*t79);
        float t81 = (t80+t64);
        float t82 = t81;
        v0 = t82;
      }
      rv0_0 = v0;
    }
    { float v = subgroupShuffle(rv0_0, 0); g0_0_0 += x0_0 * v; g0_1_0 += x0_1 * v; g0_2_0 += x0_2 * v; g0_3_0 += x0_3 * v; }
    { float v = subgroupShuffle(rv0_0, 1); g0_0_1 += x0_0 * v; g0_1_1 += x0_1 * v; g0_2_1 += x0_2 * v; g0_3_1 += x0_3 * v; }
    { float v = subgroupShuffle(rv0_0, 2); g0_0_2 += x0_0 * v; g0_1_2 += x0_1 * v; g0_2_2 += x0_2 * v; g0_3_2 += x0_3 * v; }
    { float v = subgroupShuffle(rv0_0, 3); g0_0_3 += x0_0 * v; g0_1_3 += x0_1 * v; g0_2_3 += x0_2 * v; g0_3_3 += x0_3 * v; }
    { float v = subgroupShuffle(rv0_0, 4); g0_0_0 += x1_0 * v; g0_1_0 += x1_1 * v; g0_2_0 += x1_2 * v; g0_3_0 += x1_3 * v; }
    { float v = subgroupShuffle(rv0_0, 5); g0_0_1 += x1_0 * v; g0_1_1 += x1_1 * v; g0_2_1 += x1_2 * v; g0_3_1 += x1_3 * v; }
    { float v = subgroupShuffle(rv0_0, 6); g0_0_2 += x1_0 * v; g0_1_2 += x1_1 * v; g0_2_2 += x1_2 * v; g0_3_2 += x1_3 * v; }
    { float v = subgroupShuffle(rv0_0, 7); g0_0_3 += x1_0 * v; g0_1_3 += x1_1 * v; g0_2_3 += x1_2 * v; g0_3_3 += x1_3 * v; }
    { float v = subgroupShuffle(rv0_0, 8); g0_0_0 += x2_0 * v; g0_1_0 += x2_1 * v; g0_2_0 += x2_2 * v; g0_3_0 += x2_3 * v; }
    { float v = subgroupShuffle(rv0_0, 9); g0_0_1 += x2_0 * v; g0_1_1 += x2_1 * v; g0_2_1 += x2_2 * v; g0_3_1 += x2_3 * v; }
    { float v = subgroupShuffle(rv0_0, 10); g0_0_2 += x2_0 * v; g0_1_2 += x2_1 * v; g0_2_2 += x2_2 * v; g0_3_2 += x2_3 * v; }
    { float v = subgroupShuffle(rv0_0, 11); g0_0_3 += x2_0 * v; g0_1_3 += x2_1 * v; g0_2_3 += x2_2 * v; g0_3_3 += x2_3 * v; }
    { float v = subgroupShuffle(rv0_0, 12); g0_0_0 += x3_0 * v; g0_1_0 += x3_1 * v; g0_2_0 += x3_2 * v; g0_3_0 += x3_3 * v; }
    { float v = subgroupShuffle(rv0_0, 13); g0_0_1 += x3_0 * v; g0_1_1 += x3_1 * v; g0_2_1 += x3_2 * v; g0_3_1 += x3_3 * v; }
    { float v = subgroupShuffle(rv0_0, 14); g0_0_2 += x3_0 * v; g0_1_2 += x3_1 * v; g0_2_2 += x3_2 * v; g0_3_2 += x3_3 * v; }
    { float v = subgroupShuffle(rv0_0, 15); g0_0_3 += x3_0 * v; g0_1_3 += x3_1 * v; g0_2_3 += x3_2 * v; g0_3_3 += x3_3 * v; }
    { float v = subgroupShuffle(rv0_0, 16); g0_0_0 += x4_0 * v; g0_1_0 += x4_1 * v; g0_2_0 += x4_2 * v; g0_3_0 += x4_3 * v; }
    { float v = subgroupShuffle(rv0_0, 17); g0_0_1 += x4_0 * v; g0_1_1 += x4_1 * v; g0_2_1 += x4_2 * v; g0_3_1 += x4_3 * v; }
    { float v = subgroupShuffle(rv0_0, 18); g0_0_2 += x4_0 * v; g0_1_2 += x4_1 * v; g0_2_2 += x4_2 * v; g0_3_2 += x4_3 * v; }
    { float v = subgroupShuffle(rv0_0, 19); g0_0_3 += x4_0 * v; g0_1_3 += x4_1 * v; g0_2_3 += x4_2 * v; g0_3_3 += x4_3 * v; }
    { float v = subgroupShuffle(rv0_0, 20); g0_0_0 += x5_0 * v; g0_1_0 += x5_1 * v; g0_2_0 += x5_2 * v; g0_3_0 += x5_3 * v; }
    { float v = subgroupShuffle(rv0_0, 21); g0_0_1 += x5_0 * v; g0_1_1 += x5_1 * v; g0_2_1 += x5_2 * v; g0_3_1 += x5_3 * v; }
    { float v = subgroupShuffle(rv0_0, 22); g0_0_2 += x5_0 * v; g0_1_2 += x5_1 * v; g0_2_2 += x5_2 * v; g0_3_2 += x5_3 * v; }
    { float v = subgroupShuffle(rv0_0, 23); g0_0_3 += x5_0 * v; g0_1_3 += x5_1 * v; g0_2_3 += x5_2 * v; g0_3_3 += x5_3 * v; }
    { float v = subgroupShuffle(rv0_0, 24); g0_0_0 += x6_0 * v; g0_1_0 += x6_1 * v; g0_2_0 += x6_2 * v; g0_3_0 += x6_3 * v; }
    { float v = subgroupShuffle(rv0_0, 25); g0_0_1 += x6_0 * v; g0_1_1 += x6_1 * v; g0_2_1 += x6_2 * v; g0_3_1 += x6_3 * v; }
    { float v = subgroupShuffle(rv0_0, 26); g0_0_2 += x6_0 * v; g0_1_2 += x6_1 * v; g0_2_2 += x6_2 * v; g0_3_2 += x6_3 * v; }
    { float v = subgroupShuffle(rv0_0, 27); g0_0_3 += x6_0 * v; g0_1_3 += x6_1 * v; g0_2_3 += x6_2 * v; g0_3_3 += x6_3 * v; }
    { float v = subgroupShuffle(rv0_0, 28); g0_0_0 += x7_0 * v; g0_1_0 += x7_1 * v; g0_2_0 += x7_2 * v; g0_3_0 += x7_3 * v; }
    { float v = subgroupShuffle(rv0_0, 29); g0_0_1 += x7_0 * v; g0_1_1 += x7_1 * v; g0_2_1 += x7_2 * v; g0_3_1 += x7_3 * v; }
    { float v = subgroupShuffle(rv0_0, 30); g0_0_2 += x7_0 * v; g0_1_2 += x7_1 * v; g0_2_2 += x7_2 * v; g0_3_2 += x7_3 * v; }
    { float v = subgroupShuffle(rv0_0, 31); g0_0_3 += x7_0 * v; g0_1_3 += x7_1 * v; g0_2_3 += x7_2 * v; g0_3_3 += x7_3 * v; }
  }
  memoryBarrierShared(); barrier();
  if (k0 < 100) { ppl_ps[(w * 100 + k0) * 4 + 0] = g0_0_0; ppl_ps[(w * 100 + k0) * 4 + 1] = g0_0_1; ppl_ps[(w * 100 + k0) * 4 + 2] = g0_0_2; ppl_ps[(w * 100 + k0) * 4 + 3] = g0_0_3; }
  if (k1 < 100) { ppl_ps[(w * 100 + k1) * 4 + 0] = g0_1_0; ppl_ps[(w * 100 + k1) * 4 + 1] = g0_1_1; ppl_ps[(w * 100 + k1) * 4 + 2] = g0_1_2; ppl_ps[(w * 100 + k1) * 4 + 3] = g0_1_3; }
  if (k2 < 100) { ppl_ps[(w * 100 + k2) * 4 + 0] = g0_2_0; ppl_ps[(w * 100 + k2) * 4 + 1] = g0_2_1; ppl_ps[(w * 100 + k2) * 4 + 2] = g0_2_2; ppl_ps[(w * 100 + k2) * 4 + 3] = g0_2_3; }
  if (k3 < 100) { ppl_ps[(w * 100 + k3) * 4 + 0] = g0_3_0; ppl_ps[(w * 100 + k3) * 4 + 1] = g0_3_1; ppl_ps[(w * 100 + k3) * 4 + 2] = g0_3_2; ppl_ps[(w * 100 + k3) * 4 + 3] = g0_3_3; }
  memoryBarrierShared(); barrier();
  for (int e = t; e < 400; e += 128) {
    float s = 0.00000000; for (int q = 0; q < 4; q++) s += ppl_ps[q * 400 + e];
    b3.v[gid * 400 + e] = s;
  }
  memoryBarrierShared(); barrier();
  ppl_ps[t * 1 + 0] = red0_0;
  memoryBarrierShared(); barrier();
  for (int e = t; e < 4; e += 128) {
    float s = 0.00000000;
    for (int q = 0; q < 4; q++) for (int pr = e; pr < 32; pr += 4) s += ppl_ps[(q * 32 + pr % 32) * 1 + pr / 32];
    b4.v[gid * 4 + e] = s;
  }
}

// ----
#version 450
// kernel for reduce_sum float[4] (node 904ad7c3383d8a32ccd37133): sum of 447 k-slices, 32 threads an output
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0; // scratch: 447 partial products per output
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
shared float ppl_lanes[256];
// (math prelude: f32, bool)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int t = int(gl_LocalInvocationIndex); int j = t / 8; int o = t - j * 8; int u = gid * 8 + o;
  float acc = 0.00000000;
  if (u < 4) { for (int p = j; p < 447; p += 32) acc += b0.v[p * 4 + u]; }
  ppl_lanes[t] = acc;
  memoryBarrierShared(); barrier();
  for (int w = 16; w > 0; w >>= 1) { if (j < w) ppl_lanes[t] += ppl_lanes[t + w * 8]; memoryBarrierShared(); barrier(); }
  if (j == 0 && u < 4) { b1.v[u] = ppl_lanes[t]; }
}

// ----
#version 450
// kernel for matmul float[100,4] (node 023d945e018a9371709f9173): sum of 447 k-slices, 32 threads an output
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0; // scratch: 447 partial products per output
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
shared float ppl_lanes[256];
// (math prelude: f32, bool)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 50) return;
  int t = int(gl_LocalInvocationIndex); int j = t / 8; int o = t - j * 8; int u = gid * 8 + o;
  float acc = 0.00000000;
  if (u < 400) { for (int p = j; p < 447; p += 32) acc += b0.v[p * 400 + u]; }
  ppl_lanes[t] = acc;
  memoryBarrierShared(); barrier();
  for (int w = 16; w > 0; w >>= 1) { if (j < w) ppl_lanes[t] += ppl_lanes[t + w * 8]; memoryBarrierShared(); barrier(); }
  if (j == 0 && u < 400) { b1.v[u] = ppl_lanes[t]; }
}
