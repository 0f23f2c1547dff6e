#version 450
#define NREAL float
#define SFX(name) name##_f32
#define D 4
#define MAXD 10
#define CHAINS 1024
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
#define WG 1
#define LID 0u
#define VS(c, j, i) (((j) * D + (i)) * CHAINS + int(c))
#define PPL_SUMS 6
#define REDUCE_SUM(x) (x)
#define REDUCE_SUMS(v, n)
#define NV (20 + 7 * MAXD)
#define SAVE_LEAF_STATE(c) { FOR_OWNED(s, i) { bvs.v[VS(c, 0, i)] = q[s]; bvs.v[VS(c, 1, i)] = p[s]; bvs.v[VS(c, 4, i)] = t_rho[s]; bvs.v[VS(c, 7, i)] = t_prevP[s]; bvs.v[VS(c, 8, i)] = t_prevSharp[s]; } }
#define LOAD_LEAF_STATE(c) { FOR_OWNED(s, i) { q[s] = bvs.v[VS(c, 0, i)]; p[s] = bvs.v[VS(c, 1, i)]; t_rho[s] = bvs.v[VS(c, 4, i)]; t_prevP[s] = bvs.v[VS(c, 7, i)]; t_prevSharp[s] = bvs.v[VS(c, 8, i)]; } }
#define SAVE_PROPOSAL_STATE(c) { FOR_OWNED(s, i) { bvs.v[VS(c, 2, i)] = propQ[s]; bvs.v[VS(c, 3, i)] = propG[s]; } }
#define LOAD_PROPOSAL_STATE(c) { FOR_OWNED(s, i) { propQ[s] = bvs.v[VS(c, 2, i)]; propG[s] = bvs.v[VS(c, 3, i)]; } }
#define SAVE_FIRST_STATE(c) { FOR_OWNED(s, i) { bvs.v[VS(c, 5, i)] = t_firstP[s]; bvs.v[VS(c, 6, i)] = t_firstSharp[s]; } }
#define LOAD_FIRST_STATE(c) { FOR_OWNED(s, i) { t_firstP[s] = bvs.v[VS(c, 5, i)]; t_firstSharp[s] = bvs.v[VS(c, 6, i)]; } }
#define SAVE_MERGE_STATE(c) { FOR_OWNED(s, i) { bvs.v[VS(c, 9, i)] = qPlus[s]; bvs.v[VS(c, 10, i)] = pPlus[s]; bvs.v[VS(c, 11, i)] = gPlus[s]; bvs.v[VS(c, 12, i)] = sharpPlus[s]; bvs.v[VS(c, 13, i)] = qMinus[s]; bvs.v[VS(c, 14, i)] = pMinus[s]; bvs.v[VS(c, 15, i)] = gMinus[s]; bvs.v[VS(c, 16, i)] = sharpMinus[s]; bvs.v[VS(c, 17, i)] = rho[s]; bvs.v[VS(c, 18, i)] = sampleQ[s]; bvs.v[VS(c, 19, i)] = sampleG[s]; } }
#define LOAD_MERGE_STATE(c) { FOR_OWNED(s, i) { qPlus[s] = bvs.v[VS(c, 9, i)]; pPlus[s] = bvs.v[VS(c, 10, i)]; gPlus[s] = bvs.v[VS(c, 11, i)]; sharpPlus[s] = bvs.v[VS(c, 12, i)]; qMinus[s] = bvs.v[VS(c, 13, i)]; pMinus[s] = bvs.v[VS(c, 14, i)]; gMinus[s] = bvs.v[VS(c, 15, i)]; sharpMinus[s] = bvs.v[VS(c, 16, i)]; rho[s] = bvs.v[VS(c, 17, i)]; sampleQ[s] = bvs.v[VS(c, 18, i)]; sampleG[s] = bvs.v[VS(c, 19, i)]; } }
#define LOAD_SCALARS(rb, ib) { H0 = brs.v[rb + 0]; sampleLp = brs.v[rb + 1]; sampleEnergy = brs.v[rb + 2]; propLp = brs.v[rb + 3]; propEnergy = brs.v[rb + 4]; logSumW = brs.v[rb + 5]; sumMetro = brs.v[rb + 6]; logSumWSub = brs.v[rb + 7]; nLeap = bis.v[ib + IS_N_LEAP]; depth = bis.v[ib + IS_DEPTH]; forward = bis.v[ib + IS_FORWARD] != 0; divergent = bis.v[ib + IS_DIVERGENT] != 0; }
#define SAVE_SCALARS(rb, ib) { brs.v[rb + 0] = H0; brs.v[rb + 1] = sampleLp; brs.v[rb + 2] = sampleEnergy; brs.v[rb + 3] = propLp; brs.v[rb + 4] = propEnergy; brs.v[rb + 5] = logSumW; brs.v[rb + 6] = sumMetro; brs.v[rb + 7] = logSumWSub; bis.v[ib + IS_N_LEAP] = nLeap; bis.v[ib + IS_DEPTH] = depth; bis.v[ib + IS_FORWARD] = forward ? 1 : 0; bis.v[ib + IS_DIVERGENT] = divergent ? 1 : 0; }
// The transition's state, declared from packages/ppl-vulkan/src/nuts-layout.ts.
NREAL q[OWN], p[OWN], propQ[OWN], propG[OWN], t_rho[OWN], t_firstP[OWN], t_firstSharp[OWN], t_prevP[OWN], t_prevSharp[OWN], qPlus[OWN], pPlus[OWN], gPlus[OWN], sharpPlus[OWN], qMinus[OWN], pMinus[OWN], gMinus[OWN], sharpMinus[OWN], rho[OWN], sampleQ[OWN], sampleG[OWN];
#define CP_SLOT_t_startSharp 20
#define CP_SLOT_t_startPrefix 21
#define CP_SLOT_t_midPrefix 22
#define CP_SLOT_t_midP 23
#define CP_SLOT_t_midSharp 24
#define CP_SLOT_t_midPrevP 25
#define CP_SLOT_t_midPrevSharp 26
#define CP(t, k, s, i) bvs.v[VS(CHAIN_ID, CP_SLOT_##t + 7 * (k), i)]
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
layout(std430, set = 0, binding = 8) buffer VectorState { NREAL v[]; } bvs;
layout(std430, set = 0, binding = 9) buffer RealState { NREAL v[]; } brs;
layout(std430, set = 0, binding = 10) buffer IntState { int v[]; } bis;
layout(std430, set = 0, binding = 11) buffer Done { uint v[]; } bdone;
layout(std430, set = 0, binding = 12) buffer GradientQ { NREAL v[]; } bgq;
layout(std430, set = 0, binding = 13) readonly buffer GradientLp { NREAL v[]; } bglp;
layout(std430, set = 0, binding = 14) readonly buffer GradientG { NREAL v[]; } bgg;
// (shaders/nuts/common.glsl: left out of the golden)
// (shaders/nuts/controller.glsl: left out of the golden)