import { type Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import { unflatten } from "./index-math.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import type { RenderLimits } from "./limits.ts";
import { passParts, type RowPass } from "./row-pass.ts";
import { Scope } from "./scope.ts";
import type { KernelPlan } from "./shader.ts";

// The row pass of many columns (many chains of a small regression: X [1000, 10], B [10, 1024]).
// Every row-local value is indexed by a row and a column of η, so a thread takes one column c and
// one chunk of the rows: it holds column c of B and of Xᵀ·R in registers and runs over its chunk,
// each row of X read by all the threads of its chunk at once (one load they share). A workgroup
// holds `groupChunks` consecutive chunks for the same columns; at the end it adds its chunks' sums
// in shared memory, so that it leaves one partial per output, not one a chunk: the readers of
// those partials (a merge, or the kernels that add them inline: inline-slices.ts) run loops of a
// few loads instead of one a chunk, while the pass keeps its threads.
//
// The order of every sum is fixed: a chunk adds its rows in order; a workgroup adds its chunks'
// sums in chunk order (0 + chunk 0 + chunk 1 + …); the readers add the workgroups' partials in
// workgroup order (0 + partial 0 + partial 1 + …).

/** How a wide row pass spreads over workgroups. */
export interface WideRowPassLayout {
  /** Consecutive columns of a workgroup, one thread each in each of its chunks. */
  readonly columns: number;
  /** Consecutive chunks of rows a workgroup holds (their sums added in shared memory at the end). */
  readonly groupChunks: number;
  /** Threads per workgroup: columns · groupChunks, thread (column l, chunk s) at s · columns + l. */
  readonly threads: number;
  /** Workgroups across the columns. */
  readonly columnGroups: number;
  /** Rows of one chunk. */
  readonly chunk: number;
  /** Chunks of rows, a thread each per column. */
  readonly chunks: number;
  /** Workgroups along the rows, each leaving one partial sum per output: the partials a reader adds. */
  readonly partials: number;
}

/** Most partials of each output a wide pass leaves, where its workgroups can hold enough chunks. */
export const WIDE_PARTIALS = 16;

/**
 * Columns in groups of limits.localSize; rows in chunks (of at least 8) so that about busyGroups
 * chunks of a column group run (as many threads as that many workgroups of a chunk), and more where
 * the driver's loop budget (lavapipe) caps a thread's rows. A workgroup holds as few chunks as leave at most WIDE_PARTIALS partials, within
 * limits.groupSize threads and half of shared memory for the chunks' sums: no more, since a CPU
 * driver runs a workgroup on one core and fewer, larger workgroups would leave cores idle.
 */
export function wideRowPassLayout(p: RowPass, limits: RenderLimits): WideRowPassLayout {
  const [N, K] = p.X.shape as [number, number];
  const C = p.eta.shape[1]!;
  const columns = Math.min(limits.localSize, C);
  const columnGroups = Math.ceil(C / columns);
  // A thread's iterations per row: its row of X (K terms), B's products and Xᵀ·R's.
  const perRow = 1 + 2 * K;
  const needed = Math.ceil((N * perRow) / (limits.maxLoopIterations / 2));
  const wanted = Math.min(Math.ceil(N / 8), Math.max(1, Math.floor(limits.busyGroups / columnGroups)));
  const chunk = Math.ceil(N / Math.max(needed, wanted));
  const chunks = Math.ceil(N / chunk);
  const sums = p.reductions.length + K * p.contractions.length;
  const bytes = p.eta.dtype === "f64" ? 8 : 4;
  const fit = Math.floor(limits.sharedMemoryBytes / 2 / (columns * sums * bytes));
  const most = Math.max(1, Math.min(Math.floor(limits.groupSize / columns), fit));
  const groupChunks = Math.min(most, Math.ceil(chunks / WIDE_PARTIALS));
  return { columns, groupChunks, threads: columns * groupChunks, columnGroups, chunk, chunks, partials: Math.ceil(chunks / groupChunks) };
}

/** The kernels of a wide row pass: the pass, then one merge per reduction and contraction. */
export function wideRowPassKernels(p: RowPass, f: KernelFactory): KernelPlan[] {
  const { columns: G, groupChunks: S, threads, columnGroups: CG, chunk, chunks, partials: P } = wideRowPassLayout(p, f.limits);
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
  // Workgroup (cg, wg) holds columns cg·G … and chunks wg·S …; thread (l, s) column l of chunk s.
  main.emit(`int cg = gid % ${CG}; int wg = gid / ${CG};`);
  main.emit(S === 1
    ? "int l = int(gl_LocalInvocationIndex); int part = wg;"
    : `int l = int(gl_LocalInvocationIndex) % ${G}; int s = int(gl_LocalInvocationIndex) / ${G}; int part = wg * ${S} + s;`);
  // Threads past the last column compute with its values (reads stay in bounds) and write nothing.
  main.emit(`int c = cg * ${G} + l; int cc = min(c, ${C - 1});`);
  for (const k of terms) main.emit(`${Ty} bk${k} = ${r.value(B, [`${k}`, "cc"], main)};`);
  p.contractions.forEach((_, q) => main.emit(terms.map((k) => `${Ty} g${q}_${k} = ${zero};`).join(" ")));
  p.reductions.forEach((_, q) => main.emit(`${Ty} red${q} = ${zero};`));
  // A chunk past the last row (the last workgroup's) runs no rows and adds zeros.
  main.emit(`int rowEnd = min(${N}, part * ${chunk} + ${chunk});`);
  // The workgroup's rows of X (its chunks are consecutive) staged in shared memory first, all
  // their loads in flight at once: the row loop then waits on shared memory, not on a global load
  // a row (H200, 1024 chains of a 1000 × 10 regression: the pass 14.3 → 13.6 µs). Left out where
  // they would crowd shared memory.
  const Tx = glslType(X.dtype);
  const rows = S * chunk;
  const stage = rows * K * (X.dtype === "f64" ? 8 : 4) <= f.limits.sharedMemoryBytes / 4;
  const shared: string[] = [];
  if (stage) {
    shared.push(`shared ${Tx} ppl_xs[${rows * K}];`);
    const load = main.child();
    load.emit(`int nn = min(wg * ${rows} + i / ${K}, ${N - 1}); int kk = i % ${K};`);
    load.emit(`ppl_xs[i] = ${r.value(X, ["nn", "kk"], load)};`);
    main.block(`for (int i = int(gl_LocalInvocationIndex); i < ${rows * K}; i += ${threads})`, load);
    main.emit("memoryBarrierShared(); barrier();");
  }
  // The row's values vary with n, e and X's row; those of the column alone (α in η + α) are
  // computed before the loop (Scope.loop).
  const row = main.loop(["n", "e", ...terms.map((k) => `xs${k}`)]);
  const xs = terms.map((k) => (stage ? (row.emit(`${Tx} xs${k} = ppl_xs[(n - wg * ${rows}) * ${K} + ${k}];`), `xs${k}`) : r.value(X, ["n", `${k}`], row)));
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
  // Each sum: its buffer, its offset within the partial, its register.
  const sums = [
    ...p.reductions.map((n, q) => ({ buf: sh.bind(scratch.get(n)!, "write"), size: n.size, at: "", v: `red${q}` })),
    ...p.contractions.flatMap((n, q) => terms.map((k) => ({ buf: sh.bind(scratch.get(n)!, "write"), size: n.size, at: `${k * C} + `, v: `g${q}_${k}` }))),
  ];
  const out = main.child();
  if (S === 1) {
    for (const { buf, size, at, v } of sums) out.emit(`${buf}[wg * ${size} + ${at}c] = ${v};`);
    main.block(`if (c < ${C})`, out);
  } else {
    // Sum j of thread (l, s) at (j·S + s)·G + l: a warp's stores and loads are consecutive. Sum j
    // of column l is added over the chunks, in chunk order, by thread (l, j mod S).
    shared.push(`shared ${Ty} ppl_ws[${sums.length * threads}];`);
    sums.forEach(({ v }, j) => main.emit(`ppl_ws[${j * S} * ${G} + int(gl_LocalInvocationIndex)] = ${v};`));
    main.emit("memoryBarrierShared(); barrier();");
    sums.forEach(({ buf, size, at }, j) => {
      out.emit(`if (s == ${j % S}) { ${Ty} v = ${zero}; for (int q = 0; q < ${S}; q++) v += ppl_ws[(${j * S} + q) * ${G} + l]; ${buf}[wg * ${size} + ${at}c] = v; }`);
    });
    main.block(`if (c < ${C})`, out);
  }
  const pass = f.finish(
    {
      node: eta, localSize: threads, workgroups: CG * P, units: C * chunks, shared, main: main.lines,
      title: `wide row pass over X [${N},${K}] and ${C} columns, a thread a column and chunk, ${chunks} chunks of ${chunk} rows, ${S} a workgroup (${P} partials): η = X·B, ${what}`,
    },
    sh,
  );
  return withMerges(pass);
}
