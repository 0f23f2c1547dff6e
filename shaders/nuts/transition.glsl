// NUTS transition of one chain per thread (execution shape 1 of DESIGN.md) or per workgroup
// (shape 2). The state vectors are split over the chain's WG threads: thread LID owns elements
// LID, LID+WG, … (slot s holds element i = LID + s·WG), so elementwise updates need no
// synchronisation; dot products (energies, U-turn checks) are workgroup sums, so every thread
// takes the same branches; the log density and gradient are computed by all of the chain's
// threads together (LOGP). With WG = 1 this is plain thread-per-chain code.
//
// A line-by-line port of packages/ppl/src/sampler/nuts.ts and termination.ts (Stan-equivalent
// iterative NUTS: multinomial sampling, biased progressive sampling at the top, uniform within
// subtrees, generalized U-turn with the two seam checks, divergence at ΔH > 1000), drawing the
// same Philox blocks (random/streams.ts), so a transition can be compared with the CPU sampler.
//
// The including program defines: NREAL (float|double), SFX(name) (type suffix for prelude
// variates), D (dimension), MAXD (max tree depth), CHAINS, CHAIN_ID, LEADER (the thread that
// writes scalar results), WG and LID (threads per chain and this thread's index among them),
// REDUCE_SUM(x) (sum over the chain's threads, returned to all), and LOGP(), a statement that sets
// lp and g[] (owned slots) from q[] (owned slots).
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

NREAL minv[OWN];

NREAL log_add_exp(NREAL a, NREAL b) {
  if (ppl_isinf(a) && a < NREAL(0)) return b;
  if (ppl_isinf(b) && b < NREAL(0)) return a;
  return a > b ? a + ppl_log1p(ppl_exp(b - a)) : b + ppl_log1p(ppl_exp(a - b));
}

// −lp + ½·pᵀM⁻¹p, leaving p♯ = M⁻¹p in sharp; NaN or a non-finite gradient count as +∞.
NREAL hamiltonian(NREAL lp, in NREAL g[OWN], in NREAL p[OWN], out NREAL sharp[OWN]) {
  NREAL pp = NREAL(0), bad = NREAL(0);
  FOR_OWNED(s, i) {
    sharp[s] = minv[s] * p[s];
    pp += p[s] * sharp[s];
    if (ppl_isnan(g[s]) || ppl_isinf(g[s])) bad = NREAL(1);
  }
  pp = REDUCE_SUM(pp);
  bad = REDUCE_SUM(bad);
  NREAL h = -lp + NREAL(0.5) * pp;
  if (ppl_isnan(h) || bad > NREAL(0)) return ppl_inf(h);
  return h;
}

bool no_u_turn(in NREAL sm[OWN], in NREAL sp[OWN], in NREAL rho[OWN]) {
  NREAL a = NREAL(0), b = NREAL(0);
  FOR_OWNED(s, i) { a += sm[s] * rho[s]; b += sp[s] * rho[s]; }
  a = REDUCE_SUM(a);
  b = REDUCE_SUM(b);
  return a > NREAL(0) && b > NREAL(0);
}

// Subtree termination checkpoints (termination.ts), one slot per level.
NREAL t_rho[OWN], t_firstP[OWN], t_firstSharp[OWN], t_prevP[OWN], t_prevSharp[OWN], t_r[OWN];
NREAL t_startSharp[MAXD][OWN], t_startPrefix[MAXD][OWN], t_midPrefix[MAXD][OWN], t_midP[MAXD][OWN];
NREAL t_midSharp[MAXD][OWN], t_midPrevP[MAXD][OWN], t_midPrevSharp[MAXD][OWN];
NREAL t_a[OWN], t_b[OWN];

bool add_leaf(int n, int depth, in NREAL p[OWN], in NREAL sharp[OWN]) {
  if (n == 0) {
    FOR_OWNED(s, i) { t_firstP[s] = p[s]; t_firstSharp[s] = sharp[s]; }
  } else {
    int k = findLSB(n);
    FOR_OWNED(s, i) {
      t_midPrefix[k][s] = t_rho[s]; t_midP[k][s] = p[s]; t_midSharp[k][s] = sharp[s];
      t_midPrevP[k][s] = t_prevP[s]; t_midPrevSharp[k][s] = t_prevSharp[s];
    }
  }
  int opened = n == 0 ? depth : min(findLSB(n), depth);
  for (int k = 0; k < opened; k++)
    FOR_OWNED(s, i) { t_startSharp[k][s] = sharp[s]; t_startPrefix[k][s] = t_rho[s]; }
  FOR_OWNED(s, i) t_rho[s] += p[s];
  int closed = min(findLSB(n + 1), depth);
  for (int k = 0; k < closed; k++) {
    FOR_OWNED(s, i) { t_r[s] = t_rho[s] - t_startPrefix[k][s]; t_a[s] = t_startSharp[k][s]; }
    if (!no_u_turn(t_a, sharp, t_r)) return false;
    FOR_OWNED(s, i) { t_r[s] = t_midPrefix[k][s] - t_startPrefix[k][s] + t_midP[k][s]; t_b[s] = t_midSharp[k][s]; }
    if (!no_u_turn(t_a, t_b, t_r)) return false;
    FOR_OWNED(s, i) { t_r[s] = t_rho[s] - t_midPrefix[k][s] + t_midPrevP[k][s]; t_a[s] = t_midPrevSharp[k][s]; }
    if (!no_u_turn(t_a, sharp, t_r)) return false;
  }
  FOR_OWNED(s, i) { t_prevP[s] = p[s]; t_prevSharp[s] = sharp[s]; }
  return true;
}

NREAL q[OWN], g[OWN], p[OWN], sharp[OWN];
NREAL qPlus[OWN], pPlus[OWN], gPlus[OWN], sharpPlus[OWN];
NREAL qMinus[OWN], pMinus[OWN], gMinus[OWN], sharpMinus[OWN];
NREAL rho[OWN], sampleQ[OWN], sampleG[OWN], propQ[OWN], propG[OWN], scratch[OWN];

void main() {
  uint c = CHAIN_ID;
  if (c >= uint(CHAINS)) return;
  uvec2 key = uvec2(bctrl.v[0], bctrl.v[1]);
  uint iteration = bctrl.v[2] + pc.k;
  uint chain = bctrl.v[3] + c;
  NREAL eps = beps.v[c];
  int base = int(c) * D;
  FOR_OWNED(s, i) { minv[s] = bminv.v[base + i]; q[s] = bq.v[base + i]; g[s] = bg.v[base + i]; }
  NREAL lp = blp.v[c];

  // Momentum p ~ N(0, M): z / sqrt(M⁻¹); element i's z is variate i % 2 of block i / 2.
  FOR_OWNED(s, i) {
    uvec4 w = ppl_philox_stream(key, chain, iteration, PURPOSE_MOMENTUM, 0u, uint(i / 2));
    NREAL z = (i % 2 == 0) ? SFX(ppl_normal0)(w) : SFX(ppl_normal1)(w);
    p[s] = z * (NREAL(1) / sqrt(minv[s]));
  }
  NREAL H0 = hamiltonian(lp, g, p, sharp);
  FOR_OWNED(s, i) {
    qPlus[s] = q[s]; pPlus[s] = p[s]; gPlus[s] = g[s]; sharpPlus[s] = sharp[s];
    qMinus[s] = q[s]; pMinus[s] = p[s]; gMinus[s] = g[s]; sharpMinus[s] = sharp[s];
    rho[s] = p[s]; sampleQ[s] = q[s]; sampleG[s] = g[s];
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
    FOR_OWNED(s, i) {
      q[s] = forward ? qPlus[s] : qMinus[s];
      p[s] = forward ? pPlus[s] : pMinus[s];
      g[s] = forward ? gPlus[s] : gMinus[s];
      t_rho[s] = NREAL(0);
    }
    int size = 1 << depth;
    NREAL logSumWSub = ppl_inf(eps) * NREAL(-1);
    NREAL h = eps * dir;
    bool valid = true;
    for (int leaf = 0; leaf < size; leaf++) {
      // Fused leapfrog: half kick, drift, log density and gradient, half kick.
      FOR_OWNED(s, i) { p[s] += NREAL(0.5) * h * g[s]; q[s] += h * (minv[s] * p[s]); }
      LOGP();
      FOR_OWNED(s, i) p[s] += NREAL(0.5) * h * g[s];
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
        FOR_OWNED(s, i) { propQ[s] = q[s]; propG[s] = g[s]; }
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
      FOR_OWNED(s, i) { sampleQ[s] = propQ[s]; sampleG[s] = propG[s]; }
      sampleLp = propLp; sampleEnergy = propEnergy;
    }
    logSumW = log_add_exp(logSumW, logSumWSub);
    // rhoOld + rhoNew, with the outer ends; then the two seams.
    bool continues = true;
    FOR_OWNED(s, i) { scratch[s] = rho[s] + t_rho[s]; t_a[s] = forward ? sharpMinus[s] : sharpPlus[s]; }
    if (!no_u_turn(t_a, sharp, scratch)) continues = false;
    if (continues) {
      FOR_OWNED(s, i) scratch[s] = rho[s] + t_firstP[s];
      if (!no_u_turn(t_a, t_firstSharp, scratch)) continues = false;
    }
    if (continues) {
      FOR_OWNED(s, i) { scratch[s] = t_rho[s] + (forward ? pPlus[s] : pMinus[s]); t_b[s] = forward ? sharpPlus[s] : sharpMinus[s]; }
      if (!no_u_turn(t_b, sharp, scratch)) continues = false;
    }
    FOR_OWNED(s, i) rho[s] += t_rho[s];
    FOR_OWNED(s, i) {
      if (forward) { qPlus[s] = q[s]; pPlus[s] = p[s]; gPlus[s] = g[s]; sharpPlus[s] = sharp[s]; }
      else { qMinus[s] = q[s]; pMinus[s] = p[s]; gMinus[s] = g[s]; sharpMinus[s] = sharp[s]; }
    }
    if (!continues) break;
  }

  uint slot = pc.k * uint(CHAINS) + c;
  FOR_OWNED(s, i) {
    bq.v[base + i] = sampleQ[s];
    bg.v[base + i] = sampleG[s];
    bdraws.v[slot * uint(D) + uint(i)] = sampleQ[s];
  }
  if (!LEADER) return;
  blp.v[c] = sampleLp;
  bstats.v[slot * 6u + 0u] = nLeap > 0 ? sumMetro / NREAL(nLeap) : NREAL(0);
  bstats.v[slot * 6u + 1u] = NREAL(depth);
  bstats.v[slot * 6u + 2u] = NREAL(nLeap);
  bstats.v[slot * 6u + 3u] = divergent ? NREAL(1) : NREAL(0);
  bstats.v[slot * 6u + 4u] = sampleEnergy;
  bstats.v[slot * 6u + 5u] = sampleLp;
}
