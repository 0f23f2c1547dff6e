#version 450
#define NREAL float
#define SFX(name) name##_f32
#define D 10
#define MAXD 10
#define CHAINS 4
#define CHAIN_ID gl_GlobalInvocationID.x
#define LEADER true
layout(local_size_x = 64) in;
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
// (shaders/prelude, float: left out of the golden)
#define OWN ((D + WG - 1) / WG)
#define FOR_OWNED(s, i) for (int s = 0, i = int(LID); s < OWN && i < D; s++, i += WG)
layout(std430, set = 0, binding = 8) restrict buffer Scratch { float v[]; } bs;
#define PPL_SCRATCH_BASE (gl_GlobalInvocationID.x * 1u)
#define PPL_TSCR(i) bs.v[PPL_SCRATCH_BASE + (i)]
#define WG 1
#define LID 0u
#define PPL_SUMS 6
#define REDUCE_SUM(x) (x)
#define REDUCE_SUMS(v, n)
#define LOGP() lp = ppl_logp_grad(q, g)
layout(std430, set = 0, binding = 9) readonly restrict buffer Data0 { float v[]; } bd0;
layout(std430, set = 0, binding = 10) readonly restrict buffer Data1 { float v[]; } bd1;
float ppl_logp_grad(in float q[D], out float g[D]) {
  float m_l16[1];
  float m_l34[1];
  float m_l48[1];
  float m_l49[1];
  float m_l55[8];
  float m_l62[1];
  float m_l75[1];
  float m_l77[1];
  float m_l86[10];
   {
    float t0 = q[1];
    float t1 = t0;
    float t2 = t1;
    m_l16[0] = ppl_exp(t2);
  }
   {
    float acc3 = 0.00000000;
    for (int k4 = 0; k4 < 8; k4++) {
      float t5 = q[(2+k4)];
      float t6 = t5;
      float t7 = (t6*t6);
      float t8 = (0.500000000*t7);
      float t9 = (-t8);
      float t10 = (t9-0.918938518);
      acc3 = acc3 + t10;
    }
    m_l34[0] = acc3;
  }
   {
    float acc11 = 0.00000000;
    float t14 = q[0];
    float t15 = t14;
    float t16 = t15;
    float t17 = m_l16[0];
    for (int k12 = 0; k12 < 8; k12++) {
      float t13 = bd0.v[k12];
      float t18 = q[(2+k12)];
      float t19 = t18;
      float t20 = (t17*t19);
      float t21 = (t16+t20);
      float t22 = (t13-t21);
      float t23 = bd1.v[k12];
      float t24 = (t22/t23);
      float t25 = (t24*t24);
      float t26 = (0.500000000*t25);
      float t27 = ppl_log(t23);
      float t28 = (t26+t27);
      float t29 = (-t28);
      float t30 = (t29-0.918938518);
      acc11 = acc11 + t30;
    }
    m_l48[0] = acc11;
  }
   {
    float t31 = q[0];
    float t32 = t31;
    float t33 = t32;
    float t34 = (t33/5.00000000);
    float t35 = (t34*t34);
    float t36 = (0.500000000*t35);
    float t37 = (t36+1.60943794);
    float t38 = (-t37);
    float t39 = (t38-0.918938518);
    float t40 = q[1];
    float t41 = t40;
    float t42 = t41;
    float t43 = (t39+t42);
    float t44 = m_l16[0];
    bool t45 = (t44>=0.00000000);
    float t46 = (t44/5.00000000);
    float t47 = (t46*t46);
    float t48 = ppl_log1p(t47);
    float t49 = ((-2.75416780)-t48);
    float t50 = (t49+0.693147182);
    float t51 = (t45 ? t50 : uintBitsToFloat(0xff800000u));
    float t52 = (t43+t51);
    float t53 = m_l34[0];
    float t54 = (t52+t53);
    float t55 = m_l48[0];
    m_l49[0] = (t54+t55);
  }
  for (int u56 = 0; u56 < 8; u56++) {
    float t57 = bd0.v[u56];
    float t58 = q[0];
    float t59 = t58;
    float t60 = t59;
    float t61 = m_l16[0];
    float t62 = q[(2+u56)];
    float t63 = t62;
    float t64 = (t61*t63);
    float t65 = (t60+t64);
    float t66 = (t57-t65);
    float t67 = bd1.v[u56];
    float t68 = (t66/t67);
    float t69 = (t68*2.00000000);
    float t70 = ((-0.500000000)*t69);
    float t71 = (t70/t67);
    m_l55[u56] = (-t71);
  }
   {
    float acc72 = 0.00000000;
    for (int k73 = 0; k73 < 8; k73++) {
      float t74 = m_l55[k73];
      float t75 = q[(2+k73)];
      float t76 = t75;
      float t77 = (t74*t76);
      acc72 = acc72 + t77;
    }
    m_l62[0] = acc72;
  }
   {
    float t78 = m_l62[0];
    float t79 = m_l16[0];
    bool t80 = (t79>=0.00000000);
    float t81 = (t80 ? 1.00000000 : 0.00000000);
    float t82 = (-t81);
    float t83 = (t79/5.00000000);
    float t84 = (t83*t83);
    float t85 = (t84+1.00000000);
    float t86 = (t82/t85);
    float t87 = (t83*2.00000000);
    float t88 = (t86*t87);
    float t89 = (t88/5.00000000);
    float t90 = (t78+t89);
    float t91 = (t90*t79);
    float t92 = t91;
    m_l75[0] = (t92+1.00000000);
  }
   {
    float acc93 = 0.00000000;
    for (int k94 = 0; k94 < 8; k94++) {
      float t95 = m_l55[k94];
      acc93 = acc93 + t95;
    }
    m_l77[0] = acc93;
  }
  for (int u96 = 0; u96 < 10; u96++) {
    float t97 = m_l55[clamp((u96-2), 0, 7)];
    float t98 = m_l16[0];
    float t99 = (t97*t98);
    float t100 = q[(2+clamp((u96-2), 0, 7))];
    float t101 = t100;
    float t102 = (t101*2.00000000);
    float t103 = ((-0.500000000)*t102);
    float t104 = (t99+t103);
    float t105 = (((u96-2) >= 0 && (u96-2) < 8) ? t104 : 0.00000000);
    float t106 = m_l75[0];
    float t107 = (((u96-1) >= 0 && (u96-1) < 1) ? t106 : 0.00000000);
    float t108 = m_l77[0];
    float t109 = q[0];
    float t110 = t109;
    float t111 = t110;
    float t112 = (t111/5.00000000);
    float t113 = (t112*2.00000000);
    float t114 = ((-0.500000000)*t113);
    float t115 = (t114/5.00000000);
    float t116 = (t108+t115);
    float t117 = t116;
    float t118 = ((u96 >= 0 && u96 < 1) ? t117 : 0.00000000);
    float t119 = (t107+t118);
    m_l86[u96] = (t105+t119);
  }
  float t120 = m_l49[0];
  for (int gi121 = 0; gi121 < 10; gi121++) {
    float t122 = m_l86[gi121];
    g[gi121] = float(t122);
  }
  return float(t120);
}
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