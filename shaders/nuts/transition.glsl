// NUTS transition of one chain per thread (execution shape 1 of DESIGN.md) or per workgroup
// (shape 2: every thread of the workgroup runs the same control flow on identical private copies
// of the state, and the log density is computed by the whole workgroup together).
//
// A line-by-line port of packages/ppl/src/sampler/nuts.ts and termination.ts (Stan-equivalent
// iterative NUTS: multinomial sampling, biased progressive sampling at the top, uniform within
// subtrees, generalized U-turn with the two seam checks, divergence at ΔH > 1000), drawing the
// same Philox blocks (random/streams.ts), so a transition can be compared with the CPU sampler.
//
// The including program defines: NREAL (float|double), SFX(name) (type suffix for prelude
// variates), D (dimension), MAXD (max tree depth), CHAINS, CHAIN_ID (the chain of this thread),
// LEADER (true in the one thread that writes results), and the function
//   NREAL ppl_logp_grad(in NREAL q[D], out NREAL g[D]);
// Buffers: 0 q[C·D], 1 grad[C·D], 2 lp[C], 3 step size[C], 4 inverse metric diag[C·D],
// 5 control {seed lo, seed hi, first iteration, first chain id}, 6 stats[K·C·6], 7 draws[K·C·D].
// Push constant k: this dispatch runs iteration (first iteration + k) and writes slot k.

layout(std430, set = 0, binding = 0) buffer StateQ { NREAL v[]; } bq;
layout(std430, set = 0, binding = 1) buffer StateG { NREAL v[]; } bg;
layout(std430, set = 0, binding = 2) buffer StateLp { NREAL v[]; } blp;
layout(std430, set = 0, binding = 3) readonly buffer StepSize { NREAL v[]; } beps;
layout(std430, set = 0, binding = 4) readonly buffer InvMetric { NREAL v[]; } bminv;
layout(std430, set = 0, binding = 5) readonly buffer Control { uint v[]; } bctrl;
layout(std430, set = 0, binding = 6) writeonly buffer Stats { NREAL v[]; } bstats;
layout(std430, set = 0, binding = 7) writeonly buffer Draws { NREAL v[]; } bdraws;
layout(push_constant) uniform Push { uint k; } pc;

const uint PURPOSE_MOMENTUM = 2u;
const uint PURPOSE_TREE = 3u;
const uint PURPOSE_LEAF = 4u;

NREAL minv[D];

NREAL log_add_exp(NREAL a, NREAL b) {
  if (ppl_isinf(a) && a < NREAL(0)) return b;
  if (ppl_isinf(b) && b < NREAL(0)) return a;
  return a > b ? a + ppl_log1p(ppl_exp(b - a)) : b + ppl_log1p(ppl_exp(a - b));
}

// −lp + ½·pᵀM⁻¹p, leaving p♯ = M⁻¹p in sharp; NaN or a non-finite gradient count as +∞.
NREAL hamiltonian(NREAL lp, in NREAL g[D], in NREAL p[D], out NREAL sharp[D]) {
  NREAL s = NREAL(0);
  bool finite = true;
  for (int i = 0; i < D; i++) {
    sharp[i] = minv[i] * p[i];
    s += p[i] * sharp[i];
    if (ppl_isnan(g[i]) || ppl_isinf(g[i])) finite = false;
  }
  NREAL h = -lp + NREAL(0.5) * s;
  if (ppl_isnan(h) || !finite) return ppl_inf(h);
  return h;
}

bool no_u_turn(in NREAL sm[D], in NREAL sp[D], in NREAL rho[D]) {
  NREAL a = NREAL(0), b = NREAL(0);
  for (int i = 0; i < D; i++) { a += sm[i] * rho[i]; b += sp[i] * rho[i]; }
  return a > NREAL(0) && b > NREAL(0);
}

// Subtree termination checkpoints (termination.ts), one slot per level.
NREAL t_rho[D], t_firstP[D], t_firstSharp[D], t_prevP[D], t_prevSharp[D], t_r[D];
NREAL t_startSharp[MAXD][D], t_startPrefix[MAXD][D], t_midPrefix[MAXD][D], t_midP[MAXD][D];
NREAL t_midSharp[MAXD][D], t_midPrevP[MAXD][D], t_midPrevSharp[MAXD][D];
NREAL t_a[D], t_b[D];

bool add_leaf(int n, int depth, in NREAL p[D], in NREAL sharp[D]) {
  if (n == 0) {
    for (int i = 0; i < D; i++) { t_firstP[i] = p[i]; t_firstSharp[i] = sharp[i]; }
  } else {
    int k = findLSB(n);
    for (int i = 0; i < D; i++) {
      t_midPrefix[k][i] = t_rho[i]; t_midP[k][i] = p[i]; t_midSharp[k][i] = sharp[i];
      t_midPrevP[k][i] = t_prevP[i]; t_midPrevSharp[k][i] = t_prevSharp[i];
    }
  }
  int opened = n == 0 ? depth : min(findLSB(n), depth);
  for (int k = 0; k < opened; k++)
    for (int i = 0; i < D; i++) { t_startSharp[k][i] = sharp[i]; t_startPrefix[k][i] = t_rho[i]; }
  for (int i = 0; i < D; i++) t_rho[i] += p[i];
  int closed = min(findLSB(n + 1), depth);
  for (int k = 0; k < closed; k++) {
    for (int i = 0; i < D; i++) { t_r[i] = t_rho[i] - t_startPrefix[k][i]; t_a[i] = t_startSharp[k][i]; }
    if (!no_u_turn(t_a, sharp, t_r)) return false;
    for (int i = 0; i < D; i++) { t_r[i] = t_midPrefix[k][i] - t_startPrefix[k][i] + t_midP[k][i]; t_b[i] = t_midSharp[k][i]; }
    if (!no_u_turn(t_a, t_b, t_r)) return false;
    for (int i = 0; i < D; i++) { t_r[i] = t_rho[i] - t_midPrefix[k][i] + t_midPrevP[k][i]; t_a[i] = t_midPrevSharp[k][i]; }
    if (!no_u_turn(t_a, sharp, t_r)) return false;
  }
  for (int i = 0; i < D; i++) { t_prevP[i] = p[i]; t_prevSharp[i] = sharp[i]; }
  return true;
}

NREAL q[D], g[D], p[D], sharp[D];
NREAL qPlus[D], pPlus[D], gPlus[D], sharpPlus[D];
NREAL qMinus[D], pMinus[D], gMinus[D], sharpMinus[D];
NREAL rho[D], sampleQ[D], sampleG[D], propQ[D], propG[D], scratch[D];

void main() {
  uint c = CHAIN_ID;
  if (c >= uint(CHAINS)) return;
  uvec2 key = uvec2(bctrl.v[0], bctrl.v[1]);
  uint iteration = bctrl.v[2] + pc.k;
  uint chain = bctrl.v[3] + c;
  NREAL eps = beps.v[c];
  uint base = c * uint(D);
  for (int i = 0; i < D; i++) { minv[i] = bminv.v[base + i]; q[i] = bq.v[base + i]; g[i] = bg.v[base + i]; }
  NREAL lp = blp.v[c];

  // Momentum p ~ N(0, M): z / sqrt(M⁻¹) with z from blocks 0 … ceil(D/2)−1.
  for (int b = 0; 2 * b < D; b++) {
    uvec4 w = ppl_philox_stream(key, chain, iteration, PURPOSE_MOMENTUM, 0u, uint(b));
    p[2 * b] = SFX(ppl_normal0)(w) * (NREAL(1) / sqrt(minv[2 * b]));
    if (2 * b + 1 < D) p[2 * b + 1] = SFX(ppl_normal1)(w) * (NREAL(1) / sqrt(minv[2 * b + 1]));
  }
  NREAL H0 = hamiltonian(lp, g, p, sharp);
  for (int i = 0; i < D; i++) {
    qPlus[i] = q[i]; pPlus[i] = p[i]; gPlus[i] = g[i]; sharpPlus[i] = sharp[i];
    qMinus[i] = q[i]; pMinus[i] = p[i]; gMinus[i] = g[i]; sharpMinus[i] = sharp[i];
    rho[i] = p[i]; sampleQ[i] = q[i]; sampleG[i] = g[i];
  }
  NREAL sampleLp = lp, sampleEnergy = H0, propLp = lp, propEnergy = H0;
  NREAL logSumW = NREAL(0), sumMetro = NREAL(0);
  int nLeap = 0, depth = 0;
  bool divergent = ppl_isinf(H0);

  while (!divergent && depth < MAXD) {
    // Start a subtree of 2^depth leaves from the end in a random direction.
    uvec4 wt = ppl_philox_stream(key, chain, iteration, PURPOSE_TREE, 0u, uint(depth));
    NREAL dir = SFX(ppl_uniform0)(wt) > NREAL(0.5) ? NREAL(1) : NREAL(-1);
    bool forward = dir > NREAL(0);
    for (int i = 0; i < D; i++) {
      q[i] = forward ? qPlus[i] : qMinus[i];
      p[i] = forward ? pPlus[i] : pMinus[i];
      g[i] = forward ? gPlus[i] : gMinus[i];
      t_rho[i] = NREAL(0);
    }
    int size = 1 << depth;
    NREAL logSumWSub = ppl_inf(eps) * NREAL(-1);
    NREAL h = eps * dir;
    bool valid = true;
    for (int leaf = 0; leaf < size; leaf++) {
      // Fused leapfrog: half kick, drift, log density and gradient, half kick.
      for (int i = 0; i < D; i++) { p[i] += NREAL(0.5) * h * g[i]; q[i] += h * (minv[i] * p[i]); }
      lp = ppl_logp_grad(q, g);
      for (int i = 0; i < D; i++) p[i] += NREAL(0.5) * h * g[i];
      nLeap++;
      NREAL H = hamiltonian(lp, g, p, sharp);
      if (H - H0 > NREAL(1000)) divergent = true;
      NREAL logW = H0 - H;
      logSumWSub = log_add_exp(logSumWSub, logW);
      sumMetro += logW > NREAL(0) ? NREAL(1) : ppl_exp(logW);
      if (divergent) { valid = false; break; }
      bool take = leaf == 0;
      if (!take) {
        uvec4 wl = ppl_philox_stream(key, chain, iteration, PURPOSE_LEAF, 0u, uint(nLeap - 1));
        take = SFX(ppl_uniform0)(wl) < ppl_exp(logW - logSumWSub);
      }
      if (take) {
        for (int i = 0; i < D; i++) { propQ[i] = q[i]; propG[i] = g[i]; }
        propLp = lp; propEnergy = H;
      }
      if (!add_leaf(leaf, depth, p, sharp)) { valid = false; break; }
    }
    if (!valid) break;
    // Merge: biased progressive sampling, then the top-level U-turn checks.
    int depthBlock = depth;
    depth++;
    NREAL u1 = SFX(ppl_uniform1)(ppl_philox_stream(key, chain, iteration, PURPOSE_TREE, 0u, uint(depthBlock)));
    NREAL accept = logSumWSub > logSumW ? NREAL(1) : ppl_exp(logSumWSub - logSumW);
    if (u1 < accept) {
      for (int i = 0; i < D; i++) { sampleQ[i] = propQ[i]; sampleG[i] = propG[i]; }
      sampleLp = propLp; sampleEnergy = propEnergy;
    }
    logSumW = log_add_exp(logSumW, logSumWSub);
    // rhoOld + rhoNew, with the outer ends; then the two seams.
    bool continues = true;
    for (int i = 0; i < D; i++) { scratch[i] = rho[i] + t_rho[i]; t_a[i] = forward ? sharpMinus[i] : sharpPlus[i]; }
    if (!no_u_turn(t_a, sharp, scratch)) continues = false;
    if (continues) {
      for (int i = 0; i < D; i++) scratch[i] = rho[i] + t_firstP[i];
      if (!no_u_turn(t_a, t_firstSharp, scratch)) continues = false;
    }
    if (continues) {
      for (int i = 0; i < D; i++) { scratch[i] = t_rho[i] + (forward ? pPlus[i] : pMinus[i]); t_b[i] = forward ? sharpPlus[i] : sharpMinus[i]; }
      if (!no_u_turn(t_b, sharp, scratch)) continues = false;
    }
    for (int i = 0; i < D; i++) rho[i] += t_rho[i];
    for (int i = 0; i < D; i++) {
      if (forward) { qPlus[i] = q[i]; pPlus[i] = p[i]; gPlus[i] = g[i]; sharpPlus[i] = sharp[i]; }
      else { qMinus[i] = q[i]; pMinus[i] = p[i]; gMinus[i] = g[i]; sharpMinus[i] = sharp[i]; }
    }
    if (!continues) break;
  }

  if (!LEADER) return;
  for (int i = 0; i < D; i++) { bq.v[base + i] = sampleQ[i]; bg.v[base + i] = sampleG[i]; }
  blp.v[c] = sampleLp;
  uint slot = pc.k * uint(CHAINS) + c;
  bstats.v[slot * 6u + 0u] = nLeap > 0 ? sumMetro / NREAL(nLeap) : NREAL(0);
  bstats.v[slot * 6u + 1u] = NREAL(depth);
  bstats.v[slot * 6u + 2u] = NREAL(nLeap);
  bstats.v[slot * 6u + 3u] = divergent ? NREAL(1) : NREAL(0);
  bstats.v[slot * 6u + 4u] = sampleEnergy;
  bstats.v[slot * 6u + 5u] = sampleLp;
  for (int i = 0; i < D; i++) bdraws.v[slot * uint(D) + uint(i)] = sampleQ[i];
}
