// Uniform and standard normal variates from one Philox block (x0, x1, x2, x3), as
// packages/ppl/src/random/streams.ts: u0 = uniform(x0, x1), u1 = uniform(x2, x3) and the
// Box-Muller pair n0 = r cos(2 pi u1), n1 = r sin(2 pi u1), r = sqrt(-2 log u0).
// f64: uniforms are bit-exact; normals use the fdlibm log/cos/sin ports (the algorithms JS
// Math uses), so they match the CPU to the last bit wherever the device rounds IEEE-exactly.
// f32: uniforms are the f64 ones correctly rounded to float (see ppl_uniform_f32); normals are
// computed in float, within a few float ulp of the f64 ones. Generic over REAL.

REAL PPL_SFX(ppl_uniform0)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.x, w.y); }
REAL PPL_SFX(ppl_uniform1)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.z, w.w); }

REAL PPL_SFX(ppl_box_muller_radius)(uvec4 w) {
  return sqrt(R(-2.0) * ppl_log(PPL_SFX(ppl_uniform)(w.x, w.y)));
}
REAL PPL_SFX(ppl_normal0)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_cos(R(6.283185307179586) * PPL_SFX(ppl_uniform)(w.z, w.w));
}
REAL PPL_SFX(ppl_normal1)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_sin(R(6.283185307179586) * PPL_SFX(ppl_uniform)(w.z, w.w));
}
