// NUTS transitions of one chain per thread (execution shape 1, docs/gpu-sampler.md) or per workgroup
// (shape 2), included after common.glsl: whole iterative transitions in one dispatch, the log
// density and gradient computed in place at every leapfrog by LOGP(), a statement that sets lp and
// g[] (owned slots) from q[] (owned slots), run by all of the chain's threads together.
// Push constants: this dispatch runs `count` iterations, the first of them (first iteration of the
// block + k0) writing slot k0. Each chain goes from one iteration to the next by itself, so a
// dispatch of many iterations waits only for the chain slowest over all of them, not at each.

layout(push_constant) uniform Push { uint k0; uint count; } pc;

// A profiling build (PPL_PROFILE, nuts-program.ts) adds each leapfrog's parts to the profile
// buffer as the leapfrog ends (PROF_NEXT); elsewhere the marks are empty.
#ifdef PPL_PROFILE
#define PROF_NEXT(c) { PROF_FLUSH(c); PROF_START(); }
#else
#define PROF_NEXT(c)
#endif

void main() {
  uint c = CHAIN_ID;
  if (c >= uint(CHAINS)) return;
  PROF_START();
  load_chain(c, bctrl.v[2] + pc.k0);
  load_point(c);
  PROF_MARK(PROF_LOAD);
  for (uint k = pc.k0; k < pc.k0 + pc.count; k++) {
    iteration = bctrl.v[2] + k;
    begin_transition();
    PROF_MARK(PROF_TRANSITION);
    while (tree_continues()) {
      begin_subtree();
      int size = 1 << depth;
      bool valid = true;
      for (int leaf = 0; leaf < size; leaf++) {
        leapfrog_drift();
        PROF_MARK(PROF_DRIFT);
        LOGP();
        PROF_MARK(PROF_LOGP);
        bool ended = end_leaf(leaf);
        // The subtree's last leaf is profiled with its merge.
        if (!ended || leaf + 1 < size) PROF_NEXT(c);
        if (!ended) { valid = false; break; }
      }
      if (!valid) break;
      bool continues = merge_subtree();
      PROF_MARK(PROF_MERGE);
      PROF_NEXT(c);
      if (!continues) break;
    }
    write_result(c, k);
    PROF_MARK(PROF_SAVE);
  }
  PROF_FLUSH(c);
}
