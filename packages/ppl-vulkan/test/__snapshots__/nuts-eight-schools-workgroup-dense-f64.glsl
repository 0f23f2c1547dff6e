#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#define NREAL double
#define SFX(name) name##_f64
#define D 10
#define MAXD 10
#define CHAINS 4
#define CHAIN_ID gl_WorkGroupID.x
#define LEADER (gl_LocalInvocationID.x == 0u)
layout(local_size_x = 32) in;
#define NSTATS 6u
#define STAT_ACCEPT_STAT 0u
#define STAT_TREE_DEPTH 1u
#define STAT_N_LEAPFROG 2u
#define STAT_DIVERGENT 3u
#define STAT_ENERGY 4u
#define STAT_LP 5u
#define WRITE_STATS(slot) { bstats.v[(slot) * NSTATS + STAT_ACCEPT_STAT] = acceptStat; bstats.v[(slot) * NSTATS + STAT_TREE_DEPTH] = NREAL(depth); bstats.v[(slot) * NSTATS + STAT_N_LEAPFROG] = NREAL(nLeap); bstats.v[(slot) * NSTATS + STAT_DIVERGENT] = (divergent ? NREAL(1) : NREAL(0)); bstats.v[(slot) * NSTATS + STAT_ENERGY] = sampleEnergy; bstats.v[(slot) * NSTATS + STAT_LP] = sampleLp; }
#define DA_STATE(c) (CHAINS + 4 * int(c))
#define SETTINGS_BASE (5 * CHAINS)
#define SETTING_DELTA (SETTINGS_BASE + 0)
#define SETTING_GAMMA (SETTINGS_BASE + 1)
#define SETTING_KAPPA (SETTINGS_BASE + 2)
#define SETTING_T0 (SETTINGS_BASE + 3)
#define SETTING_MAX_DELTA_H (SETTINGS_BASE + 4)
#define PURPOSE_MOMENTUM 2u
#define PURPOSE_TREE 3u
#define PURPOSE_LEAF 4u
#define NRS 8
#define NIS 7
#define IS_PHASE 0
#define IS_K 1
#define IS_N_LEAP 2
#define IS_DEPTH 3
#define IS_LEAF 4
#define IS_FORWARD 5
#define IS_DIVERGENT 6
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// (shaders/prelude, float and double: left out of the golden)
#define OWN ((D + WG - 1) / WG)
#define FOR_OWNED(s, i) for (int s = 0, i = int(LID); s < OWN && i < D; s++, i += WG)
layout(std430, set = 0, binding = 8) restrict buffer Scratch { double v[]; } bs;
#define WG 32
#define LID gl_LocalInvocationID.x
shared double ppl_sq[D];
shared double ppl_scratch[25];
#define PPL_SCR(i) ppl_scratch[i]
#define PPL_NODE_BARRIER() memoryBarrierShared(); barrier()
#define PPL_SUMS 6
shared double ppl_wsum[32];
double ppl_wg_sum(double x) {
  double s = subgroupAdd(x);
  if (subgroupElect()) ppl_wsum[gl_SubgroupID] = s;
  barrier();
  double r = ppl_wsum[0];
  for (uint i = 1u; i < gl_NumSubgroups; i++) r += ppl_wsum[i];
  barrier(); return r;
}
#define REDUCE_SUM(x) ppl_wg_sum(x)
shared double ppl_wsums[192];
void ppl_wg_sums(inout double v[PPL_SUMS], int n) {
  for (int j = 0; j < n; j++) { double s = subgroupAdd(v[j]); if (subgroupElect()) ppl_wsums[gl_SubgroupID * PPL_SUMS + j] = s; }
  barrier();
  for (int j = 0; j < n; j++) { double r = ppl_wsums[j]; for (uint i = 1u; i < gl_NumSubgroups; i++) r += ppl_wsums[i * PPL_SUMS + j]; v[j] = r; }
  barrier();
}
#define REDUCE_SUMS(v, n) ppl_wg_sums(v, n)
#define LOGP() { FOR_OWNED(s, i) ppl_sq[i] = q[s]; barrier(); lp = ppl_logp_grad(); FOR_OWNED(s, i) g[s] = ppl_grad_at(i); barrier(); }
layout(std430, set = 0, binding = 9) readonly restrict buffer Data0 { double v[]; } bd0;
layout(std430, set = 0, binding = 10) readonly restrict buffer Data1 { double v[]; } bd1;
double ppl_logp_grad() {
  for (int u0 = int(gl_LocalInvocationID.x); u0 < 1; u0 += 32) {
    double t1 = ppl_sq[1];
    double t2 = t1;
    double t3 = t2;
    PPL_SCR(0 + u0) = ppl_exp(t3);
  }
  PPL_NODE_BARRIER();
  for (int u4 = int(gl_LocalInvocationID.x); u4 < 1; u4 += 32) {
    double acc5 = 0.0000000000000000LF;
    for (int k6 = 0; k6 < 8; k6++) {
      double t7 = ppl_sq[(2+k6)];
      double t8 = t7;
      double t9 = (t8*t8);
      double t10 = (0.50000000000000000LF*t9);
      double t11 = (-t10);
      double t12 = (t11-0.91893853320467267LF);
      acc5 = acc5 + t12;
    }
    PPL_SCR(1 + u4) = acc5;
  }
  PPL_NODE_BARRIER();
  for (int u13 = int(gl_LocalInvocationID.x); u13 < 1; u13 += 32) {
    double acc14 = 0.0000000000000000LF;
    double t17 = ppl_sq[0];
    double t18 = t17;
    double t19 = t18;
    double t20 = PPL_SCR(0 + 0);
    for (int k15 = 0; k15 < 8; k15++) {
      double t16 = bd0.v[k15];
      double t21 = ppl_sq[(2+k15)];
      double t22 = t21;
      double t23 = (t20*t22);
      double t24 = (t19+t23);
      double t25 = (t16-t24);
      double t26 = bd1.v[k15];
      double t27 = (t25/t26);
      double t28 = (t27*t27);
      double t29 = (0.50000000000000000LF*t28);
      double t30 = ppl_log(t26);
      double t31 = (t29+t30);
      double t32 = (-t31);
      double t33 = (t32-0.91893853320467267LF);
      acc14 = acc14 + t33;
    }
    PPL_SCR(2 + u13) = acc14;
  }
  PPL_NODE_BARRIER();
  for (int u34 = int(gl_LocalInvocationID.x); u34 < 1; u34 += 32) {
    double t35 = ppl_sq[0];
    double t36 = t35;
    double t37 = t36;
    double t38 = (t37/5.0000000000000000LF);
    double t39 = (t38*t38);
    double t40 = (0.50000000000000000LF*t39);
    double t41 = (t40+1.6094379124341003LF);
    double t42 = (-t41);
    double t43 = (t42-0.91893853320467267LF);
    double t44 = ppl_sq[1];
    double t45 = t44;
    double t46 = t45;
    double t47 = (t43+t46);
    double t48 = PPL_SCR(0 + 0);
    bool t49 = (t48>=0.0000000000000000LF);
    double t50 = (t48/5.0000000000000000LF);
    double t51 = (t50*t50);
    double t52 = ppl_log1p(t51);
    double t53 = ((-2.7541677982835004LF)-t52);
    double t54 = (t53+0.69314718055994529LF);
    double t55 = (t49 ? t54 : packDouble2x32(uvec2(0x0u, 0xfff00000u)));
    double t56 = (t47+t55);
    double t57 = PPL_SCR(1 + 0);
    double t58 = (t56+t57);
    double t59 = PPL_SCR(2 + 0);
    PPL_SCR(3 + u34) = (t58+t59);
  }
  PPL_NODE_BARRIER();
  for (int u60 = int(gl_LocalInvocationID.x); u60 < 8; u60 += 32) {
    double t61 = bd0.v[u60];
    double t62 = ppl_sq[0];
    double t63 = t62;
    double t64 = t63;
    double t65 = PPL_SCR(0 + 0);
    double t66 = ppl_sq[(2+u60)];
    double t67 = t66;
    double t68 = (t65*t67);
    double t69 = (t64+t68);
    double t70 = (t61-t69);
    double t71 = bd1.v[u60];
    double t72 = (t70/t71);
    double t73 = (t72*2.0000000000000000LF);
    double t74 = ((-0.50000000000000000LF)*t73);
    double t75 = (t74/t71);
    PPL_SCR(4 + u60) = (-t75);
  }
  PPL_NODE_BARRIER();
  for (int u76 = int(gl_LocalInvocationID.x); u76 < 1; u76 += 32) {
    double acc77 = 0.0000000000000000LF;
    for (int k78 = 0; k78 < 8; k78++) {
      double t79 = PPL_SCR(4 + k78);
      double t80 = ppl_sq[(2+k78)];
      double t81 = t80;
      double t82 = (t79*t81);
      acc77 = acc77 + t82;
    }
    PPL_SCR(12 + u76) = acc77;
  }
  PPL_NODE_BARRIER();
  for (int u83 = int(gl_LocalInvocationID.x); u83 < 1; u83 += 32) {
    double t84 = PPL_SCR(12 + 0);
    double t85 = PPL_SCR(0 + 0);
    bool t86 = (t85>=0.0000000000000000LF);
    double t87 = (t86 ? 1.0000000000000000LF : 0.0000000000000000LF);
    double t88 = (-t87);
    double t89 = (t85/5.0000000000000000LF);
    double t90 = (t89*t89);
    double t91 = (t90+1.0000000000000000LF);
    double t92 = (t88/t91);
    double t93 = (t89*2.0000000000000000LF);
    double t94 = (t92*t93);
    double t95 = (t94/5.0000000000000000LF);
    double t96 = (t84+t95);
    double t97 = (t96*t85);
    double t98 = t97;
    PPL_SCR(13 + u83) = (t98+1.0000000000000000LF);
  }
  PPL_NODE_BARRIER();
  for (int u99 = int(gl_LocalInvocationID.x); u99 < 1; u99 += 32) {
    double acc100 = 0.0000000000000000LF;
    for (int k101 = 0; k101 < 8; k101++) {
      double t102 = PPL_SCR(4 + k101);
      acc100 = acc100 + t102;
    }
    PPL_SCR(14 + u99) = acc100;
  }
  PPL_NODE_BARRIER();
  for (int u103 = int(gl_LocalInvocationID.x); u103 < 10; u103 += 32) {
    double t104 = PPL_SCR(4 + clamp((u103-2), 0, 7));
    double t105 = PPL_SCR(0 + 0);
    double t106 = (t104*t105);
    double t107 = ppl_sq[(2+clamp((u103-2), 0, 7))];
    double t108 = t107;
    double t109 = (t108*2.0000000000000000LF);
    double t110 = ((-0.50000000000000000LF)*t109);
    double t111 = (t106+t110);
    double t112 = (((u103-2) >= 0 && (u103-2) < 8) ? t111 : 0.0000000000000000LF);
    double t113 = PPL_SCR(13 + 0);
    double t114 = (((u103-1) >= 0 && (u103-1) < 1) ? t113 : 0.0000000000000000LF);
    double t115 = PPL_SCR(14 + 0);
    double t116 = ppl_sq[0];
    double t117 = t116;
    double t118 = t117;
    double t119 = (t118/5.0000000000000000LF);
    double t120 = (t119*2.0000000000000000LF);
    double t121 = ((-0.50000000000000000LF)*t120);
    double t122 = (t121/5.0000000000000000LF);
    double t123 = (t115+t122);
    double t124 = t123;
    double t125 = ((u103 >= 0 && u103 < 1) ? t124 : 0.0000000000000000LF);
    double t126 = (t114+t125);
    PPL_SCR(15 + u103) = (t112+t126);
  }
  PPL_NODE_BARRIER();
  double t127 = PPL_SCR(3 + 0);
  return double(t127);
}
double ppl_grad_at(int i) {
  double t128 = PPL_SCR(15 + i);
  return double(t128);
}
#define DENSE_METRIC
shared NREAL ppl_vec[D];
#define GATHER(v) { FOR_OWNED(s_, i_) ppl_vec[i_] = v[s_]; barrier(); }
#define GATHERED(v, j) ppl_vec[j]
#define GATHER_DONE() barrier()
// The transition's state, declared from packages/ppl-vulkan/src/nuts-layout.ts.
NREAL q[OWN], p[OWN], propQ[OWN], propG[OWN], t_rho[OWN], t_firstP[OWN], t_firstSharp[OWN], t_prevP[OWN], t_prevSharp[OWN], qPlus[OWN], pPlus[OWN], gPlus[OWN], sharpPlus[OWN], qMinus[OWN], pMinus[OWN], gMinus[OWN], sharpMinus[OWN], rho[OWN], sampleQ[OWN], sampleG[OWN];
NREAL t_startSharp[MAXD][OWN], t_startPrefix[MAXD][OWN], t_midPrefix[MAXD][OWN], t_midP[MAXD][OWN], t_midSharp[MAXD][OWN], t_midPrevP[MAXD][OWN], t_midPrevSharp[MAXD][OWN];
#define CP(t, k, s, i) t[k][s]
NREAL H0, sampleLp, sampleEnergy, propLp, propEnergy, logSumW, sumMetro, logSumWSub;
int nLeap, depth;
bool forward, divergent;
layout(std430, set = 0, binding = 0) buffer StateQ { NREAL v[]; } bq;
layout(std430, set = 0, binding = 1) buffer StateG { NREAL v[]; } bg;
layout(std430, set = 0, binding = 2) buffer StateLp { NREAL v[]; } blp;
layout(std430, set = 0, binding = 3) buffer StepSize { NREAL v[]; } beps;
layout(std430, set = 0, binding = 4) readonly buffer InvMetric { NREAL v[]; } bminv;
layout(std430, set = 0, binding = 5) readonly buffer Control { uint v[]; } bctrl;
layout(std430, set = 0, binding = 6) writeonly buffer Stats { NREAL v[]; } bstats;
layout(std430, set = 0, binding = 7) writeonly buffer Draws { NREAL v[]; } bdraws;
// (shaders/nuts/common.glsl: left out of the golden)
// (shaders/nuts/transition.glsl: left out of the golden)