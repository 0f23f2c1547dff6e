/**
 * GLSL of a deterministic sum over a workgroup of `workgroup` threads (a power of two), and the
 * NUTS template's REDUCE_SUM(x) bound to it: every thread gets the same sum in the same rounding.
 * With subgroup arithmetic, each subgroup adds its lanes and every thread then adds the subgroup
 * sums in order (two barriers); without it, a fixed tree in shared memory (log2(W) + 2 barriers).
 * The shared array `ppl_wsum` is declared here. The including shader enables the subgroup
 * extensions (subgroupExtensions) when `subgroups` is set.
 */
export function workgroupSumSource(real: "f32" | "f64", workgroup: number, subgroups = false): string[] {
  const T = real === "f64" ? "double" : "float";
  if (subgroups) {
    return [
      `shared ${T} ppl_wsum[${workgroup}];`,
      `${T} ppl_wg_sum(${T} x) {`,
      `  ${T} s = subgroupAdd(x);`,
      "  if (subgroupElect()) ppl_wsum[gl_SubgroupID] = s;",
      "  barrier();",
      `  ${T} r = ppl_wsum[0];`,
      "  for (uint i = 1u; i < gl_NumSubgroups; i++) r += ppl_wsum[i];",
      "  barrier(); return r;",
      "}",
      "#define REDUCE_SUM(x) ppl_wg_sum(x)",
    ];
  }
  return [
    `shared ${T} ppl_wsum[${workgroup}];`,
    `${T} ppl_wg_sum(${T} x) {`,
    "  ppl_wsum[LID] = x; barrier();",
    `  for (uint st = ${workgroup / 2}u; st > 0u; st >>= 1) { if (LID < st) ppl_wsum[LID] += ppl_wsum[LID + st]; barrier(); }`,
    `  ${T} r = ppl_wsum[0]; barrier(); return r;`,
    "}",
    "#define REDUCE_SUM(x) ppl_wg_sum(x)",
  ];
}

/** The #extension lines a shader needs for subgroup sums and merges (after #version). */
export const SUBGROUP_EXTENSIONS: readonly string[] = [
  "#extension GL_KHR_shader_subgroup_basic : require",
  "#extension GL_KHR_shader_subgroup_arithmetic : require",
  "#extension GL_KHR_shader_subgroup_vote : require",
];
