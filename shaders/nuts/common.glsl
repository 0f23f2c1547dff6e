// The parts of NUTS shared by the fused transition (transition.glsl, execution shapes 1 and 2)
// and the controller of the whole-device shape (controller.glsl): the metric, the energy, the
// U-turn criterion, the subtree termination checkpoints and the state vectors. The
// state vectors are split over the chain's WG threads: thread LID owns elements LID, LID+WG, …
// (slot s holds element i = LID + s·WG), so elementwise updates need no synchronisation; dot
// products (energies, U-turn checks) are workgroup sums, so every thread takes the same branches.
//
// A line-by-line port of packages/ppl/src/sampler/nuts.ts and termination.ts (Stan-equivalent
// iterative NUTS: multinomial sampling, biased progressive sampling at the top, uniform within
// subtrees, generalized U-turn with the two seam checks, divergence at ΔH > maxDeltaH), drawing the
// same Philox blocks (random/streams.ts), so a transition can be compared with the CPU sampler.
//
// The including program defines: NREAL (float|double), SFX(name) (type suffix for prelude
// variates), D (dimension), MAXD (max tree depth), CHAINS, CHAIN_ID, LEADER (the thread that
// writes scalar results), WG and LID (threads per chain and this thread's index among them),
// OWN and FOR_OWNED, REDUCE_SUM(x) (sum over the chain's threads, returned to all) and
// REDUCE_SUMS(v, n) (the first n entries of an array of PPL_SUMS summed so, all at once), and
// declares the buffers 0–7 (bq, bg, blp, beps, bminv, bctrl, bstats, bdraws), generated from
// STATE_BUFFERS in packages/ppl-vulkan/src/nuts-layout.ts, which says what each holds.

// A profiling build (PPL_PROFILE, packages/ppl-vulkan/src/profile.ts) adds the leader's cycles
// spent on each part (PROF_LOAD, PROF_KICK, …: the controller's CONTROLLER_PROFILE_PARTS, the
// fused transition's FUSED_PROFILE_PARTS) to the chain's words of the profile buffer, and counts
// the calls (a controller call, a fused leapfrog) in which the part ran. Elsewhere the marks are
// empty.
#ifdef PPL_PROFILE
uint prof_t;
uint prof_cycles[PROF_PARTS];
uint prof_calls[PROF_PARTS];
#define PROF_START() { for (int k = 0; k < PROF_PARTS; k++) { prof_cycles[k] = 0u; prof_calls[k] = 0u; } prof_t = clock2x32ARB().x; }
#define PROF_MARK(k) { uint now = clock2x32ARB().x; prof_cycles[k] += now - prof_t; prof_calls[k] = 1u; prof_t = now; }
// A part's cycles in a call are a signed count: a driver may read the counter of a mark before the
// one of the mark ahead of it (nothing orders the reads against the work between them), so a short
// part can come out negative and its neighbour longer by as much. The flush adds the count sign-
// extended to the 64-bit sum (low word, high word), which readProfile reads as signed.
#define PROF_FLUSH(c) if (LEADER) { for (int k = 0; k < PROF_PARTS; k++) { uint at = (uint(c) * uint(PROF_PARTS) + uint(k)) * 3u; uint d = prof_cycles[k]; uint lo = bprof.v[at] + d; bprof.v[at + 1u] += (lo < d ? 1u : 0u) + (int(d) < 0 ? 0xffffffffu : 0u); bprof.v[at] = lo; bprof.v[at + 2u] += prof_calls[k]; } }
#else
#define PROF_START()
#define PROF_MARK(k)
#define PROF_FLUSH(c)
#endif

// PURPOSE_*, STAT_*, DA_STATE(c) and SETTING_* come from the layout the host generates
// (packages/ppl-vulkan/src/nuts-layout.ts), so that both sides read one description.

// The metric. Diagonal: minv holds the owned elements of M⁻¹'s diagonal. Dense (DENSE_METRIC):
// buffer 4 holds, per chain, M⁻¹ then the momentum transform A = L⁻ᵀ (M⁻¹ = L·Lᵀ), each D×D
// row-major, from metricBase; products with them need every element of the vector, which
// GATHER(v) makes readable as GATHERED(v, j) until GATHER_DONE() (workgroup shapes go through
// shared memory; with one thread per chain the thread already holds the whole vector).
NREAL minv[OWN];
int metricBase;

// out = M⁻¹·v (Stan's p_sharp: the velocity).
void velocity(in NREAL v[OWN], out NREAL res[OWN]) {
#ifdef DENSE_METRIC
  GATHER(v);
  FOR_OWNED(s, i) {
    NREAL acc = NREAL(0);
    int row = metricBase + i * D;
    for (int j = 0; j < D; j++) acc += bminv.v[row + j] * GATHERED(v, j);
    res[s] = acc;
  }
  GATHER_DONE();
#else
  FOR_OWNED(s, i) res[s] = minv[s] * v[s];
#endif
}

NREAL log_add_exp(NREAL a, NREAL b) {
  if (ppl_isinf(a) && a < NREAL(0)) return b;
  if (ppl_isinf(b) && b < NREAL(0)) return a;
  return a > b ? a + ppl_log1p(ppl_exp(b - a)) : b + ppl_log1p(ppl_exp(a - b));
}

// −lp + ½·pᵀM⁻¹p, leaving p♯ = M⁻¹p in sharp; NaN or a non-finite gradient count as +∞.
NREAL hamiltonian(NREAL lp, in NREAL g[OWN], in NREAL p[OWN], out NREAL sharp[OWN]) {
  NREAL v[PPL_SUMS];
  v[0] = NREAL(0); v[1] = NREAL(0);
  velocity(p, sharp);
  FOR_OWNED(s, i) {
    v[0] += p[s] * sharp[s];
    if (ppl_isnan(g[s]) || ppl_isinf(g[s])) v[1] = NREAL(1);
  }
  REDUCE_SUMS(v, 2);
  NREAL h = -lp + NREAL(0.5) * v[0];
  if (ppl_isnan(h) || v[1] > NREAL(0)) return ppl_inf(h);
  return h;
}

// U-turn checks three at a time (termination.ts checks them in order and stops at the first that
// fails; they have no side effects, so their six dot products go through one workgroup sum):
// check j passes when u[2j] = sm_j·rho_j > 0 and u[2j+1] = sp_j·rho_j > 0.
bool no_u_turns(in NREAL u[PPL_SUMS]) {
  return u[0] > NREAL(0) && u[1] > NREAL(0) && u[2] > NREAL(0) && u[3] > NREAL(0) && u[4] > NREAL(0) && u[5] > NREAL(0);
}

// Subtree termination checkpoints (termination.ts), one slot per level.
// (t_rho, t_firstP, t_firstSharp, t_prevP, t_prevSharp and the tables are declared with the rest of
// the kept state by the host, from nuts-layout.ts; these are scratch.) CP(table, level, s, i) is
// owned element s (element i of the vector) of a table's level: a private array in the fused
// transition, the controller's state buffer itself in the controller.
NREAL t_a[OWN];

// Level 0's start rows, read by end_leaf before the leaf's energy so that their loads overlap it
// (the controller keeps the tables in its buffer): an odd leaf closes level 0.
NREAL t_start0Sharp[OWN], t_start0Prefix[OWN];

// Whether the last end_leaf took its leaf as the subtree's proposal (wrote propQ and propG): the
// controller stores those two vectors only then.
bool proposalTaken;

bool add_leaf(int n, int depth, in NREAL p[OWN], in NREAL sharp[OWN]) {
  if (n == 0) {
    FOR_OWNED(s, i) { t_firstP[s] = p[s]; t_firstSharp[s] = sharp[s]; }
  } else {
    int k = findLSB(n);
    FOR_OWNED(s, i) {
      CP(t_midPrefix, k, s, i) = t_rho[s]; CP(t_midP, k, s, i) = p[s]; CP(t_midSharp, k, s, i) = sharp[s];
      CP(t_midPrevP, k, s, i) = t_prevP[s]; CP(t_midPrevSharp, k, s, i) = t_prevSharp[s];
    }
  }
  int opened = n == 0 ? depth : min(findLSB(n), depth);
  for (int k = 0; k < opened; k++)
    FOR_OWNED(s, i) { CP(t_startSharp, k, s, i) = sharp[s]; CP(t_startPrefix, k, s, i) = t_rho[s]; }
  int closed = min(findLSB(n + 1), depth);
  // The level's three checks: the whole span, its first half with the second's first leaf, its
  // second half with the first's last leaf. Level 0 of an odd leaf has this leaf for its middle,
  // just written above: its terms come from the registers (the same values, so the same sums),
  // beside rho's update, not from reading the tables back.
  NREAL u[PPL_SUMS];
  for (int j = 0; j < 6; j++) u[j] = NREAL(0);
  FOR_OWNED(s, i) {
    NREAL before = t_rho[s];
    t_rho[s] += p[s];
    if (closed > 0) {
      NREAL start = t_start0Sharp[s];
      NREAL r = t_rho[s] - t_start0Prefix[s];
      u[0] += start * r; u[1] += sharp[s] * r;
      r = before - t_start0Prefix[s] + p[s];
      u[2] += start * r; u[3] += sharp[s] * r;
      r = t_rho[s] - before + t_prevP[s];
      u[4] += t_prevSharp[s] * r; u[5] += sharp[s] * r;
    }
  }
  PROF_MARK(PROF_CHECKPOINTS);
  for (int k = 0; k < closed; k++) {
    if (k > 0) {
      for (int j = 0; j < 6; j++) u[j] = NREAL(0);
      FOR_OWNED(s, i) {
        NREAL start = CP(t_startSharp, k, s, i);
        NREAL r = t_rho[s] - CP(t_startPrefix, k, s, i);
        u[0] += start * r; u[1] += sharp[s] * r;
        r = CP(t_midPrefix, k, s, i) - CP(t_startPrefix, k, s, i) + CP(t_midP, k, s, i);
        u[2] += start * r; u[3] += CP(t_midSharp, k, s, i) * r;
        r = t_rho[s] - CP(t_midPrefix, k, s, i) + CP(t_midPrevP, k, s, i);
        u[4] += CP(t_midPrevSharp, k, s, i) * r; u[5] += sharp[s] * r;
      }
    }
    REDUCE_SUMS(u, 6);
    if (!no_u_turns(u)) { PROF_MARK(PROF_CHECKS); return false; }
  }
  FOR_OWNED(s, i) { t_prevP[s] = p[s]; t_prevSharp[s] = sharp[s]; }
  PROF_MARK(PROF_CHECKS);
  return true;
}

// The vectors NUTS keeps (q, p, the trajectory's ends, rho, the sample and the proposal) are
// declared by the host from nuts-layout.ts; g and sharp are recomputed at every leaf, scratch is scratch.
NREAL g[OWN], sharp[OWN], scratch[OWN];

// The transition's scalar state; with the vectors above, everything one chain's NUTS keeps.
uvec2 key;
uint chain, iteration;
// With the kept reals and ints the host declares (H0, sampleLp, …, nLeap, depth, forward, divergent).
NREAL eps, lp;

// Start a transition at (q, g, lp): momentum p ~ N(0, M) as z / sqrt(M⁻¹), where element i's z is
// variate i % 2 of Philox block i / 2; the trajectory's ends and the sample start at the point.
void begin_transition() {
  FOR_OWNED(s, i) {
    uvec4 w = ppl_philox_stream(key, chain, iteration, PURPOSE_MOMENTUM, 0u, uint(i / 2));
    NREAL z = (i % 2 == 0) ? SFX(ppl_normal0)(w) : SFX(ppl_normal1)(w);
#ifdef DENSE_METRIC
    scratch[s] = z;
#else
    p[s] = z * (NREAL(1) / sqrt(minv[s]));
#endif
  }
#ifdef DENSE_METRIC
  // p = A·z, A upper triangular.
  GATHER(scratch);
  FOR_OWNED(s, i) {
    NREAL acc = NREAL(0);
    int row = metricBase + D * D + i * D;
    for (int j = i; j < D; j++) acc += bminv.v[row + j] * GATHERED(scratch, j);
    p[s] = acc;
  }
  GATHER_DONE();
#endif
  H0 = hamiltonian(lp, g, p, sharp);
  FOR_OWNED(s, i) {
    qPlus[s] = q[s]; pPlus[s] = p[s]; gPlus[s] = g[s]; sharpPlus[s] = sharp[s];
    qMinus[s] = q[s]; pMinus[s] = p[s]; gMinus[s] = g[s]; sharpMinus[s] = sharp[s];
    rho[s] = p[s]; sampleQ[s] = q[s]; sampleG[s] = g[s];
  }
  sampleLp = lp; sampleEnergy = H0; propLp = lp; propEnergy = H0;
  logSumW = NREAL(0); sumMetro = NREAL(0);
  nLeap = 0; depth = 0;
  divergent = ppl_isinf(H0);
}

// Whether the trajectory grows by another subtree.
bool tree_continues() { return !divergent && depth < MAXD; }

// Start a subtree of 2^depth leaves from the end in a random direction.
void begin_subtree() {
  uvec4 wt = ppl_philox_stream(key, chain, iteration, PURPOSE_TREE, 0u, uint(depth));
  forward = SFX(ppl_uniform0)(wt) > NREAL(0.5);
  FOR_OWNED(s, i) {
    q[s] = forward ? qPlus[s] : qMinus[s];
    p[s] = forward ? pPlus[s] : pMinus[s];
    g[s] = forward ? gPlus[s] : gMinus[s];
    t_rho[s] = NREAL(0);
  }
  logSumWSub = ppl_inf(eps) * NREAL(-1);
}

NREAL step_h() { return eps * (forward ? NREAL(1) : NREAL(-1)); }

// The fused leapfrog's first half: half kick and drift; the log density and gradient at the new
// q come next, then end_leaf.
void leapfrog_drift() {
  NREAL h = step_h();
  FOR_OWNED(s, i) p[s] += NREAL(0.5) * h * g[s];
  velocity(p, t_a);
  FOR_OWNED(s, i) q[s] += h * t_a[s];
}

// The leapfrog's closing half kick, then the leaf's energy, multinomial weight, sample and
// termination checks; false when the subtree ends early (divergence or a U-turn inside it).
bool end_leaf(int leaf) {
  proposalTaken = false;
  // Loads first, used later: the divergence threshold, and the start rows of level 0 where this
  // leaf closes it (add_leaf).
  NREAL maxDeltaH = beps.v[SETTING_MAX_DELTA_H];
  if ((leaf & 1) == 1) FOR_OWNED(s, i) { t_start0Sharp[s] = CP(t_startSharp, 0, s, i); t_start0Prefix[s] = CP(t_startPrefix, 0, s, i); }
  NREAL h = step_h();
  FOR_OWNED(s, i) p[s] += NREAL(0.5) * h * g[s];
  nLeap++;
  PROF_MARK(PROF_KICK);
  NREAL H = hamiltonian(lp, g, p, sharp);
  PROF_MARK(PROF_ENERGY);
  if (H - H0 > maxDeltaH) divergent = true;
  NREAL logW = H0 - H;
  logSumWSub = log_add_exp(logSumWSub, logW);
  sumMetro += logW > NREAL(0) ? NREAL(1) : ppl_exp(logW);
  if (divergent) return false;
  bool take = leaf == 0;
  if (!take) {
    uvec4 wl = ppl_philox_stream(key, chain, iteration, PURPOSE_LEAF, 0u, uint(nLeap - 1));
    take = SFX(ppl_uniform0)(wl) < ppl_exp(logW - logSumWSub);
  }
  if (take) {
    FOR_OWNED(s, i) { propQ[s] = q[s]; propG[s] = g[s]; }
    propLp = lp; propEnergy = H;
    proposalTaken = true;
  }
  PROF_MARK(PROF_SAMPLE);
  return add_leaf(leaf, depth, p, sharp);
}

// Merge a completed subtree: biased progressive sampling, then the top-level U-turn checks
// (rhoOld + rhoNew with the outer ends, then the two seams); false when the trajectory stops.
bool merge_subtree() {
  int depthBlock = depth;
  depth++;
  NREAL u1 = SFX(ppl_uniform1)(ppl_philox_stream(key, chain, iteration, PURPOSE_TREE, 0u, uint(depthBlock)));
  NREAL accept = logSumWSub > logSumW ? NREAL(1) : ppl_exp(logSumWSub - logSumW);
  if (u1 < accept) {
    FOR_OWNED(s, i) { sampleQ[s] = propQ[s]; sampleG[s] = propG[s]; }
    sampleLp = propLp; sampleEnergy = propEnergy;
  }
  logSumW = log_add_exp(logSumW, logSumWSub);
  // The whole trajectory, then the two seams: the old part with the new subtree's first leaf, the
  // new subtree with the old end it joins.
  NREAL u[PPL_SUMS];
  for (int j = 0; j < 6; j++) u[j] = NREAL(0);
  FOR_OWNED(s, i) {
    NREAL far = forward ? sharpMinus[s] : sharpPlus[s];
    NREAL r = rho[s] + t_rho[s];
    u[0] += far * r; u[1] += sharp[s] * r;
    r = rho[s] + t_firstP[s];
    u[2] += far * r; u[3] += t_firstSharp[s] * r;
    r = t_rho[s] + (forward ? pPlus[s] : pMinus[s]);
    u[4] += (forward ? sharpPlus[s] : sharpMinus[s]) * r; u[5] += sharp[s] * r;
  }
  REDUCE_SUMS(u, 6);
  bool continues = no_u_turns(u);
  FOR_OWNED(s, i) rho[s] += t_rho[s];
  FOR_OWNED(s, i) {
    if (forward) { qPlus[s] = q[s]; pPlus[s] = p[s]; gPlus[s] = g[s]; sharpPlus[s] = sharp[s]; }
    else { qMinus[s] = q[s]; pMinus[s] = p[s]; gMinus[s] = g[s]; sharpMinus[s] = sharp[s]; }
  }
  return continues;
}

// Warmup blocks (control word 5 set): after every transition, Stan's dual averaging of log ε
// as packages/ppl/src/sampler/warmup/dual-averaging.ts does it, so that the block's next
// iteration runs with the step size the host computes from the same accept statistic. Every
// thread of the chain computes it (they all hold the same scalars); the leader stores it.
NREAL daMu, daCount, daSBar, daXBar;

void adapt_step_size(uint c, NREAL acceptStat) {
  int sb = DA_STATE(c);
  NREAL delta = beps.v[SETTING_DELTA], gamma = beps.v[SETTING_GAMMA], kappa = beps.v[SETTING_KAPPA], t0 = beps.v[SETTING_T0];
  daCount += NREAL(1);
  NREAL stat = acceptStat > NREAL(1) ? NREAL(1) : acceptStat;
  NREAL eta = NREAL(1) / (daCount + t0);
  daSBar = (NREAL(1) - eta) * daSBar + eta * (delta - stat);
  NREAL x = daMu - daSBar * sqrt(daCount) / gamma;
  NREAL xEta = ppl_exp(-kappa * ppl_log(daCount));
  daXBar = (NREAL(1) - xEta) * daXBar + xEta * x;
  eps = ppl_exp(x);
  if (!LEADER) return;
  beps.v[c] = eps;
  beps.v[sb + 1] = daCount; beps.v[sb + 2] = daSBar; beps.v[sb + 3] = daXBar;
}

// Write chain c's finished transition: the new state (buffers 0–2), its draw and stats in slot k;
// the sample becomes the chain's current state, and in a warmup block the step size adapts.
void write_result(uint c, uint k) {
  int base = int(c) * D;
  uint slot = k * uint(CHAINS) + c;
  FOR_OWNED(s, i) {
    bq.v[base + i] = sampleQ[s];
    bg.v[base + i] = sampleG[s];
    bdraws.v[slot * uint(D) + uint(i)] = sampleQ[s];
    // The chain's next transition starts from this sample.
    q[s] = sampleQ[s]; g[s] = sampleG[s];
  }
  lp = sampleLp;
  NREAL acceptStat = nLeap > 0 ? sumMetro / NREAL(nLeap) : NREAL(0);
  if (bctrl.v[5] != 0u) adapt_step_size(c, acceptStat);
  if (!LEADER) return;
  blp.v[c] = sampleLp;
  // The statistics' values and offsets come from nuts-layout.ts (TRANSITION_STATS).
  WRITE_STATS(slot);
}

// Load chain c's settings of a transition (key, step size, its adaptation, the metric) from the
// control buffer and buffers 3–4; load_point adds where it starts.
void load_chain(uint c, uint it) {
  key = uvec2(bctrl.v[0], bctrl.v[1]);
  iteration = it;
  chain = bctrl.v[3] + c;
  eps = beps.v[c];
  // Read whether or not this block adapts (control word 5): a branch on a loaded word would hold
  // the loads after it back for a memory round trip.
  int sb = DA_STATE(c);
  daMu = beps.v[sb]; daCount = beps.v[sb + 1]; daSBar = beps.v[sb + 2]; daXBar = beps.v[sb + 3];
  int base = int(c) * D;
  metricBase = int(c) * 2 * D * D;
#ifndef DENSE_METRIC
  FOR_OWNED(s, i) minv[s] = bminv.v[base + i];
#endif
}

// Load chain c's point (q, g, lp) from buffers 0–2: where its next transition starts.
void load_point(uint c) {
  int base = int(c) * D;
  FOR_OWNED(s, i) { q[s] = bq.v[base + i]; g[s] = bg.v[base + i]; }
  lp = blp.v[c];
}
