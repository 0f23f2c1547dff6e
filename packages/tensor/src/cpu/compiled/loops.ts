import type { Node } from "../../ir/node.ts";
import { isElementwise, isReduce, isView } from "../../ir/ops.ts";
import { stridesOf } from "../../ir/shape.ts";
import { reduceIdentity } from "../reduce-identity.ts";
import type { ArrayRef, RenderContext } from "./context.ts";
import { scaled, sumExpr } from "./context.ts";
import { elementwiseExpr, literal, roundExpr, roundValue } from "./expr.ts";
import { viewLayout, type Layout } from "./layout.ts";
import type { LoopKernel, Scope } from "./loop-nest.ts";
import { expSharing } from "./shared-exp.ts";
import { indexCheck, reducedAxesOf, isFusedGather, isFusedScatter } from "./fused-indexing.ts";

/**
 * Renders a fused loop kernel. First a tree of blocks (one per scope) with every memory access
 * as an address over loop axes; then adjacent axes that every address walks contiguously are
 * merged (so a fused chain over contiguous buffers is one flat loop); then JS is printed.
 */

interface Axis {
  readonly id: number;
  readonly extent: number;
}

/** base offset + Σ axis · stride into an array. */
interface Address {
  readonly ref: ArrayRef;
  readonly start: number;
  readonly terms: ReadonlyMap<number, number>;
}

type Operand = { readonly text: string } | { readonly addr: Address };

type Stmt =
  | { readonly kind: "compute"; readonly node: Node; readonly args: readonly Operand[] }
  | { readonly kind: "pad"; readonly node: Node; readonly axis: number | undefined; readonly from: number; readonly to: number; readonly value: Operand; readonly fill: string }
  // Sibling reductions sharing one inner loop (see siblings.ts): one accumulator and one value each;
  // a fused scatter-add (fused-indexing.ts) adds its value into its output at its index instead.
  | { readonly kind: "reduce"; readonly nodes: readonly Node[]; readonly inner: Block; readonly values: readonly Operand[]; readonly scatters: readonly (Scatter | undefined)[] }
  // A fused gather: the table's entry at the index.
  | { readonly kind: "gather"; readonly node: Node; readonly axis: number | undefined; readonly index: Operand; readonly table: Table }
  | { readonly kind: "store"; readonly node: Node; readonly addr: Address }
  | { readonly kind: "accumulate"; readonly node: Node; readonly value: Operand; readonly addr: Address; readonly scratch?: Address };

/** Where a fused scatter-add accumulates: its output, at the index read in the loop. */
interface Scatter {
  readonly out: ArrayRef;
  readonly index: Operand;
}

/** A gathered vector: a literal, or a buffer window read at start + j · stride. */
type Table = { readonly text: string } | { readonly ref: ArrayRef; readonly start: number; readonly stride: number };

interface Block {
  readonly axes: readonly Axis[];
  readonly stmts: Stmt[];
}

/** Merged loop: axes [first..last] become one variable. */
interface Group {
  readonly name: string;
  readonly extent: number;
  readonly last: number;
}

/** What printing a kernel's blocks shares. */
interface Printer {
  readonly groups: ReadonlyMap<number, Group>;
  readonly ctx: RenderContext;
  /** The next number for a hoisted read's name (`h0`, `h1`, … in a kernel). */
  next: number;
}


/** JS statements of one fused loop kernel. */
export function renderLoopKernel(k: LoopKernel, ctx: RenderContext): string[] {
  const { schedule } = ctx;
  let nextAxis = 0;
  const axesFor = (shape: readonly number[]) => {
    const dims: (number | undefined)[] = [];
    const axes: Axis[] = [];
    for (const d of shape) {
      if (d !== 1) {
        axes.push({ id: nextAxis, extent: d });
        dims.push(nextAxis++);
      } else dims.push(undefined);
    }
    return { dims, axes };
  };
  const v = (n: Node) => `v${ctx.id(n)}`;

  const address = (ref: ArrayRef, start: number, shape: readonly number[], strides: readonly number[], dims: readonly (number | undefined)[]): Address => {
    const off = dims.length - shape.length;
    const terms = new Map<number, number>();
    shape.forEach((d, a) => {
      if (d <= 1 || strides[a] === 0) return;
      const axis = dims[a + off];
      if (axis === undefined) throw new Error(`compiled CPU: shape [${shape}] does not fit its loop (scheduler bug)`);
      terms.set(axis, (terms.get(axis) ?? 0) + strides[a]!);
    });
    return { ref, start, terms };
  };
  const load = (l: Layout, dims: readonly (number | undefined)[]): Operand =>
    l.kind === "lit" ? { text: literal(l.value) } : { addr: address(ctx.source(l.source), l.start, l.shape, l.strides, dims) };
  const operand = (x: Node, s: Scope, dims: readonly (number | undefined)[]): Operand =>
    schedule.scopeOf.get(x) === s ? { text: v(x) } : load(schedule.layout(x), dims);
  const storeAt = (n: Node, dims: readonly (number | undefined)[]) => address(ctx.target(n), 0, n.shape, stridesOf(n.shape), dims);

  const build = (s: Scope, dims: readonly (number | undefined)[], axes: readonly Axis[]): Block => {
    const stmts: Stmt[] = [];
    const looped = new Set<Scope>();
    for (const n of s.nodes) {
      if (isReduce(n.op) || isFusedScatter(n)) {
        const inner = schedule.innerOf.get(n)!;
        // The first of sibling reductions runs their shared loop; the others' values are locals by then.
        if (looped.has(inner)) continue;
        looped.add(inner);
        const siblings = s.nodes.filter((m) => (isReduce(m.op) || isFusedScatter(m)) && schedule.innerOf.get(m) === inner);
        const reduced = reducedAxesOf(n);
        const innerDims: (number | undefined)[] = [];
        const innerAxes: Axis[] = [];
        let kept = 0;
        inner.shape.forEach((d, j) => {
          if (reduced.includes(j)) {
            if (d !== 1) {
              innerAxes.push({ id: nextAxis, extent: d });
              innerDims.push(nextAxis++);
            } else innerDims.push(undefined);
          } else innerDims.push(dims[kept++ + dims.length - n.rank]);
        });
        const block = build(inner, innerDims, innerAxes);
        const values = siblings.map((m) => operand(m.inputs[0]!, inner, innerDims));
        const scatters = siblings.map((m) => (isFusedScatter(m) ? { out: ctx.target(m), index: operand(m.inputs[1]!, inner, innerDims) } : undefined));
        stmts.push({ kind: "reduce", nodes: siblings, inner: block, values, scatters });
        // A scatter-add's output is written in the loop.
        for (const m of siblings) if (schedule.written.has(m) && !isFusedScatter(m)) stmts.push({ kind: "store", node: m, addr: storeAt(m, dims) });
        continue;
      } else if (isElementwise(n.op)) {
        stmts.push({ kind: "compute", node: n, args: n.inputs.map((x) => operand(x, s, dims)) });
      } else if (isFusedGather(n)) {
        const l = schedule.layout(n.inputs[0]!);
        const table: Table = l.kind === "lit" ? { text: literal(l.value) } : { ref: ctx.source(l.source), start: l.start, stride: l.strides[0]! };
        stmts.push({ kind: "gather", node: n, axis: dims[dims.length - 1], index: operand(n.inputs[1]!, s, dims), table });
      } else if (n.op === "pad") {
        // A vector padded in the loop over its own shape: x[i − before] inside, the fill outside.
        const x = n.inputs[0]!;
        const before = n.attrs.widths![0]![0];
        const l = schedule.layout(x);
        // A one-element input has no term for the loop's axis in its address: it is read at its start.
        const value: Operand =
          l.kind === "lit"
            ? { text: literal(l.value) }
            : { addr: address(ctx.source(l.source), l.start - (x.shape[0]! > 1 ? before * l.strides[0]! : 0), l.shape, l.strides, dims) };
        const fill = literal(roundValue(n.dtype, n.attrs.padValue ?? 0));
        stmts.push({ kind: "pad", node: n, axis: dims[dims.length - 1], from: before, to: before + x.shape[0]!, value, fill });
      } else {
        // A leaf or view copied into its own buffer: read it through the view's window.
        const l = isView(n.op) ? viewLayout(n, schedule.layout(n.inputs[0]!)) : schedule.layout(n);
        stmts.push({ kind: "compute", node: n, args: [load(l, dims)] });
      }
      if (schedule.written.has(n)) stmts.push({ kind: "store", node: n, addr: storeAt(n, dims) });
    }
    return { axes, stmts };
  };

  let block: Block;
  const r = k.scatter;
  const pre: string[] = [];
  const post: string[] = [];
  if (r) {
    // Row-major over the input; each element accumulates into out[kept index].
    const { dims, axes } = axesFor(k.main.shape);
    block = build(k.main, dims, axes);
    const keptStrides: number[] = [];
    const outStrides = stridesOf(r.shape);
    let kept = 0;
    k.main.shape.forEach((_, j) => keptStrides.push(r.attrs.axes!.includes(j) ? 0 : outStrides[kept++]!));
    const out = ctx.target(r);
    const addr = address(out, 0, k.main.shape, keptStrides, dims);
    const value = operand(r.inputs[0]!, k.main, dims);
    const o = `f${ctx.id(r)}`;
    const at = `${out.name}[${sumExpr(out.offset, o)}]`;
    pre.push(`for (let ${o} = 0; ${o} < ${r.size}; ${o}++) ${at} = ${literal(reduceIdentity(r.op, r.dtype))};`);
    if (r.op === "reduce_logsumexp") {
      const s = ctx.scratch(r.size, `sum of exp for n${ctx.id(r)}`);
      block.stmts.push({ kind: "accumulate", node: r, value, addr, scratch: { ref: { name: s, offset: "0" }, start: 0, terms: addr.terms } });
      pre.push(`${s}.fill(0);`);
      post.push(`for (let ${o} = 0; ${o} < ${r.size}; ${o}++) {`, `  const m = ${at};`, `  if (m > -Infinity && m < Infinity) ${at} = m + Math.log(${s}[${o}]);`, `}`);
    } else block.stmts.push({ kind: "accumulate", node: r, value, addr });
    if (r.dtype !== "f64") post.push(`for (let ${o} = 0; ${o} < ${r.size}; ${o}++) ${at} = ${roundExpr(r.dtype, at)};`);
  } else {
    const { dims, axes } = axesFor(k.main.shape);
    block = build(k.main, dims, axes);
  }

  const groups = new Map<number, Group>();
  coalesce(block, groups);
  const printer: Printer = { groups, ctx, next: 0 };
  const lines = [...pre, ...printBlock(block, printer, () => [])];
  if (r?.op === "reduce_logsumexp") {
    // Second pass: the maxima are known; sum exp(x - max) into the scratch buffer.
    lines.push("{", ...printBlock(block, printer, () => [], true).map((l) => "  " + l), "}");
  }
  return [...lines, ...post];
}

// Every address in a block and the blocks inside it.
function addresses(b: Block, out: Address[] = []): Address[] {
  const fromOperand = (o: Operand) => {
    if ("addr" in o) out.push(o.addr);
  };
  for (const s of b.stmts) {
    if (s.kind === "compute") s.args.forEach(fromOperand);
    else if (s.kind === "pad") fromOperand(s.value);
    else if (s.kind === "reduce") {
      s.values.forEach(fromOperand);
      for (const sc of s.scatters) if (sc) fromOperand(sc.index);
      addresses(s.inner, out);
    } else if (s.kind === "gather") fromOperand(s.index);
    else if (s.kind === "store") out.push(s.addr);
    else {
      fromOperand(s.value);
      out.push(s.addr);
    }
  }
  return out;
}

// Merge neighbouring axes i, j of a block when every address has stride(i) = stride(j) · extent(j).
// `extra`: addresses outside the block that its axes index (a reduction's input, read in its inner loop).
function coalesce(b: Block, groups: Map<number, Group>, extra: readonly Address[] = []): void {
  const all = [...addresses(b), ...extra];
  let run: Axis[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const g = { name: `i${run[0]!.id}`, extent: run.reduce((p, a) => p * a.extent, 1), last: run[run.length - 1]!.id };
    for (const a of run) groups.set(a.id, g);
    run = [];
  };
  for (const a of b.axes) {
    const prev = run[run.length - 1];
    if (prev && all.every((ad) => (ad.terms.get(prev.id) ?? 0) === (ad.terms.get(a.id) ?? 0) * a.extent)) run.push(a);
    else {
      flush();
      run.push(a);
    }
  }
  flush();
  const addrs = (o: Operand): Address[] => ("addr" in o ? [o.addr] : []);
  for (const s of b.stmts) if (s.kind === "reduce") coalesce(s.inner, groups, [...s.values.flatMap(addrs), ...s.scatters.flatMap((sc) => (sc ? addrs(sc.index) : []))]);
}

function printAddress(a: Address, groups: ReadonlyMap<number, Group>): string {
  const terms: (string | number)[] = [a.ref.offset, a.start];
  const seen = new Set<Group>();
  for (const [axis, stride] of a.terms) {
    const g = groups.get(axis)!;
    if (seen.has(g)) continue;
    seen.add(g);
    terms.push(scaled(g.name, a.terms.get(g.last) ?? 0));
  }
  return `${a.ref.name}[${sumExpr(...terms)}]`;
}

function printOperand(o: Operand, groups: ReadonlyMap<number, Group>): string {
  return "text" in o ? o.text : printAddress(o.addr, groups);
}

// The arrays a block (and the blocks inside it) stores or accumulates into.
function storedArrays(b: Block, out = new Set<string>()): Set<string> {
  for (const s of b.stmts) {
    if (s.kind === "store") out.add(s.addr.ref.name);
    else if (s.kind === "accumulate") {
      out.add(s.addr.ref.name);
      if (s.scratch) out.add(s.scratch.ref.name);
    } else if (s.kind === "reduce") {
      for (const sc of s.scatters) if (sc) out.add(sc.out.name);
      storedArrays(s.inner, out);
    }
  }
  return out;
}

// `tail(op)`: statements to end the loop body with, their operands printed by this block's `op`.
function printBlock(b: Block, pr: Printer, tail: (op: (o: Operand) => string) => readonly string[], secondPass = false): string[] {
  const { groups, ctx } = pr;
  const loops: Group[] = [];
  for (const a of b.axes) {
    const g = groups.get(a.id)!;
    if (!loops.includes(g)) loops.push(g);
  }
  // A read whose address does not move with this block's loops (a scalar parameter, a row's
  // value in a loop over its columns) is read once, just before them: V8 does not hoist
  // typed-array loads out of a loop by itself, and a regression's loop over N read its parameters
  // N times. Only the loops' body runs between there and the reads, so an array the body does not
  // write holds the same value there; one it writes is read where it was.
  const own = new Set(b.axes.map((a) => a.id));
  const stored = loops.length > 0 ? storedArrays(b) : new Set<string>();
  const hoisted = new Map<string, string>();
  const before: string[] = [];
  const op = (o: Operand): string => {
    const text = printOperand(o, groups);
    if (loops.length === 0 || "text" in o || stored.has(o.addr.ref.name) || [...o.addr.terms.keys()].some((a) => own.has(a))) return text;
    let name = hoisted.get(text);
    if (name === undefined) {
      name = `h${pr.next++}`;
      hoisted.set(text, name);
      before.push(`const ${name} = ${text};`);
    }
    return name;
  };
  const body: string[] = [];
  const exps = expSharing(loops.length > 0 ? stored : storedArrays(b));
  for (const s of b.stmts) {
    if (s.kind === "reduce") {
      append(body, printReduce(s.nodes, s.inner, s.values, s.scatters, pr));
      continue;
    }
    const name = `v${ctx.id(s.node)}`;
    if (s.kind === "gather") {
      // The table is read at a run-time index: never hoisted.
      const j = `j${ctx.id(s.node)}`, d = s.node.inputs[0]!.shape[0]!;
      const q = s.axis === undefined ? "0" : groups.get(s.axis)!.name;
      const at = "text" in s.table ? s.table.text : `${s.table.ref.name}[${sumExpr(s.table.ref.offset, s.table.start, scaled(j, s.table.stride))}]`;
      body.push(`const ${j} = ${op(s.index)};`, indexCheck("gather", j, d, q), `const ${name} = ${at};`);
      continue;
    }
    if (s.kind === "compute") {
      const args = s.args.map(op);
      if (s.node.op === "neg") exps.noteNeg(name, args[0]!);
      const shared = exps.expr(s.node, ctx.id(s.node), args[0]!, body);
      const e = shared ?? (isElementwise(s.node.op) ? roundExpr(s.node.dtype, elementwiseExpr(s.node, args), s.node.op) : args[0]!);
      body.push(`const ${name} = ${e};`);
    } else if (s.kind === "pad") {
      const i = s.axis === undefined ? "0" : groups.get(s.axis)!.name;
      // Read only inside the padded range: never hoisted.
      body.push(`const ${name} = ${i} >= ${s.from} && ${i} < ${s.to} ? ${printOperand(s.value, groups)} : ${s.fill};`);
    } else if (s.kind === "store") {
      body.push(`${printAddress(s.addr, groups)} = ${name};`);
    } else {
      const at = printAddress(s.addr, groups);
      const x = op(s.value);
      if (s.node.op === "reduce_logsumexp") {
        if (secondPass) body.push(`{`, `  const m = ${at};`, `  if (m > -Infinity && m < Infinity) ${printAddress(s.scratch!, groups)} += Math.exp(${x} - m);`, `}`);
        else body.push(`{`, `  const x = ${x}, m = ${at};`, `  if (x > m || x !== x) ${at} = x;`, `}`);
      } else append(body, accumulate(s.node.op, at, x));
    }
  }
  append(body, tail(op));
  return [...before, ...printLoops(loops, body)];
}

/** The longest innermost loop written out as one block per index. */
export const UNROLL_MAX_EXTENT = 5;

// The loops around a body, outermost first. An innermost loop of at most UNROLL_MAX_EXTENT
// iterations with no loop inside is written out, each copy with its index a constant (the
// categories of an ordinal model, a row's few columns): the same statements in the same order,
// without a short loop's overhead on every pass of the loops around it.
function printLoops(loops: readonly Group[], body: readonly string[]): string[] {
  const last = loops[loops.length - 1];
  const unroll = last !== undefined && last.extent <= UNROLL_MAX_EXTENT && !body.some((l) => l.trimStart().startsWith("for ("));
  const looped = unroll ? loops.slice(0, -1) : loops;
  const lines: string[] = [];
  let indent = "";
  for (const g of looped) {
    lines.push(`${indent}for (let ${g.name} = 0; ${g.name} < ${g.extent}; ${g.name}++) {`);
    indent += "  ";
  }
  if (unroll) {
    for (let k = 0; k < last.extent; k++) lines.push(`${indent}{`, `${indent}  const ${last.name} = ${k};`, ...body.map((l) => `${indent}  ${l}`), `${indent}}`);
  } else for (const l of body) lines.push(indent + l);
  for (let i = looped.length - 1; i >= 0; i--) lines.push(`${"  ".repeat(i)}}`);
  return lines;
}

// acc = acc ⊕ x, as the reference does it (NaN wins max and min).
function accumulate(op: string, acc: string, x: string): string[] {
  switch (op) {
    case "reduce_sum": return [`${acc} += ${x};`];
    case "reduce_prod": return [`${acc} *= ${x};`];
    case "reduce_max": return [`{`, `  const x = ${x}, m = ${acc};`, `  if (x > m || x !== x) ${acc} = x;`, `}`];
    case "reduce_min": return [`{`, `  const x = ${x}, m = ${acc};`, `  if (x < m || x !== x) ${acc} = x;`, `}`];
    default: throw new Error(`compiled CPU: no accumulator for ${op}`);
  }
}

// Reductions inside a scope, sharing one inner loop: it runs in place, their results become locals.
// `values`: what each reduction adds up, read in the inner loop.
function printReduce(nodes: readonly Node[], inner: Block, values: readonly Operand[], scatters: readonly (Scatter | undefined)[], pr: Printer): string[] {
  const { ctx } = pr;
  const n = nodes[0]!;
  const id = ctx.id(n);
  const acc = `acc${id}`;
  const what = nodes.map((m) => `n${ctx.id(m)} ${m.op}`).join(", ");
  const out: string[] = [`// ${what} over axes [${reducedAxesOf(n).join(",")}] of [${n.inputs[0]!.shape.join(",")}]`];
  const wrap = (lines: string[]) => ["{", ...lines.map((l) => "  " + l), "}"];
  if (n.op === "reduce_logsumexp") {
    // Never shared (siblings.ts): two passes over its loop.
    const x = values[0]!;
    const m = `max${id}`;
    out.push(`let ${m} = -Infinity;`);
    append(out, wrap(printBlock(inner, pr, (op) => [`const x${id} = ${op(x)};`, `if (x${id} > ${m} || x${id} !== x${id}) ${m} = x${id};`])));
    out.push(`let ${acc} = 0;`);
    out.push(`if (${m} > -Infinity && ${m} < Infinity) {`);
    append(out, printBlock(inner, pr, (op) => [`${acc} += Math.exp(${op(x)} - ${m});`]).map((l) => "  " + l));
    out.push(`}`);
    out.push(`const v${id} = ${roundExpr(n.dtype, `${m} > -Infinity && ${m} < Infinity ? ${m} + Math.log(${acc}) : ${m}`)};`);
    return out;
  }
  const accs = nodes.map((m) => `acc${ctx.id(m)}`);
  nodes.forEach((m, k) => {
    const sc = scatters[k];
    if (sc) out.push(`for (let f = 0; f < ${m.size}; f++) ${sc.out.name}[${sumExpr(sc.out.offset, "f")}] = 0;`);
    else out.push(`let ${accs[k]} = ${literal(reduceIdentity(m.op, m.dtype))};`);
  });
  // The entry number a scatter-add's index check reports: the inner loop's (one) index.
  const q = inner.axes.length === 0 ? "0" : pr.groups.get(inner.axes[0]!.id)!.name;
  const tail = (op: (o: Operand) => string): string[] =>
    nodes.flatMap((m, k) => {
      const sc = scatters[k];
      if (!sc) return accumulate(m.op, accs[k]!, op(values[k]!));
      const j = `j${ctx.id(m)}`;
      return [`{`, `  const ${j} = ${op(sc.index)};`, `  ${indexCheck("scatter_add", j, m.size, q)}`, `  ${sc.out.name}[${sumExpr(sc.out.offset, j)}] += ${op(values[k]!)};`, `}`];
    });
  append(out, wrap(printBlock(inner, pr, tail)));
  nodes.forEach((m, k) => {
    if (!scatters[k]) out.push(`const v${ctx.id(m)} = ${roundExpr(m.dtype, accs[k]!)};`);
  });
  return out;
}

// Appends line by line: a spread (push(...lines)) passes every line as an argument, which a loop
// body of tens of thousands of lines turns into a call stack overflow.
function append(out: string[], lines: readonly string[]): void {
  for (const l of lines) out.push(l);
}
