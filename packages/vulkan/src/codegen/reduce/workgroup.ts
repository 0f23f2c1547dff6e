import type { ReduceMonoid } from "./monoid.ts";

/** GLSL pieces of a workgroup-wide reduction: shared declarations, extensions, and the statements. */
export interface WorkgroupReduce {
  readonly extensions: readonly string[];
  readonly shared: readonly string[];
  /** Statements run by every thread (uniform control flow); afterwards `leader` holds the merged state. */
  readonly lines: readonly string[];
  /** A GLSL bool: true in the one thread that holds the workgroup's result. */
  readonly leader: string;
}

/**
 * Merge the state `s` of all `groupSize` threads of a workgroup in a fixed order, so the result
 * is the same on every run. With subgroup arithmetic: merge within each subgroup, then the first
 * subgroup merges the subgroup results (each lane folding a fixed stride of them); without it: a
 * shared-memory tree, halving the active threads each step (`groupSize` is a power of two).
 */
export function workgroupReduce(monoid: ReduceMonoid, s: readonly string[], groupSize: number, subgroups: boolean): WorkgroupReduce {
  const sh = s.map((_, c) => `ppl_sh${c}`);
  const at = (i: string) => sh.map((a) => `${a}[${i}]`);
  const t = "gl_LocalInvocationIndex";
  if (subgroups) {
    return {
      extensions: ["GL_KHR_shader_subgroup_basic", "GL_KHR_shader_subgroup_arithmetic", "GL_KHR_shader_subgroup_vote"],
      // At most one slot per subgroup; subgroups have at least one lane, so groupSize slots always suffice.
      shared: sh.map((a) => `shared ${monoid.type} ${a}[${groupSize}];`),
      lines: [
        ...monoid.subgroup(s),
        `if (subgroupElect()) { ${at("gl_SubgroupID").map((a, c) => `${a} = ${s[c]};`).join(" ")} }`,
        "memoryBarrierShared(); barrier();",
        "if (gl_SubgroupID == 0) {",
        `  ${s.map((v, c) => `${v} = ${monoid.identity[c]};`).join(" ")}`,
        "  for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) {",
        ...monoid.merge(s, at("i")).map((l) => `    ${l}`),
        "  }",
        ...monoid.subgroup(s).map((l) => `  ${l}`),
        "}",
      ],
      leader: "(gl_SubgroupID == 0 && subgroupElect())",
    };
  }
  return {
    extensions: [],
    shared: sh.map((a) => `shared ${monoid.type} ${a}[${groupSize}];`),
    lines: [
      `${at(t).map((a, c) => `${a} = ${s[c]};`).join(" ")}`,
      "memoryBarrierShared(); barrier();",
      `for (uint st = ${groupSize / 2}u; st > 0u; st >>= 1) {`,
      `  if (${t} < st) {`,
      ...monoid.merge(s, at(`${t} + st`)).map((l) => `    ${l}`),
      `    ${at(t).map((a, c) => `${a} = ${s[c]};`).join(" ")}`,
      "  }",
      "  memoryBarrierShared(); barrier();",
      "}",
    ],
    leader: `(${t} == 0)`,
  };
}
