import { type Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import { unflatten } from "./index-math.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import type { RenderLimits } from "./limits.ts";
import { passParts, type RowPass } from "./row-pass.ts";
import { Scope } from "./scope.ts";
import type { KernelPlan } from "./shader.ts";

// The row pass of many columns (many chains of a small regression: X [1000, 10], B [10, 1024]).
// Every row-local value is indexed by a row and a column of η, so a thread takes one column c: it
// holds column c of B and of Xᵀ·R in registers and runs over a chunk of the rows, each row of X
// read by all the workgroup's threads at once (one load they share). No shared memory, no
// barriers; each chunk's partial sums are merged in chunk order afterwards.

/** How a wide row pass spreads over workgroups. */
export interface WideRowPassLayout {
  /** Threads per workgroup: consecutive columns. */
  readonly threads: number;
  /** Workgroups across the columns. */
  readonly columnGroups: number;
  /** Rows of one chunk. */
  readonly chunk: number;
  /** Chunks of rows, each with its partial sums. */
  readonly chunks: number;
}

/**
 * Columns in workgroups of limits.localSize; rows in chunks (of at least 8) so that about
 * busyGroups workgroups run, and more where the driver's loop budget (lavapipe) caps a thread's rows.
 */
export function wideRowPassLayout(p: RowPass, limits: RenderLimits): WideRowPassLayout {
  const [N, K] = p.X.shape as [number, number];
  const C = p.eta.shape[1]!;
  const threads = Math.min(limits.localSize, C);
  const columnGroups = Math.ceil(C / threads);
  // A thread's iterations per row: its row of X (K terms), B's products and Xᵀ·R's.
  const perRow = 1 + 2 * K;
  const needed = Math.ceil((N * perRow) / (limits.maxLoopIterations / 2));
  const wanted = Math.min(Math.ceil(N / 8), Math.max(1, Math.floor(limits.busyGroups / columnGroups)));
  const chunk = Math.ceil(N / Math.max(needed, wanted));
  return { threads, columnGroups, chunk, chunks: Math.ceil(N / chunk) };
}

/** The kernels of a wide row pass: the pass, then one merge per reduction and contraction. */
export function wideRowPassKernels(p: RowPass, f: KernelFactory): KernelPlan[] {
  const { threads: G, columnGroups: CG, chunk, chunks: P } = wideRowPassLayout(p, f.limits);
  const { X, eta } = p;
  const [N, K] = X.shape as [number, number];
  const C = eta.shape[1]!;
  const B = eta.inputs[1]!;
  const Ty = glslType(eta.dtype);
  const zero = literal(0, eta.dtype);
  const sh = f.shader();
  // The thread's η of the current row is the variable e: row-local values read η only at their
  // own row and column (the pass's detection follows both axes).
  const { r, scratch, what, withMerges } = passParts(p, f, sh, P, () => "e");
  const terms = Array.from({ length: K }, (_, k) => k);
  const main = new Scope(undefined, "");
  main.emit(`int cg = gid % ${CG}; int part = gid / ${CG};`);
  // Threads past the last column compute with its values (reads stay in bounds) and write nothing.
  main.emit(`int c = cg * ${G} + int(gl_LocalInvocationIndex); int cc = min(c, ${C - 1});`);
  for (const k of terms) main.emit(`${Ty} bk${k} = ${r.value(B, [`${k}`, "cc"], main)};`);
  p.contractions.forEach((_, q) => main.emit(terms.map((k) => `${Ty} g${q}_${k} = ${zero};`).join(" ")));
  p.reductions.forEach((_, q) => main.emit(`${Ty} red${q} = ${zero};`));
  main.emit(`int rowEnd = min(${N}, part * ${chunk} + ${chunk});`);
  // The chunk's rows of X staged in shared memory first, all their loads in flight at once: the
  // row loop then waits on shared memory, not on a global load a row (H200, 1024 chains of a
  // 1000 × 10 regression: the pass 14.3 → 13.6 µs). Left out where they would crowd shared memory.
  const Tx = glslType(X.dtype);
  const stage = chunk * K * (X.dtype === "f64" ? 8 : 4) <= f.limits.sharedMemoryBytes / 4;
  const shared: string[] = [];
  if (stage) {
    shared.push(`shared ${Tx} ppl_xs[${chunk * K}];`);
    const load = main.child();
    load.emit(`int nn = min(part * ${chunk} + i / ${K}, ${N - 1}); int kk = i % ${K};`);
    load.emit(`ppl_xs[i] = ${r.value(X, ["nn", "kk"], load)};`);
    main.block(`for (int i = int(gl_LocalInvocationIndex); i < ${chunk * K}; i += ${G})`, load);
    main.emit("memoryBarrierShared(); barrier();");
  }
  const row = main.child();
  const xs = terms.map((k) => (stage ? (row.emit(`${Tx} xs${k} = ppl_xs[(n - part * ${chunk}) * ${K} + ${k}];`), `xs${k}`) : r.value(X, ["n", `${k}`], row)));
  row.emit(`${Ty} e = ${terms.map((k) => `${xs[k]} * bk${k}`).join(" + ")};`);
  if (p.writeEta) row.emit(`if (c < ${C}) ${sh.storage.write(eta, `n * ${C} + c`, "e")}`);
  p.reductions.forEach((n, q) => {
    const v = n.inputs[0]!;
    const idx = unflatten(n.shape, "cc");
    idx.splice(p.rowAxis.get(v)!, 0, "n");
    row.emit(`red${q} += ${r.value(v, idx, row)};`);
  });
  p.contractions.forEach((n, q) => {
    const v = r.value(n.inputs[1]!, ["n", "cc"], row);
    for (const k of terms) row.emit(`g${q}_${k} += ${xs[k]} * ${v};`);
  });
  main.block(`for (int n = part * ${chunk}; n < rowEnd; n++)`, row);
  const out = main.child();
  p.reductions.forEach((n, q) => out.emit(`${sh.bind(scratch.get(n)!, "write")}[part * ${n.size} + c] = red${q};`));
  p.contractions.forEach((n, q) => {
    for (const k of terms) out.emit(`${sh.bind(scratch.get(n)!, "write")}[part * ${n.size} + ${k * C} + c] = g${q}_${k};`);
  });
  main.block(`if (c < ${C})`, out);
  const pass = f.finish(
    {
      node: eta, localSize: G, workgroups: CG * P, units: C * P, shared, main: main.lines,
      title: `wide row pass over X [${N},${K}] and ${C} columns, a thread a column, ${P} chunks of ${chunk} rows: η = X·B, ${what}`,
    },
    sh,
  );
  return withMerges(pass);
}
