import { all, and, broadcastTo, constant, ge, le, mul, ne, select, sum, type Node, type Operand } from "@ppl/tensor";
import { truncated, type ModelBuilder } from "@ppl/ppl";
import { toposort } from "@ppl/tensor/ir";
import type { Expr, Stmt, VarDecl } from "../syntax/ast.ts";
import type { SourceFile, Span, StanError } from "../syntax/source.ts";
import type { CheckedProgram } from "../check/check.ts";
import { UNKNOWN, type SType } from "../check/types.ts";
import { DISTRIBUTIONS } from "../library/distributions.ts";
import { declaredConstraint, declaredShape, type BoundVals } from "./constraints.ts";
import { Evaluator, ReturnSignal } from "./evaluate.ts";
import { isAccumulation, isMapAssignment, vectorizable, whyNotVectorized } from "./vectorize.ts";
import { declareRandomQuantities } from "./generated.ts";
import { runScan, scanPlan, type ScanHost } from "./scan-loop.ts";
import { mapAxis, MIN_VMAP_ITERATIONS, runVmap, vmapPlan, type VmapHost, type VmapTrace } from "./vmap-loop.ts";
import { UNSUPPORTED_DISTRIBUTION_FIX } from "./refuse.ts";
import { assignIndex, readIndex, type IndexVal } from "./indexing.ts";
import { binaryOp } from "./evaluate.ts";
import { copyVal, filled, isCells, materialize, readsParams, shapeOf, toCells, type Val } from "./values.ts";
import type { KnownValues } from "./known.ts";

/** break and continue, unwinding to their loop. */
class LoopSignal {
  constructor(readonly loop: "break" | "continue") {}
}

const MAX_WHILE = 10_000_000;
/** A transformed data variable computed by at least this many graph nodes is folded into a constant. */
const FOLD_NODES = 64;
/** The fewest iterations a loop carrying state has for it to run as a scan (shorter ones are traced one by one). */
const MIN_SCAN_ITERATIONS = 8;
/** Graph nodes a loop traced one iteration at a time may make (outside transformed data, whose loops compute data) before the program is refused. */
const MAX_UNROLLED_NODES = 50_000;
/**
 * The same in generated quantities, whose graph is evaluated once a kept draw and never
 * differentiated (a draw's loops over days and countries, with a random draw in each, cannot be
 * batched: ecdc0401's projections make about 106,000 nodes).
 */
const MAX_UNROLLED_NODES_GENERATED = 250_000;

// A JavaScript engine's stack overflow: recursion over a trace too long or too deep.
function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

// How many graph nodes exist so far: each new node takes the next id, so the id of a node made now
// (a constant of a shape never used before; its fill is one number) counts them.
let probes = 0;
function nodeCount(): number {
  return constant(0, [0, ++probes]).id;
}

// The variables a statement assigns (not those it declares: they live in the statement's own scope).
function assignedNames(s: Stmt): string[] {
  switch (s.kind) {
    case "assign": return [s.target.name];
    case "block":
    case "profile": return s.body.flatMap(assignedNames);
    case "for":
    case "foreach":
    case "while": return assignedNames(s.body);
    case "if": return [...assignedNames(s.then), ...(s.else ? assignedNames(s.else) : [])];
    default: return [];
  }
}

// The value a condition picks from two branches' values: entries that differ are selected, the others kept.
function merge(cond: Node, a: Val, b: Val): Val {
  if (a === b) return a;
  if (typeof a === "number" && typeof b === "number" && Object.is(a, b)) return a;
  // Where either side is held entry by entry, so is the result: only the entries that differ are selected.
  if ((isCells(a) || isCells(b)) && shapeOf(a).length > 0 && shapeOf(a)[0] === shapeOf(b)[0]) {
    const [ca, cb] = [toCells(a), toCells(b)];
    return { cells: ca.cells.map((c, k) => merge(cond, c, cb.cells[k]!)), cellShape: ca.cellShape };
  }
  return select(cond, materialize(a), materialize(b));
}

// The number a constant node of one value holds, or undefined.
function constValue(n: Node): number | undefined {
  return n.op === "const" && typeof n.attrs.value === "number" ? n.attrs.value : undefined;
}

/**
 * Runs a checked program's blocks against a model builder: data from `d`, parameters declared with
 * their constraints, transformed parameters and generated quantities reported as deterministics,
 * and every ~ and target += added to the log density. Loops and branches whose bounds and
 * conditions are known while tracing are unrolled; the model's graph is what they compute.
 */
export class Tracer extends Evaluator {
  private block = "";
  /** Set while a branch under a condition known only at run time is traced: the density may not change there. */
  private inBranch: Span | undefined;
  /** The vectorized loop being traced: x[i] = … by its index fills x[lo:hi]. */
  private batchRange: { variable: string; lo: number; hi: number; body: Stmt } | undefined;
  /** The outermost loop being unrolled (outside transformed data), and the node count when it began. */
  private unrolling: { loop: Stmt & { kind: "for" }; firstNode: number } | undefined;
  /** Set while a loop's body is traced as a scan's step: loops inside it are not scanned again. */
  private scanning = false;
  /** Set while a loop's body is traced for one symbolic iteration of the vmapped form (vmap-loop.ts). */
  private vmap: VmapTrace | undefined;

  constructor(checked: CheckedProgram, src: SourceFile, private readonly m: ModelBuilder, known?: KnownValues) {
    super(checked, src, known);
  }

  /** Traces every block in order; a stack overflow while tracing a statement is refused at that statement. */
  run(d: Readonly<Record<string, number | Node>>): void {
    try {
      this.runBlocks(d);
    } catch (e) {
      if (!isStackOverflow(e)) throw e;
      const at = this.statement ?? this.checked.program.blocks.model?.[0];
      throw at ? this.fail("unsupported", at.span, `tracing this statement overflowed the stack (a graph too long or too deep to build, in ${this.block}); write its loops with vector operations (docs/stan-support.md)`) : e;
    }
  }

  /** The top-level statement being traced, for the refusal of a stack overflow. */
  private statement: Stmt | undefined;

  // Transformed data computed by long traces (a matrix filled entry by entry in a loop) become the
  // constants they are: the model's graph would otherwise carry, and its compiled gradient
  // recompute or hoist, every entry's own nodes (2pl_latent_reg_irt: 12k nodes, 16 s to compile).
  private foldTransformedData(body: readonly Stmt[]): void {
    if (this.known === undefined) return;
    for (const s of body) {
      if (s.kind !== "decl") continue;
      const v = this.frames[0]!.get(s.name);
      if (v === undefined || typeof v === "number") continue;
      const node = materialize(v);
      if (toposort([node]).length < FOLD_NODES) continue;
      const values = this.known.values(node);
      if (values !== undefined) this.setVar(s.name, constant(values, node.shape, node.dtype));
    }
  }

  // A statement of a block, kept as the one being traced.
  private top(s: Stmt): void {
    this.statement = s;
    this.exec(s);
  }

  private runBlocks(d: Readonly<Record<string, number | Node>>): void {
    const blocks = this.checked.program.blocks;
    for (const s of blocks.data ?? []) if (s.kind === "decl") this.frames[0]!.set(s.name, d[s.name]!);
    this.block = "transformed data";
    for (const s of blocks["transformed data"] ?? []) this.top(s);
    this.foldTransformedData(blocks["transformed data"] ?? []);
    this.block = "parameters";
    for (const s of blocks.parameters ?? []) if (s.kind === "decl") this.param(s);
    this.block = "transformed parameters";
    this.reported(blocks["transformed parameters"] ?? [], true);
    this.block = "model";
    this.within(() => (blocks.model ?? []).forEach((s) => this.top(s)));
    this.block = "generated quantities";
    this.rngCalls = [];
    this.reported(blocks["generated quantities"] ?? [], false);
  }

  // Runs a block whose top-level variables are reported with the draws; a transformed parameter
  // outside its bounds makes the log density −∞ (Stan rejects the draw).
  private reported(body: readonly Stmt[], checkBounds: boolean): void {
    for (const s of body) this.top(s);
    if (this.rngCalls && this.rngCalls.length > 0) {
      // Quantities that draw random numbers are computed per kept draw on the host (generated.ts).
      const outputs = body.flatMap((s) => (s.kind === "decl" ? [{ name: s.name, value: materialize(this.lookup(s.name, s.span)) }] : []));
      declareRandomQuantities(this.m, outputs, this.rngCalls);
      return;
    }
    for (const s of body) {
      if (s.kind !== "decl") continue;
      const node = materialize(this.lookup(s.name, s.span));
      this.at(s.span, `'${s.name}'`, () => this.m.deterministic(s.name, node));
      if (checkBounds && s.type.bounds.kind === "range") {
        const b = this.boundVals(s);
        if (b.kind !== "range") continue;
        const inside = [b.lower !== undefined ? all(ge(node, b.lower)) : undefined, b.upper !== undefined ? all(le(node, b.upper)) : undefined].filter((x) => x !== undefined);
        if (inside.length > 0) this.m.factor(select(inside.length === 2 ? and(inside[0]!, inside[1]!) : inside[0]!, constant(0), constant(-Infinity)));
      }
    }
  }

  private boundVals(s: VarDecl): BoundVals {
    const b = s.type.bounds;
    const opt = (e: typeof b extends never ? never : Parameters<Tracer["eval"]>[0] | undefined): Operand | undefined => (e ? this.operand(this.eval(e)) : undefined);
    if (b.kind === "range") return { kind: "range", lower: opt(b.lower), upper: opt(b.upper) };
    if (b.kind === "affine") return { kind: "affine", offset: opt(b.offset), multiplier: opt(b.multiplier) };
    return { kind: "none" };
  }

  private operand(v: Val): Operand {
    return typeof v === "number" ? v : materialize(v);
  }

  private shapeOfDecl(s: VarDecl): number[] {
    const arrayDims = s.type.arrayDims.map((e) => this.staticNumber(e, "an array size"));
    const sizes = s.type.sizes.map((e) => this.staticNumber(e, "a size"));
    return declaredShape(s.type.base, arrayDims, sizes);
  }

  private param(s: VarDecl): void {
    const shape = this.shapeOfDecl(s);
    const constraint = declaredConstraint(s.type.base, this.boundVals(s), shape.slice(0, s.type.arrayDims.length));
    const value = this.at(s.span, `parameter '${s.name}'`, () => this.m.param(s.name, { shape, constraint }));
    this.frames[0]!.set(s.name, value);
  }

  // ------------------------------------------------------------ statements

  protected exec(s: Stmt): void {
    switch (s.kind) {
      case "decl": {
        const shape = this.shapeOfDecl(s);
        const v = s.init ? copyVal(this.eval(s.init)) : filled(shape, s.type.base === "int" ? -2147483648 : NaN);
        this.frames[this.frames.length - 1]!.set(s.name, v);
        return;
      }
      case "assign": return this.assign(s);
      case "tilde": return this.tilde(s);
      case "target": {
        this.noBranch(s.span);
        const v = this.eval(s.value);
        return this.at(s.span, "target +=", () => this.addTerm(sum(materialize(v))));
      }
      case "for": return this.forLoop(s);
      case "foreach": return this.foreach(s);
      case "while": {
        for (let k = 0; this.staticNumber(s.test, "a while loop's condition") !== 0; k++) {
          if (k > MAX_WHILE) throw this.fail("unsupported", s.span, `a while loop that ran ${MAX_WHILE} times while tracing`);
          if (this.loopBody(s.body) === "break") break;
        }
        return;
      }
      case "if": return this.ifStatement(s);
      case "break":
      case "continue": throw new LoopSignal(s.kind);
      case "return": throw new ReturnSignal(s.value ? this.eval(s.value) : undefined);
      case "print": return; // printing while tracing would print once, not at each evaluation: print is skipped.
      case "reject":
      case "fatal_error": throw this.fail("semantic", s.span, `${s.kind} is reached for every parameter value (it lies on a path decided while tracing)`);
      case "call": {
        const v = this.eval(s.call);
        void v;
        return;
      }
      case "block":
      case "profile": return this.within(() => s.body.forEach((b) => this.exec(b)));
      case "empty": return;
    }
  }

  private ifStatement(s: Stmt & { kind: "if" }): void {
    const test = this.eval(s.test);
    const known = this.knownScalar(test) ?? constValue(materialize(test)) ?? this.decided(materialize(test));
    if (known !== undefined) {
      if (known !== 0) this.within(() => this.exec(s.then));
      else if (s.else) this.within(() => this.exec(s.else!));
      return;
    }
    // A condition that depends on parameters (or on data entries): both branches are traced, and
    // each variable they assign takes the value of the branch the condition picks (a select).
    const cond = ne(materialize(test), 0);
    // Only the variables the branches assign are kept aside and merged: copying every variable in
    // scope at each such if made a Viterbi pass over T = 500 steps take minutes to trace.
    const names = [...new Set([...assignedNames(s.then), ...(s.else ? assignedNames(s.else) : [])])].filter((n) => this.frames.some((f) => f.has(n)));
    const before = this.capture(names, s.span);
    this.branch(s.then, s.span);
    const afterThen = this.capture(names, s.span);
    for (const [name, v] of before) this.setVar(name, copyVal(v));
    if (s.else) this.branch(s.else, s.span);
    for (const [name, v] of afterThen) {
      const w = this.lookup(name, s.span);
      this.setVar(name, this.at(s.span, `'${name}' assigned under a condition`, () => merge(cond, v, w)));
    }
  }

  // The current values of variables in scope, copied (cells are assigned in place).
  private capture(names: readonly string[], span: Span): Map<string, Val> {
    return new Map(names.map((n) => [n, copyVal(this.lookup(n, span))]));
  }

  // A branch under a condition known only at run time: it may assign variables, nothing else that has effects.
  private branch(body: Stmt, span: Span): void {
    const saved = this.inBranch;
    this.inBranch = span;
    try {
      this.within(() => this.exec(body));
    } catch (e) {
      if (e instanceof LoopSignal || e instanceof ReturnSignal) throw this.fail("unsupported", span, "break, continue or return under a condition that depends on parameters");
      throw e;
    } finally {
      this.inBranch = saved;
    }
  }

  // Runs a loop's body in its own scope; returns "break" when the loop must stop.
  private loopBody(body: Stmt): "break" | undefined {
    try {
      this.within(() => this.exec(body));
    } catch (e) {
      if (e instanceof LoopSignal) return e.loop === "break" ? "break" : undefined;
      throw e;
    }
    return undefined;
  }

  private forLoop(s: Stmt & { kind: "for" }): void {
    const lo = this.staticNumber(s.lower, "a loop's lower bound");
    const hi = this.staticNumber(s.upper, "a loop's upper bound");
    if (hi - lo >= 1 && !this.batched && vectorizable(s, this.checked)) {
      // The loop pass: one trace of the body with the index bound to all its values (vectorize.ts).
      const all = constant(Array.from({ length: hi - lo + 1 }, (_, k) => lo + k), [hi - lo + 1]);
      this.batched = true;
      this.batchRange = { variable: s.variable, lo, hi, body: s.body };
      try {
        this.within(() => {
          this.frames[this.frames.length - 1]!.set(s.variable, all);
          this.exec(s.body);
        });
      } finally {
        this.batched = false;
        this.batchRange = undefined;
      }
      return;
    }
    const traced = !this.batched && !this.scanning && this.vmap === undefined && this.block !== "transformed data";
    if (traced && hi - lo + 1 >= MIN_VMAP_ITERATIONS && this.vmapLoop(s, lo, hi)) return;
    if (traced && hi - lo + 1 >= MIN_SCAN_ITERATIONS && this.scanLoop(s, lo, hi)) return;
    const outermost = this.unrolling === undefined && this.block !== "transformed data";
    if (outermost) this.unrolling = { loop: s, firstNode: nodeCount() };
    try {
      for (let i = lo; i <= hi; i++) {
        this.countIteration();
        const stop = this.within(() => {
          this.frames[this.frames.length - 1]!.set(s.variable, i);
          return this.loopBody(s.body);
        });
        if (stop === "break") break;
      }
    } catch (e) {
      if (outermost && isStackOverflow(e)) throw this.tooLarge(s, "into a graph too deep to build");
      throw e;
    } finally {
      if (outermost) this.unrolling = undefined;
    }
  }

  // The refusal of a loop traced one iteration at a time that grew too large: its line, why the loop pass did not take it, and what to write instead.
  private tooLarge(loop: Stmt & { kind: "for" }, what: string): StanError {
    return this.fail("unsupported", loop.span, `a loop traced one iteration at a time ${what} (it cannot run vectorized: ${whyNotVectorized(loop, this.checked)}); write its body with vector operations, or keep it to scalar statements the loop pass takes (docs/stan-support.md)`);
  }

  // The loop pass's scan form (scan-loop.ts): a loop carrying state between iterations runs as one
  // scan. Where the body cannot be traced so (a construct the step does not take), nothing has
  // changed outside the step's own scope and the loop is traced one iteration at a time instead.
  private scanLoop(s: Stmt & { kind: "for" }, lo: number, hi: number): boolean {
    const plan = scanPlan(s);
    if (plan === undefined) return false;
    const host: ScanHost = {
      lookup: (name) => this.lookup(name, s.span),
      setVar: (name, v) => this.setVar(name, v),
      runBody: (bindings) => {
        this.frames.push(new Map(bindings));
        try {
          this.exec(s.body);
          return this.frames[this.frames.length - 1]!;
        } finally {
          this.frames.pop();
        }
      },
    };
    this.scanning = true;
    try {
      return runScan(host, plan, s.variable, lo, hi);
    } catch {
      return false;
    } finally {
      this.scanning = false;
    }
  }

  // The loop pass's vmapped form (vmap-loop.ts): independent iterations whose body is more than
  // scalars run as one trace of a symbolic iteration, batched. Where the iterations turn out not to
  // be independent, nothing has changed and the loop goes on to the other forms.
  private vmapLoop(s: Stmt & { kind: "for" }, lo: number, hi: number): boolean {
    const plan = vmapPlan(s);
    if (plan === undefined) return false;
    const host: VmapHost = {
      lookup: (name) => this.lookup(name, s.span),
      setVar: (name, v) => this.setVar(name, v),
      factor: (term) => this.m.factor(term),
      known: this.known,
      runBody: (trace) => {
        this.vmap = trace;
        this.frames.push(trace.frame);
        try {
          this.within(() => this.exec(s.body));
        } finally {
          this.frames.pop();
          this.vmap = undefined;
        }
      },
    };
    return runVmap(host, plan, s.variable, lo, hi);
  }

  // A term of the log density: in a vmapped loop's iteration, kept for the loop to sum.
  private addTerm(term: Node): void {
    if (this.vmap) this.vmap.terms.push(term);
    else this.m.factor(term);
  }

  protected override decided(n: Node): number | undefined {
    return this.vmap?.decide(n);
  }

  // Whether `name` is, here, a map variable of the vmapped loop being traced (not a function's argument of the same name).
  private vmapRow(name: string): boolean {
    if (!this.vmap?.isMap(name)) return false;
    const owner = [...this.frames].reverse().find((f) => f.has(name));
    return owner === this.vmap.frame;
  }

  protected override ownRow(e: Expr & { kind: "index" }): Val | undefined {
    if (e.target.kind !== "var" || !this.vmapRow(e.target.name)) return undefined;
    const axis = this.vmap!.axisOf(e.target.name);
    if (mapAxis(e.indices, this.vmap!.loopVar) !== axis) return undefined;
    const row = this.vmap!.rows.get(e.target.name)!;
    const rest = this.indexVals(e.indices.filter((_, k) => k !== axis));
    return this.at(e.span, "indexing", () => readIndex(row, rest));
  }

  // col(x, i) and sub_col(x, a, i, n) of a map along columns, row(x, i) and sub_row(x, i, a, n) of
  // one along rows, in a vmapped loop over i: the iteration's column (row), or a segment of it.
  protected override ownCall(e: Expr & { kind: "call" }): Val | undefined {
    const at = { col: [1, 1], sub_col: [1, 2], row: [0, 1], sub_row: [0, 1] }[e.name];
    const x = e.args[0];
    if (at === undefined || x?.kind !== "var" || !this.vmapRow(x.name) || this.vmap!.axisOf(x.name) !== at[0]) return undefined;
    const i = e.args[at[1]!]!;
    if (i.kind !== "var" || i.name !== this.vmap!.loopVar) return undefined;
    const row = this.vmap!.rows.get(x.name)!;
    if (e.name === "col" || e.name === "row") return row;
    // The segment's start is the other position argument (sub_col's row, sub_row's column), its size the last.
    const start = this.staticNumber(e.args[e.name === "sub_col" ? 1 : 2]!, `${e.name}'s start`);
    const size = this.staticNumber(e.args[3]!, `${e.name}'s size`);
    return this.at(e.span, `'${e.name}'`, () => readIndex(row, [{ kind: "range", lower: start, upper: start + size - 1 }]));
  }

  // x[i, …] (op)= value in a vmapped loop over i that fills x's rows (x[…, i]: its columns): the iteration's row of x.
  private assignRow(s: Stmt & { kind: "assign" }): boolean {
    const name = s.target.name;
    if (!this.vmapRow(name)) return false;
    const axis = this.vmap!.axisOf(name);
    if (mapAxis(s.target.indices[0], this.vmap!.loopVar) !== axis) return false;
    const rest = [...s.target.indices[0]!.filter((_, k) => k !== axis), ...s.target.indices.slice(1).flat()];
    if (s.target.indices.slice(0, -1).some((l) => l.some((i) => i.kind === "range"))) return false;
    const idx = this.indexVals(rest);
    const rows = this.vmap!.rows;
    let value = this.intValue(this.eval(s.value), this.targetType(s));
    if (s.op !== "=") {
      const op = s.op.slice(0, -1) as "+" | "-" | "*" | "/" | ".*" | "./";
      const old = readIndex(rows.get(name)!, idx);
      const tt = this.targetType(s);
      const v = value;
      value = this.at(s.span, `'${s.op}'`, () => binaryOp(op, old, v, tt, this.typeOf(s.value)));
    }
    const v = value;
    rows.set(name, this.at(s.span, `the assignment to '${name}'`, () => assignIndex(rows.get(name)!, idx, copyVal(v))));
    return true;
  }

  // One more iteration traced one by one: beyond MAX_UNROLLED_NODES graph nodes the graph would be
  // too long to compile and run well, and the program is refused, naming the outermost such loop
  // and why it could not run vectorized.
  private countIteration(): void {
    if (this.unrolling === undefined) return;
    const made = nodeCount() - this.unrolling.firstNode;
    const cap = this.block === "generated quantities" ? MAX_UNROLLED_NODES_GENERATED : MAX_UNROLLED_NODES;
    if (made <= cap) return;
    throw this.tooLarge(this.unrolling.loop, `into more than ${cap} graph nodes`);
  }

  private foreach(s: Stmt & { kind: "foreach" }): void {
    const c = this.eval(s.collection);
    const t = this.typeOf(s.collection);
    const shape = shapeOf(c);
    // Over an array: its elements; over a vector or matrix: every entry (a matrix in column-major order).
    const flat = t.dims > 0 ? c : t.base === "matrix" ? materialize(c).mT().reshape([shape[0]! * shape[1]!]) : c;
    const n = shapeOf(flat)[0] ?? 0;
    for (let i = 1; i <= n; i++) {
      const item = readIndex(flat, [{ kind: "single", at: i }]);
      const stop = this.within(() => {
        this.frames[this.frames.length - 1]!.set(s.variable, item);
        return this.loopBody(s.body);
      });
      if (stop === "break") break;
    }
  }

  private assign(s: Stmt & { kind: "assign" }): void {
    if (this.vmap && this.assignRow(s)) return;
    const name = s.target.name;
    const r = this.batchRange;
    const map = r !== undefined && isMapAssignment(s, r.variable);
    const idx: IndexVal[] = map ? [{ kind: "range", lower: r.lo, upper: r.hi }] : s.target.indices.flatMap((l) => this.indexVals(l));
    if (s.target.indices.slice(0, -1).some((l) => l.some((i) => i.kind === "range"))) {
      throw this.fail("unsupported", s.target.span, "an assignment through a range followed by more brackets (x[a:b][i])");
    }
    let value = this.intValue(this.eval(s.value), this.targetType(s));
    const current = this.lookup(name, s.target.span);
    // s += value in a vectorized loop (an accumulation, vectorize.ts): the sum over the iterations.
    if (r !== undefined && !map && this.accumulating(s)) {
      const count = r.hi - r.lo + 1;
      value = shapeOf(value).length === 0 ? mul(materialize(value), count) : sum(materialize(value));
    }
    if (s.op !== "=") {
      const op = s.op.slice(0, -1) as "+" | "-" | "*" | "/" | ".*" | "./";
      const old = readIndex(current, idx);
      const tt = this.targetType(s);
      value = this.at(s.span, `'${s.op}'`, () => binaryOp(op, old, value, tt, this.typeOf(s.value)));
    }
    // A map loop's value that does not depend on the index (x[n] = 1.0) is the same for every iteration.
    const v = map && shapeOf(value).length === 0 ? broadcastTo(materialize(value), [r.hi - r.lo + 1]) : value;
    this.setVar(name, this.at(s.span, `the assignment to '${name}'`, () => assignIndex(current, idx, copyVal(v))));
  }

  // An int assigned a value known while tracing holds the number (an int array of transformed data
  // filled from data stays numbers, usable as bounds and indices, and one constant when read whole).
  private intValue(v: Val, t: SType): Val {
    return t.base === "int" && typeof v !== "number" && !isCells(v) && v.rank === 0 ? (this.knownScalar(v) ?? v) : v;
  }

  // Whether an assignment in the vectorized loop being traced is an accumulation into a variable from outside it.
  private accumulating(s: Stmt & { kind: "assign" }): boolean {
    const r = this.batchRange;
    return r !== undefined && isAccumulation(s, r.variable, this.checked, r.body);
  }

  private targetType(s: Stmt & { kind: "assign" }): SType {
    return this.checked.targets.get(s.target) ?? UNKNOWN;
  }

  private noBranch(span: Span): void {
    if (this.inBranch) throw this.fail("unsupported", span, `a change of the log density under the condition at line ${this.inBranch.start.line}, which depends on parameters; add the terms of both branches with a conditional expression (target += c ? a : b) or log_mix`);
  }

  private tilde(s: Stmt & { kind: "tilde" }): void {
    this.noBranch(s.span);
    const y = this.eval(s.value);
    const user = this.checked.functions.get(`${s.dist}_lpdf`) ?? this.checked.functions.get(`${s.dist}_lpmf`);
    if (user) {
      const lp = this.callUser(user, [y, ...s.args.map((a) => this.eval(a))], s.span);
      this.at(s.span, "~", () => this.addTerm(materialize(lp)));
      return;
    }
    if (!DISTRIBUTIONS[s.dist]) throw this.fail("unsupported", s.distSpan, `the distribution '${s.dist}' is not supported yet; ${UNSUPPORTED_DISTRIBUTION_FIX}`);
    const yn = materialize(y);
    let dist = this.distribution(s.dist, s.args, yn, s.distSpan);
    if (s.truncation) {
      const lo = s.truncation.lower ? this.operand(this.eval(s.truncation.lower)) : undefined;
      const hi = s.truncation.upper ? this.operand(this.eval(s.truncation.upper)) : undefined;
      const base = dist;
      dist = this.at(s.span, "the truncation T[,]", () => truncated(base, { ...(lo !== undefined ? { lower: lo } : {}), ...(hi !== undefined ? { upper: hi } : {}) }));
    }
    const d = dist;
    // Data observed (no parameter in the outcome) are observations: their pointwise log density is
    // the log-likelihood and they have predictive draws. Otherwise the statement is a term of the density.
    // In a vmapped loop's iteration, the statement is a term the loop sums.
    this.at(s.span, `~ ${s.dist}`, () => (readsParams(yn) || this.vmap ? this.addTerm(sum(d.logpdf(yn))) : this.m.observe(yn, d)));
  }

  /** The block being traced, for messages. */
  get currentBlock(): string {
    return this.block;
  }

  /** Where a statement is, for messages. */
  where(span: Span): string {
    return `${this.src.name}:${span.start.line}`;
  }
}
