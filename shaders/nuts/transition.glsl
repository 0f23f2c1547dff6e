// NUTS transition of one chain per thread (execution shape 1 of DESIGN.md) or per workgroup
// (shape 2), included after common.glsl: the whole iterative transition in one dispatch, the log
// density and gradient computed in place at every leapfrog by LOGP(), a statement that sets lp and
// g[] (owned slots) from q[] (owned slots), run by all of the chain's threads together.
// Push constant k: this dispatch runs iteration (first iteration + k) and writes slot k.

layout(push_constant) uniform Push { uint k; } pc;

void main() {
  uint c = CHAIN_ID;
  if (c >= uint(CHAINS)) return;
  load_chain(c, bctrl.v[2] + pc.k);
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
  write_result(c, pc.k);
}
