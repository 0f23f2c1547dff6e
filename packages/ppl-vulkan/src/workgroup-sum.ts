/**
 * GLSL of a deterministic sum over a workgroup of `workgroup` threads (a power of two): a fixed
 * tree in the shared array `ppl_red0`, so every thread gets the same sum in the same rounding,
 * and the NUTS template's REDUCE_SUM(x) bound to it. The shared array is declared here.
 */
export function workgroupSumSource(real: "f32" | "f64", workgroup: number): string[] {
  const T = real === "f64" ? "double" : "float";
  return [
    `shared ${T} ppl_red0[${workgroup}];`,
    `${T} ppl_wg_sum(${T} x) {`,
    "  ppl_red0[LID] = x; barrier();",
    `  for (uint st = ${workgroup / 2}u; st > 0u; st >>= 1) { if (LID < st) ppl_red0[LID] += ppl_red0[LID + st]; barrier(); }`,
    `  ${T} r = ppl_red0[0]; barrier(); return r;`,
    "}",
    "#define REDUCE_SUM(x) ppl_wg_sum(x)",
  ];
}
