import { GraphError, type Node } from "@ppl/tensor";
import { isLoop, isReduce, OP_TRAITS, sizeOf, type LoopOp } from "@ppl/tensor/ir";
import { linalgLoopIterations } from "./linalg-units.ts";
import { schedule } from "./schedule.ts";
import { unitWriter } from "./units.ts";

/**
 * A scan kernel whose one thread may run more loop iterations than the driver does before it ends
 * every loop of the invocation (llvmpipe: 65,535, all loops together, nested ones included), which
 * would leave the scan's results unwritten. The message names the longest scan that fits.
 */
export class ScanLoopBudgetError extends GraphError {
  constructor(
    message: string,
    /** The scan's length (its steps). */
    readonly length: number,
    /** Loop iterations of the whole kernel with every step taken. */
    readonly iterations: number,
    /** The most steps of this scan that fit in the driver's budget. */
    readonly maxLength: number,
  ) {
    super(message);
    this.name = "ScanLoopBudgetError";
  }
}

/**
 * Loop iterations renderScan's code runs for one scan, every step taken (a scan that stops at a
 * fixed point may run fewer): the carries' init and copy loops, the body's loops at each step
 * (renderSequential's, nested scans included) and the final writes. Loops inside prelude functions
 * (the series of special functions) are not counted.
 */
export function scanLoopIterations(node: Node): number {
  const { fixed, perStep } = scanCost(node);
  return fixed + node.attrs.length! * perStep;
}

// A scan's loops outside its step loop, and those of one step (the step loop's own iteration included).
function scanCost(node: Node): { fixed: number; perStep: number } {
  const body = node.attrs.body!;
  const carries = body.outputs.slice(0, body.nCarry);
  const ys = body.outputs.slice(body.nCarry);
  const carried = carries.reduce((s, c) => s + c.size, 0);
  // Per step: the step itself, the body, each carry copied out and back, each y written.
  const perStep = 1 + sequentialLoopIterations(body.outputs) + 2 * carried + ys.reduce((s, y) => s + sizeOf(y.shape), 0);
  // Before and after: the carries' initial values, the final carries written out.
  return { fixed: 2 * carried, perStep };
}

/** Loop iterations of renderSequential's one-thread program over `outputs`: a loop over each materialized node's units, and their own loops. */
export function sequentialLoopIterations(outputs: readonly Node[]): number {
  let total = 0;
  for (const k of schedule(outputs).kernels) {
    const units = unitWriter(k).units;
    total += (units > 1 ? units : 0) + units * unitLoops(k) + (k.op === "scatter_add" ? scatterLoops(k) : 0);
  }
  return total;
}

// Loop iterations one unit of a materialized node runs itself (the cases of units.ts's unitWriter):
// a reduction loops over the elements reduced into one output, an elementwise map has no loop.
function unitLoops(node: Node): number {
  if (isLoop(node.op)) return LOOP_ITERATIONS[node.op](node);
  return isReduce(node.op) ? node.inputs[0]!.size / Math.max(1, node.size) : 0;
}

// The loop iterations of one unit of each loop op, as units.ts renders it. Typed by op: a loop op
// added to the IR without its count here fails to compile.
const LOOP_ITERATIONS: Record<LoopOp, (node: Node) => number> = {
  matmul: (node) => node.inputs[0]!.shape[node.inputs[0]!.rank - 1]!,
  cumsum: (node) => node.shape[node.attrs.axis!]!,
  argsort: (node) => {
    // The identity written (n), then heapsort: n/2 + n − 1 steps, each sifting down at most
    // log2(n) levels and one more iteration to stop.
    const n = node.shape[node.attrs.axis!]!;
    return n + (Math.floor(n / 2) + n - 1) * (1 + Math.ceil(Math.log2(Math.max(2, n))));
  },
  cholesky: (node) => {
    const n = node.shape[node.rank - 1]!;
    let loops = (n * (n - 1)) / 2 + n;
    for (let j = 0; j < n; j++) loops += 1 + j + (n - 1 - j) * (1 + j);
    return loops;
  },
  triangular_solve: (node) => {
    const n = node.inputs[0]!.shape[node.inputs[0]!.rank - 1]!;
    return n + (n * (n - 1)) / 2;
  },
  solve: linalgLoopIterations,
  slogdet: linalgLoopIterations,
  eigh: linalgLoopIterations,
  scan: scanLoopIterations,
  // Its one-thread pass is counted apart (scatterLoops).
  scatter_add: () => 0,
};

// A scatter_add in one thread: the output zeroed, then one pass over the updates.
function scatterLoops(node: Node): number {
  return node.size + node.inputs[node.inputs.length - 1]!.size;
}

/** The most steps of `node`'s scan one thread runs within `maxLoopIterations` (0 when one step is over it). */
export function scanMaxLength(node: Node, maxLoopIterations: number): number {
  const { fixed, perStep } = scanCost(node);
  return Math.max(0, Math.floor((maxLoopIterations - fixed) / perStep));
}

/**
 * Refuse, at plan time, a scan kernel whose thread could run past the driver's cap on loop
 * iterations (llvmpipe ends all of an invocation's loops after 65,535): its results would be left
 * unwritten without an error, so the error names the longest scan that fits and the other ways out.
 */
export function checkScanLoopBudget(kernels: readonly Node[], maxLoopIterations: number): void {
  if (!Number.isFinite(maxLoopIterations)) return;
  for (const n of kernels) {
    if (n.op !== "scan") continue;
    const { fixed, perStep } = scanCost(n);
    const length = n.attrs.length!;
    const iterations = fixed + length * perStep;
    if (iterations <= maxLoopIterations) continue;
    const maxLength = scanMaxLength(n, maxLoopIterations);
    throw new ScanLoopBudgetError(
      `a scan of ${length} steps may run ${iterations} loop iterations in one thread (${perStep} a step), more than the ${maxLoopIterations} this driver (llvmpipe) runs before it ends every loop: ` +
        `give it at most ${maxLength} steps, batch fewer chains into one gradient, or run it on a GPU or on the CPU backend`,
      length,
      iterations,
      maxLength,
    );
  }
}

/**
 * Refuse, at plan time, an argsort, Cholesky factor or triangular solve whose one thread a line
 * (or matrix, or right-hand column) could run past the driver's cap on loop iterations (llvmpipe
 * ends all of an invocation's loops after 65,535: a Cholesky factor of order 100 came out wrong
 * by 10, an argsort of 20,000 left 19,263 entries unsorted). Solves, log-determinants and
 * eigendecompositions are checked by checkLinalgLoopBudget.
 */
export function checkSerialLoopBudget(kernels: readonly Node[], maxLoopIterations: number): void {
  if (!Number.isFinite(maxLoopIterations)) return;
  for (const n of kernels) {
    // The ops rendered as one thread a unit whose own loops grow faster than their output.
    if (OP_TRAITS[n.op].loopBudget !== "serial") continue;
    const loops = unitLoops(n);
    if (loops <= maxLoopIterations) continue;
    const x = n.inputs[0]!;
    const size = n.op === "argsort" ? `of ${n.shape[n.attrs.axis!]} elements a line` : `of order ${x.shape[x.rank - 1]}`;
    throw new GraphError(
      `${n.op} ${size} may run ${Math.round(loops)} loop iterations in one thread, more than the ${maxLoopIterations} this driver (llvmpipe) runs before cutting loops short: ` +
        `run it on a GPU or on the CPU backend, or use smaller ${n.op === "argsort" ? "arrays" : "matrices"}`,
    );
  }
}
