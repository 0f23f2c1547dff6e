/** Sums REDUCE_SUMS adds at once: the six dot products of three U-turn checks. */
const SUMS = 6;

/** Elements of shared memory workgroupSumSource declares for a workgroup (ppl_wsum and ppl_wsums). */
export function workgroupSumShared(workgroup: number): number {
  return (1 + SUMS) * workgroup;
}

/**
 * GLSL of a deterministic sum over a workgroup of `workgroup` threads (a power of two), and the
 * NUTS template's REDUCE_SUM(x) bound to it: every thread gets the same sum in the same rounding.
 * With subgroup arithmetic, each subgroup adds its lanes and every thread then adds the subgroup
 * sums in order (two barriers); without it, a fixed tree in shared memory (log2(W) + 2 barriers).
 * REDUCE_SUMS(v, n) adds the first n entries of a PPL_SUMS array the same way, all at once (one
 * round of barriers for several dot products). The shared arrays `ppl_wsum` and `ppl_wsums` are
 * declared here. The including shader enables the subgroup extensions (subgroupExtensions) when
 * `subgroups` is set.
 */
export function workgroupSumSource(real: "f32" | "f64", workgroup: number, subgroups = false): string[] {
  const T = real === "f64" ? "double" : "float";
  if (subgroups) {
    return [
      `#define PPL_SUMS ${SUMS}`,
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
      // Several sums at once (REDUCE_SUMS), each added as ppl_wg_sum adds one: the same rounding.
      `shared ${T} ppl_wsums[${SUMS * workgroup}];`,
      `void ppl_wg_sums(inout ${T} v[PPL_SUMS], int n) {`,
      `  for (int j = 0; j < n; j++) { ${T} s = subgroupAdd(v[j]); if (subgroupElect()) ppl_wsums[gl_SubgroupID * PPL_SUMS + j] = s; }`,
      "  barrier();",
      `  for (int j = 0; j < n; j++) { ${T} r = ppl_wsums[j]; for (uint i = 1u; i < gl_NumSubgroups; i++) r += ppl_wsums[i * PPL_SUMS + j]; v[j] = r; }`,
      "  barrier();",
      "}",
      "#define REDUCE_SUMS(v, n) ppl_wg_sums(v, n)",
    ];
  }
  return [
    `#define PPL_SUMS ${SUMS}`,
    `shared ${T} ppl_wsum[${workgroup}];`,
    `${T} ppl_wg_sum(${T} x) {`,
    "  ppl_wsum[LID] = x; barrier();",
    `  for (uint st = ${workgroup / 2}u; st > 0u; st >>= 1) { if (LID < st) ppl_wsum[LID] += ppl_wsum[LID + st]; barrier(); }`,
    `  ${T} r = ppl_wsum[0]; barrier(); return r;`,
    "}",
    "#define REDUCE_SUM(x) ppl_wg_sum(x)",
    `shared ${T} ppl_wsums[${SUMS * workgroup}];`,
    `void ppl_wg_sums(inout ${T} v[PPL_SUMS], int n) {`,
    `  for (int j = 0; j < n; j++) ppl_wsums[j * ${workgroup} + int(LID)] = v[j];`,
    "  barrier();",
    `  for (uint st = ${workgroup / 2}u; st > 0u; st >>= 1) { if (LID < st) for (int j = 0; j < n; j++) ppl_wsums[j * ${workgroup} + int(LID)] += ppl_wsums[j * ${workgroup} + int(LID + st)]; barrier(); }`,
    `  for (int j = 0; j < n; j++) v[j] = ppl_wsums[j * ${workgroup}];`,
    "  barrier();",
    "}",
    "#define REDUCE_SUMS(v, n) ppl_wg_sums(v, n)",
  ];
}

/** The NUTS template's sums with one thread per chain: the thread's own values are the sums. */
export function threadSumSource(): string[] {
  return [`#define PPL_SUMS ${SUMS}`, "#define REDUCE_SUM(x) (x)", "#define REDUCE_SUMS(v, n)"];
}

/** The #extension lines a shader needs for subgroup sums and merges (after #version). */
export const SUBGROUP_EXTENSIONS: readonly string[] = [
  "#extension GL_KHR_shader_subgroup_basic : require",
  "#extension GL_KHR_shader_subgroup_arithmetic : require",
  "#extension GL_KHR_shader_subgroup_vote : require",
];
