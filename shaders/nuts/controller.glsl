// NUTS controller of the whole-device shape (execution shape 3, docs/gpu-sampler.md), included after
// common.glsl. The log density and gradient of all chains are separate kernels (the batched
// gradient, which reads the data once for every chain); this kernel runs between two of them,
// a workgroup per chain, or a thread per chain for small models. Each call takes the gradient just computed at the position it asked
// for, ends that leapfrog (closing half kick, energy, multinomial sample, U-turn checks), merges
// subtrees and ends or starts transitions as the trajectory requires, and then begins the next
// leapfrog (half kick and drift) and writes its position for the next batched gradient. The
// transition's state lives in buffers between calls, so the host can record many
// controller + gradient pairs in one submission and only polls the done counter.
//
// Buffers after the state buffers 0–7, declared by the host from CONTROLLER_STATE_BUFFERS
// (nuts-layout.ts): 8 vector state, 9 real state, 10 int state, 11 done counter, 12–14 the batched
// gradient's positions, log densities and gradients.
// Control word 4: iterations in this block. The host starts a block with every chain's phase
// BEGIN and k = 0, and the done counter at 0.

// NV, NRS, NIS, IS_*, SAVE_/LOAD_{LEAF,PROPOSAL,FIRST,MERGE}_STATE and LOAD_/SAVE_SCALARS come from
// the host's description of this state (packages/ppl-vulkan/src/nuts-layout.ts).
const int PHASE_BEGIN = 0;
const int PHASE_LEAF = 1;
const int PHASE_IDLE = 2;

// The vectors a transition keeps between leapfrogs are slots of the vector state (VS(c, slot, i)
// is defined by the including program: chain-major for a workgroup per chain, chain-minor for a
// thread per chain, so that neighbouring threads touch neighbouring words). The checkpoint tables
// are read and written there in place (CP, nuts-layout.ts), never copied into the invocation.

void main() {
  uint c = CHAIN_ID;
  if (c >= uint(CHAINS)) return;
  int ib = int(c) * NIS, rb = int(c) * NRS, base = int(c) * D;
  PROF_START();
  int phase = bis.v[ib + IS_PHASE];
  uint k = uint(bis.v[ib + IS_K]);
  uint count = bctrl.v[4];
  // What a pending leaf needs (most calls) is loaded before the phase is known, so that it takes
  // one memory round trip, not one for the phase and then one for the rest: the settings, the
  // leaf's state and the gradient just evaluated at its position. A call that begins a
  // transition loads the chain's point instead, below.
  load_chain(c, bctrl.v[2] + k);
  LOAD_SCALARS(rb, ib);
  int leafAt = bis.v[ib + IS_LEAF];
  LOAD_LEAF_STATE(c);
#ifdef PPL_EPILOGUE
  // The gradient's assembly (the kernel of lp and the gradient) computed here (controller-program.ts's epilogue), from its inputs;
  // its chain's sums added up from their partials first (every thread of the chain, uniformly).
  ppl_prepare(int(c));
  lp = ppl_out0(int(c));
  FOR_OWNED(s, i) g[s] = ppl_out1(base + i);
#else
  lp = bglp.v[c];
  FOR_OWNED(s, i) g[s] = bgg.v[base + i];
#endif
  if (phase == PHASE_IDLE) return;
  int leaf = 0;
  // A call that only ends one leaf and starts the next moves the leaf vectors; the merge vectors
  // are loaded only where a subtree merges or the transition ends, and saved only where they
  // changed (a merge or a new transition). The subtree's proposal and first leaf are read only
  // by its merge: loaded there unless this call's leaf just wrote them, saved only when written.
  bool mergeLoaded = false, merged = false, tookProposal = false, endedFirst = false;
  if (phase == PHASE_LEAF) leaf = leafAt;
  else load_point(c);
  PROF_MARK(PROF_LOAD);
  // Finish the pending leaf or begin a transition, until a gradient is needed or the block is done.
  bool wantGradient = false;
  while (phase != PHASE_IDLE && !wantGradient) {
    bool more;
    if (phase == PHASE_LEAF) {
      endedFirst = leaf == 0;
      bool valid = end_leaf(leaf);
      tookProposal = proposalTaken;
      leaf++;
      if (valid && leaf < (1 << depth)) more = true;
      else {
        if (!mergeLoaded) {
          LOAD_MERGE_STATE(c);
          if (!tookProposal) LOAD_PROPOSAL_STATE(c);
          if (!endedFirst) LOAD_FIRST_STATE(c);
          mergeLoaded = true;
        }
        merged = true;
        if (valid && merge_subtree() && tree_continues()) { begin_subtree(); leaf = 0; more = true; }
        else more = false;
        PROF_MARK(PROF_MERGE);
      }
    } else {
      // begin_transition writes every merge vector.
      mergeLoaded = true;
      merged = true;
      begin_transition();
      more = tree_continues();
      if (more) { begin_subtree(); leaf = 0; }
      PROF_MARK(PROF_TRANSITION);
    }
    if (more) {
      leapfrog_drift();
      FOR_OWNED(s, i) bgq.v[base + i] = q[s];
      phase = PHASE_LEAF;
      wantGradient = true;
      PROF_MARK(PROF_DRIFT);
    } else {
      write_result(c, k);
      k++;
      iteration = bctrl.v[2] + k;
      if (k < count) phase = PHASE_BEGIN;
      else {
        phase = PHASE_IDLE;
        if (LEADER) atomicAdd(bdone.v[0], 1u);
      }
      PROF_MARK(PROF_TRANSITION);
    }
  }
  if (phase == PHASE_LEAF) {
    SAVE_LEAF_STATE(c);
    if (tookProposal) SAVE_PROPOSAL_STATE(c);
    if (endedFirst) SAVE_FIRST_STATE(c);
    if (merged) SAVE_MERGE_STATE(c);
  }
  PROF_MARK(PROF_SAVE);
  PROF_FLUSH(c);
  if (!LEADER) return;
  bis.v[ib + IS_PHASE] = phase; bis.v[ib + IS_K] = int(k);
  if (phase != PHASE_LEAF) return;
  SAVE_SCALARS(rb, ib);
  bis.v[ib + IS_LEAF] = leaf;
}
