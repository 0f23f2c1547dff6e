import type { DType, Node } from "@ppl/tensor";
import type { RenderLimits } from "./limits.ts";
import { bufferDeclaration, HALF_STORAGE_EXTENSION, type Access, type Binding, type KernelPlan, type ScratchBuffer, type ShaderParts } from "./shader.ts";

// Horizontal fusion. A small model's gradient is a chain of tiny kernels, and on a GPU each
// dispatch and the barrier after it cost a few microseconds whatever the kernel does (an H200 ran
// hier's 22 gradient kernels in 70 µs, of which the data — 1.2 MB — need under 2). Kernels that
// touch no buffer another of them writes can run as one dispatch: each workgroup runs one of them,
// picked by its workgroup index. The program then costs its dependency depth in dispatches rather
// than its kernel count.

/** What assemble keeps of a kernel so that it can be merged with others later. */
export interface MergePieces {
  readonly parts: ShaderParts;
  /** How the kernel uses each of its bindings, in binding order. */
  readonly access: readonly Access[];
  readonly dtypes: ReadonlySet<DType>;
}

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
  const sets: MergeSet[] = [];
  for (const members of buckets.values()) {
    for (const set of mergeSets(members.map((i) => kernels[i]!), limits.maxStorageBuffers)) {
      const first = members[set[0]!]!;
      sets.push({ level: levels[first]!, first, key: keys[first]!, plans: set.map((s) => kernels[members[s]!]!) });
    }
  }
  sets.sort((a, b) => a.level - b.level || a.first - b.first);
  const runs = limits.chainLevels ? [...new Set(keys)].flatMap((key) => levelRuns(sets.filter((s) => s.key === key), limits)) : sets.map((s) => [s]);
  const placed = runs.map((run) => ({
    level: run[0]!.level, first: run[0]!.first,
    plan: run.length > 1 ? chainLevels(run.map((s) => s.plans), limits, prelude)
      : run[0]!.plans.length === 1 ? run[0]!.plans[0]! : mergeKernels(run[0]!.plans, limits, prelude),
  }));
  placed.sort((a, b) => a.level - b.level || a.first - b.first);
  return placed.map((m) => m.plan);
}

// Kernels of one dependency level (and group) that run as one dispatch.
interface MergeSet {
  readonly level: number;
  readonly first: number;
  readonly key: string;
  readonly plans: readonly KernelPlan[];
}

/**
 * Consecutive levels of one group (its sets in level order) cut into runs that can chain into one
 * dispatch: each level one set, every kernel with its pieces, one workgroup size that all of them
 * fit, and their bindings with the level counts within the device's limit.
 */
function levelRuns(sets: readonly MergeSet[], limits: RenderLimits): MergeSet[][] {
  const perLevel = new Map<number, number>();
  for (const s of sets) perLevel.set(s.level, (perLevel.get(s.level) ?? 0) + 1);
  const chainable = (s: MergeSet) => perLevel.get(s.level) === 1 && s.plans.every((k) => k.merge !== undefined);
  const runs: MergeSet[][] = [];
  let run: MergeSet[] = [];
  for (const s of sets) {
    const last = run[run.length - 1];
    if (last && chainable(s) && chainable(last) && s.level === last.level + 1 && fitsOneDispatch([...run, s].flatMap((r) => r.plans), limits)) run.push(s);
    else {
      if (run.length > 0) runs.push(run);
      run = [s];
    }
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

// One workgroup size for all: cooperative kernels of exactly it, the others of a divisor; and
// room for their bindings and the level counts.
function fitsOneDispatch(plans: readonly KernelPlan[], limits: RenderLimits): boolean {
  const size = Math.max(...plans.map((k) => k.localSize));
  const sizes = plans.every((k) => (cooperates(k.merge!.parts) ? k.localSize === size : size % k.localSize === 0));
  return sizes && new Set(plans.flatMap((k) => k.bindings)).size + 1 <= limits.maxStorageBuffers;
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

// The pieces of several kernels put together as one shader's: one binding table, the shared
// arrays, each kernel's main as a function of its workgroup index, and how to call it.
interface Composed {
  readonly size: number;
  readonly bindings: Binding[];
  readonly access: Map<Binding, Access>;
  readonly extensions: Set<string>;
  readonly shared: string[];
  readonly dtypes: Set<DType>;
  readonly functions: string[];
  /** Per kernel: its real workgroups and the call of its function from `g`. */
  readonly calls: { readonly real: number; readonly call: string }[];
  readonly titles: string[];
  readonly units: number;
  readonly half: Set<Binding>;
}

function compose(plans: readonly KernelPlan[]): Composed {
  const size = Math.max(...plans.map((k) => k.localSize));
  const bindings: Binding[] = [];
  const access = new Map<Binding, Access>();
  const extensions = new Set<string>();
  const sharedByName = new Map<string, string>();
  const dtypes = new Set<DType>();
  const functions: string[] = [];
  const calls: { real: number; call: string }[] = [];
  const titles: string[] = [];
  let units = 0;
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
    const args = pack === 1
      ? "g, gl_LocalInvocationIndex"
      : `g * ${pack} + int(gl_LocalInvocationIndex / ${k.localSize}u), gl_LocalInvocationIndex % ${k.localSize}u`;
    calls.push({ real: Math.ceil(parts.workgroups / pack), call: `ppl_part${p}(${args});` });
    titles.push(`//   part ${p}: ${describe(k)}`);
    units += k.units;
  });
  // A data buffer stored in 16 bits is so in every kernel that reads it.
  const half = new Set(plans.flatMap((k) => [...(k.half ?? [])]));
  if (half.size > 0) extensions.add(HALF_STORAGE_EXTENSION);
  return { size, bindings, access, extensions, shared: [...sharedByName.values()], dtypes, functions, calls, titles, units, half };
}

// The source of a composed shader around the body of its main and the plan that runs it.
function composedPlan(
  plans: readonly KernelPlan[], c: Composed, heading: string, main: readonly string[], groups: number,
  limits: RenderLimits, prelude: (dtypes: ReadonlySet<DType>) => string, coherent: ReadonlySet<Binding> = new Set(),
): KernelPlan {
  const gx = Math.max(1, Math.min(groups, limits.maxGroupCountX));
  const gy = Math.max(1, Math.ceil(groups / gx));
  const decls = c.bindings.map((b, i) => bufferDeclaration(b, i, c.access.get(b)!, c.half.has(b), coherent.has(b)));
  const source = [
    "#version 450",
    ...[...c.extensions].map((e) => `#extension ${e} : require`),
    heading,
    ...c.titles,
    `layout(local_size_x = ${c.size}) in;`,
    ...decls,
    ...c.shared,
    prelude(c.dtypes),
    ...c.functions,
    "void main() {",
    ...main.map((l) => `  ${l}`),
    "}",
    "",
  ].join("\n");
  const half = c.half;
  return { node: plans[0]!.node, nodes: plans.flatMap((k) => k.nodes), source, units: c.units, localSize: c.size, bindings: c.bindings, groups: [gx, gy], ...(half.size > 0 ? { half } : {}) };
}

/** One shader that runs each of `plans` on its own range of workgroups. */
function mergeKernels(plans: readonly KernelPlan[], limits: RenderLimits, prelude: (dtypes: ReadonlySet<DType>) => string): KernelPlan {
  const c = compose(plans);
  const main = ["int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);"];
  c.calls.forEach(({ real, call }, i) => {
    main.push(`if (g < ${real}) { ${call} return; }`);
    if (i < c.calls.length - 1) main.push(`g -= ${real};`); // nothing follows the last part
  });
  const groups = c.calls.reduce((a, k) => a + k.real, 0);
  return composedPlan(plans, c, `// ${plans.length} independent kernels in one dispatch, each on its own workgroups:`, main, groups, limits, prelude);
}

/**
 * One shader that runs dependent levels of kernels (each level's kernels independent of each
 * other) as one dispatch. Each workgroup takes a ticket when it starts, and runs the kernel whose
 * range holds it; a workgroup of level l > 0 first waits until every workgroup of level l - 1 has
 * counted itself done. Tickets go out in start order, so every workgroup waited for has started
 * and finishes without waiting on a later one: the dispatch cannot deadlock however few workgroups
 * run at once. The last workgroup of the last level sets the counts back to zero for the next
 * dispatch. The results are the same bits as one dispatch a level: each part is the same code on
 * the same workgroup indices.
 */
function chainLevels(levels: readonly (readonly KernelPlan[])[], limits: RenderLimits, prelude: (dtypes: ReadonlySet<DType>) => string): KernelPlan {
  const plans = levels.flat();
  // Words a cache line apart, so that polling one does not slow the atomics on another: the
  // tickets, then each level's count of workgroups done, then each level's flag "all done".
  const L = levels.length;
  const word = (i: number) => i * 32;
  const ticket = word(0), count = (l: number) => word(1 + l), flag = (l: number) => word(1 + L + l);
  const sync: ScratchBuffer = {
    kind: "scratch", dtype: "i32", size: word(1 + 2 * L), label: `level sync: the tickets, each of ${L} levels' count of workgroups done and its flag`, shared: true, polled: true,
  };
  const c = compose(plans);
  const s = `b${c.bindings.push(sync) - 1}.v`;
  c.access.set(sync, "readwrite");
  // A buffer that a level writes and a later one reads is read from where other workgroups wrote it.
  const coherent = new Set<Binding>();
  levels.forEach((level, l) => {
    const written = new Set(level.flatMap((k) => k.bindings.filter((_, i) => k.merge!.access[i] !== "read")));
    for (const later of levels.slice(l + 1)) for (const k of later) for (const b of k.bindings) if (written.has(b)) coherent.add(b);
  });
  c.shared.push("shared int ppl_ticket;");
  const counts = levels.map((level) => level.reduce((a, k) => a + c.calls[plans.indexOf(k)]!.real, 0));
  const main = [
    `if (gl_LocalInvocationIndex == 0u) ppl_ticket = atomicAdd(${s}[${ticket}], 1);`,
    "memoryBarrierShared(); barrier();",
    "int g = ppl_ticket;",
    "int ppl_level = 0;",
  ];
  let start = 0;
  levels.forEach((level, l) => {
    const body: string[] = [];
    if (l > 0) {
      // The leader waits for the previous level's count; the barrier holds the others until then.
      body.push(`if (gl_LocalInvocationIndex == 0u) { while (${s}[${flag(l - 1)}] == 0) {} }`, "barrier(); memoryBarrierBuffer();");
      body.push(`g -= ${start}; ppl_level = ${l};`);
    }
    let offset = 0;
    level.forEach((k, i) => {
      const { real, call } = c.calls[plans.indexOf(k)]!;
      const shifted = offset === 0 ? call : call.replace(/^(ppl_part\d+\()g\b/, `$1(g - ${offset})`);
      body.push(i === level.length - 1 ? `${i > 0 ? "else " : ""}{ ${shifted} }` : `${i > 0 ? "else " : ""}if (g < ${offset + real}) { ${shifted} }`);
      offset += real;
    });
    main.push(`${l > 0 ? "else " : ""}${l < levels.length - 1 ? `if (g < ${start + counts[l]!}) ` : ""}{`, ...body.map((b) => `  ${b}`), "}");
    start += counts[l]!;
  });
  main.push(
    `if (ppl_level < ${L - 1}) {`,
    // Every thread's stores are visible device-wide before its workgroup counts itself done; the
    // last of the level raises its flag.
    "  memoryBarrierBuffer(); barrier();",
    `  if (gl_LocalInvocationIndex == 0u) { int ppl_n = ${levels.slice(0, -1).map((_, l) => `ppl_level == ${l} ? ${counts[l]}`).join(" : ")} : 0; if (atomicAdd(${s}[${word(1)} + 32 * ppl_level], 1) == ppl_n - 1) ${s}[${word(1 + L)} + 32 * ppl_level] = 1; }`,
    "} else {",
    // The last level's results are read by later dispatches only: its count just tells the last
    // workgroup, which sets every word back to zero for the next dispatch.
    "  barrier();",
    `  if (gl_LocalInvocationIndex == 0u && atomicAdd(${s}[${count(L - 1)}], 1) == ${counts[L - 1]! - 1}) { for (int i = 0; i < ${1 + 2 * L}; i++) ${s}[32 * i] = 0; }`,
    "}",
  );
  const heading = `// ${levels.length} dependent levels of kernels in one dispatch (${counts.join(" + ")} workgroups), each level waiting for the one before:`;
  return composedPlan(plans, c, heading, main, start, limits, prelude, coherent);
}

function describe(k: KernelPlan): string {
  const n = k.node;
  const title = k.merge?.parts.title;
  return `${n.op} [${n.shape.join(",")}] (node ${n.hash})${title ? `: ${title}` : ""}`;
}
