import type { DType, Node } from "@ppl/tensor";
import type { RenderLimits } from "./limits.ts";
import type { Access, Binding, KernelPlan, ShaderParts } from "./kernel-plan.ts";
import { bufferDeclaration, HALF_STORAGE_EXTENSION } from "./shader.ts";

// Horizontal fusion. A small model's gradient is a chain of tiny kernels, and on a GPU each
// dispatch and the barrier after it cost a few microseconds whatever the kernel does (an H200 ran
// hier's 22 gradient kernels in 70 µs, of which the data — 1.2 MB — need under 2). Kernels that
// touch no buffer another of them writes can run as one dispatch: each workgroup runs one of them,
// picked by its workgroup index. The program then costs its dependency depth in dispatches rather
// than its kernel count.

/**
 * Merge the kernels of a program (in run order) that may run at the same time into single
 * dispatches. Kernel j must follow kernel i when they share a buffer and either writes it; the
 * result lists the merged kernels by dependency level. Only kernels with the same `group` key are
 * merged, and only they order each other: a caller runs each group's kernels as a sequence of its
 * own (those that read only data once, before any of those run at every evaluation).
 */
export function mergeIndependentKernels(
  kernels: readonly KernelPlan[],
  limits: RenderLimits,
  prelude: (dtypes: ReadonlySet<DType>) => string,
  group: (node: Node) => string = () => "",
): KernelPlan[] {
  // Levels are counted within each group: a caller runs a group's kernels apart from the others'.
  const keys = kernels.map((k) => group(k.node));
  const levels = new Array<number>(kernels.length);
  for (const key of new Set(keys)) {
    const members = kernels.flatMap((_, i) => (keys[i] === key ? [i] : []));
    dependencyLevels(members.map((i) => kernels[i]!)).forEach((l, j) => (levels[members[j]!] = l));
  }
  const buckets = new Map<string, number[]>();
  kernels.forEach((_, i) => {
    const key = `${levels[i]}|${keys[i]}`;
    buckets.set(key, [...(buckets.get(key) ?? []), i]);
  });
  const merged: { level: number; first: number; plan: KernelPlan }[] = [];
  for (const members of buckets.values()) {
    for (const set of mergeSets(members.map((i) => kernels[i]!), limits.maxStorageBuffers)) {
      const first = members[set[0]!]!;
      const plans = set.map((s) => kernels[members[s]!]!);
      merged.push({ level: levels[first]!, first, plan: plans.length === 1 ? plans[0]! : mergeKernels(plans, limits, prelude) });
    }
  }
  merged.sort((a, b) => a.level - b.level || a.first - b.first);
  return merged.map((m) => m.plan);
}

/** Each kernel's level: one more than the highest level of an earlier kernel it must follow. */
export function dependencyLevels(kernels: readonly KernelPlan[]): number[] {
  const levels: number[] = [];
  const access = kernels.map(accessOf);
  kernels.forEach((k, i) => {
    let level = 0;
    for (let j = 0; j < i; j++) {
      const before = kernels[j]!;
      const conflict = k.bindings.some((b, x) => {
        const y = before.bindings.indexOf(b);
        return y >= 0 && (access[i]![x] !== "read" || access[j]![y] !== "read");
      });
      if (conflict) level = Math.max(level, levels[j]! + 1);
    }
    levels.push(level);
  });
  return levels;
}

// A kernel without pieces (rendered elsewhere) counts as writing everything it binds.
function accessOf(k: KernelPlan): readonly Access[] {
  return k.merge?.access ?? k.bindings.map(() => "readwrite");
}

// A kernel that synchronises its workgroup needs all its threads in one real workgroup of its own
// size; one that does not can run as several virtual workgroups packed into a larger one.
function cooperates(p: ShaderParts): boolean {
  return (p.shared?.length ?? 0) > 0 || (p.extensions?.length ?? 0) > 0 || p.main.some((l) => /barrier\(|subgroup/.test(l));
}

/**
 * Partition kernels of one level into sets that merge: cooperative kernels by workgroup size;
 * the others join the set of the largest size that is a multiple of theirs; a set whose kernels
 * bind more than `maxBuffers` distinct buffers together is cut in order. Returns index sets.
 */
function mergeSets(plans: readonly KernelPlan[], maxBuffers: number): number[][] {
  return bySize(plans).flatMap((set) => withinBindings(set, plans, maxBuffers));
}

// Consecutive runs of a set whose union of bindings stays within the device's limit.
function withinBindings(set: readonly number[], plans: readonly KernelPlan[], maxBuffers: number): number[][] {
  const out: number[][] = [];
  let run: number[] = [];
  let bound = new Set<Binding>();
  for (const i of set) {
    const union = new Set([...bound, ...plans[i]!.bindings]);
    if (run.length > 0 && union.size > maxBuffers) {
      out.push(run);
      run = [i];
      bound = new Set(plans[i]!.bindings);
    } else {
      run.push(i);
      bound = union;
    }
  }
  if (run.length > 0) out.push(run);
  return out;
}

function bySize(plans: readonly KernelPlan[]): number[][] {
  const sets = new Map<number, number[]>();
  const alone: number[][] = [];
  const simple: number[] = [];
  plans.forEach((k, i) => {
    if (!k.merge) alone.push([i]);
    else if (cooperates(k.merge.parts)) sets.set(k.localSize, [...(sets.get(k.localSize) ?? []), i]);
    else simple.push(i);
  });
  for (const i of simple) {
    const size = plans[i]!.localSize;
    const host = [...sets.keys()].filter((s) => s % size === 0).sort((a, b) => b - a)[0];
    if (host !== undefined) sets.get(host)!.push(i);
    else {
      // No cooperative set fits: simple kernels gather under the largest size that they all divide.
      const target = [...sets.keys(), size].filter((s) => s % size === 0).sort((a, b) => b - a)[0]!;
      sets.set(target, [...(sets.get(target) ?? []), i]);
    }
  }
  return [...alone, ...[...sets.values()].map((s) => s.sort((a, b) => a - b))];
}

/** One shader that runs each of `plans` on its own range of workgroups. */
function mergeKernels(plans: readonly KernelPlan[], limits: RenderLimits, prelude: (dtypes: ReadonlySet<DType>) => string): KernelPlan {
  const size = Math.max(...plans.map((k) => k.localSize));
  const bindings: Binding[] = [];
  const access = new Map<Binding, Access>();
  const extensions = new Set<string>();
  const sharedByName = new Map<string, string>();
  const dtypes = new Set<DType>();
  const functions: string[] = [];
  const calls: string[] = [];
  const titles: string[] = [];
  let groups = 0, units = 0;
  plans.forEach((k, p) => {
    const pieces = k.merge!;
    const { parts } = pieces;
    // Binding i of this kernel becomes binding renumber[i] of the merged one.
    const renumber = k.bindings.map((b, i) => {
      let j = bindings.indexOf(b);
      if (j < 0) j = bindings.push(b) - 1;
      const before = access.get(b);
      const a = pieces.access[i]!;
      access.set(b, before === undefined || before === a ? a : "readwrite");
      return j;
    });
    // Shared arrays: the same declaration is one array (only one kernel runs in a workgroup);
    // a name declared differently by an earlier kernel is renamed in this one.
    const renames = new Map<string, string>();
    for (const decl of parts.shared ?? []) {
      const name = /^shared\s+\w+\s+(\w+)/.exec(decl)?.[1];
      if (!name) throw new Error(`merge-kernels: cannot read the shared declaration '${decl}'`);
      const seen = sharedByName.get(name);
      if (seen === undefined || seen === decl) sharedByName.set(name, decl);
      else {
        const fresh = `${name}_k${p}`;
        renames.set(name, fresh);
        sharedByName.set(fresh, decl.replace(new RegExp(`\\b${name}\\b`), fresh));
      }
    }
    for (const e of parts.extensions ?? []) extensions.add(e);
    for (const d of pieces.dtypes) dtypes.add(d);
    const rewrite = (line: string) => {
      let out = line.replace(/\bb(\d+)\.v\b/g, (_, i: string) => `b${renumber[Number(i)]}.v`).replace(/\bgl_LocalInvocationIndex\b/g, "ppl_lid");
      for (const [from, to] of renames) out = out.replace(new RegExp(`\\b${from}\\b`, "g"), to);
      return out;
    };
    functions.push(
      `// part ${p}: ${describe(k)}`,
      `void ppl_part${p}(int gid, uint ppl_lid) {`,
      `  if (gid >= ${parts.workgroups}) return;`,
      ...parts.main.map((l) => `  ${rewrite(l)}`),
      "}",
    );
    // A kernel of a smaller workgroup runs `pack` of its workgroups in each real one.
    const pack = size / k.localSize;
    const real = Math.ceil(parts.workgroups / pack);
    const args = pack === 1
      ? "g, gl_LocalInvocationIndex"
      : `g * ${pack} + int(gl_LocalInvocationIndex / ${k.localSize}u), gl_LocalInvocationIndex % ${k.localSize}u`;
    calls.push(`if (g < ${real}) { ppl_part${p}(${args}); return; }`, `g -= ${real};`);
    titles.push(`//   part ${p}: ${describe(k)}`);
    groups += real;
    units += k.units;
  });
  calls.pop(); // nothing follows the last part
  const gx = Math.max(1, Math.min(groups, limits.maxGroupCountX));
  const gy = Math.max(1, Math.ceil(groups / gx));
  // A data buffer stored in 16 bits is so in every kernel that reads it.
  const half = new Set(plans.flatMap((k) => [...(k.half ?? [])]));
  if (half.size > 0) extensions.add(HALF_STORAGE_EXTENSION);
  const decls = bindings.map((b, i) => bufferDeclaration(b, i, access.get(b)!, half.has(b)));
  const source = [
    "#version 450",
    ...[...extensions].map((e) => `#extension ${e} : require`),
    `// ${plans.length} independent kernels in one dispatch, each on its own workgroups:`,
    ...titles,
    `layout(local_size_x = ${size}) in;`,
    ...decls,
    ...sharedByName.values(),
    prelude(dtypes),
    ...functions,
    "void main() {",
    "  int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);",
    ...calls.map((l) => `  ${l}`),
    "}",
    "",
  ].join("\n");
  return { node: plans[0]!.node, nodes: plans.flatMap((k) => k.nodes), source, units, localSize: size, bindings, groups: [gx, gy], ...(half.size > 0 ? { half } : {}) };
}

function describe(k: KernelPlan): string {
  const n = k.node;
  const title = k.merge?.parts.title;
  return `${n.op} [${n.shape.join(",")}] (node ${n.hash})${title ? `: ${title}` : ""}`;
}
