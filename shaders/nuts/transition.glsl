// NUTS transitions of one chain per thread (execution shape 1 of DESIGN.md) or per workgroup
// (shape 2), included after common.glsl: whole iterative transitions in one dispatch, the log
// density and gradient computed in place at every leapfrog by LOGP(), a statement that sets lp and
// g[] (owned slots) from q[] (owned slots), run by all of the chain's threads together.
// Push constants: this dispatch runs `count` iterations, the first of them (first iteration of the
// block + k0) writing slot k0. Each chain goes from one iteration to the next by itself, so a
// dispatch of many iterations waits only for the chain slowest over all of them, not at each.

layout(push_constant) uniform Push { uint k0; uint count; } pc;

void main() {
  uint c = CHAIN_ID;
  if (c >= uint(CHAINS)) return;
  load_chain(c, bctrl.v[2] + pc.k0);
  load_point(c);
  for (uint k = pc.k0; k < pc.k0 + pc.count; k++) {
    iteration = bctrl.v[2] + k;
    begin_transition();
    while (tree_continues()) {
      begin_subtree();
      int size = 1 << depth;
      bool valid = true;
      for (int leaf = 0; leaf < size; leaf++) {
        leapfrog_drift();
        LOGP();
        if (!end_leaf(leaf)) { valid = false; break; }
      }
      if (!valid || !merge_subtree()) break;
    }
    write_result(c, k);
  }
}
