import { GraphError, IndexRangeError } from "../../ir/errors.ts";
import { BINARY, UNARY, polygamma } from "../scalar.ts";
import { eighMatrix, luSolveMatrix, slogdetMatrix } from "../linalg.ts";
import { argsortLines } from "../sort.ts";
import { betainc, betaincGrad } from "../special.ts";
import type { ProgramPlan } from "./render.ts";
import type { WasmKernels } from "./wasm.ts";

/** The generated `run` function; W, when given, runs the long matrix products in WebAssembly. */
export type RunFunction = (
  IN: Float64Array[], INOFF: number[], OUT: Float64Array[], OUTOFF: number[], T: Float64Array[], C: Instance[], W?: WasmKernels,
) => void;

/** A rendered plan turned into a function (shared by every executable of the same graph). */
export interface Program {
  readonly plan: ProgramPlan;
  /** The generated function itself: an instance runs it through checkedFirstRun once, then directly. */
  readonly run: RunFunction;
  readonly children: readonly Program[];
}

/** A program with its buffers: what one executable owns. Slots are reused across runs. */
export interface Instance {
  /** The program's function; until its first run completes, a check of that run (checkedFirstRun). */
  run: RunFunction;
  readonly IN: Float64Array[];
  readonly INOFF: number[];
  readonly OUT: Float64Array[];
  readonly OUTOFF: number[];
  readonly T: Float64Array[];
  readonly C: Instance[];
  W?: WasmKernels;
}

// Special functions and helpers the generated code calls: the very functions the reference uses.
// Every unary and binary op's scalar function is bound by its camel-cased name (inv_phi: F.invPhi),
// so that an op whose JavaScript calls its reference function needs no line here.
const camel = (op: string) => op.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const F = {
  ...Object.fromEntries([...Object.entries(UNARY), ...Object.entries(BINARY)].map(([op, f]) => [camel(op), f])),
  polygamma,
  argsortLines,
  luSolveMatrix,
  slogdetMatrix,
  eighMatrix,
  betainc,
  betaincGrad,
  indexError(op: string, j: number, d: number, entry: number): never {
    throw new IndexRangeError(op, j, d, entry);
  },
};

/** Turn a plan into a callable program (children first). */
export function buildProgram(plan: ProgramPlan): Program {
  const children = plan.children.map(buildProgram);
  const make = new Function("F", "K", `"use strict";\nreturn function run(IN, INOFF, OUT, OUTOFF, T, C, W) {\n${indentSource(plan.source)}\n};`);
  return { plan, run: make(F, plan.consts) as RunFunction, children };
}

/** Allocate the buffers of a program and of its children. */
export function instantiate(p: Program): Instance {
  const inst: Instance = {
    run: p.run,
    IN: new Array<Float64Array>(p.plan.inputs.length),
    INOFF: new Array<number>(p.plan.inputs.length).fill(0),
    OUT: new Array<Float64Array>(p.plan.outputs.length),
    OUTOFF: new Array<number>(p.plan.outputs.length).fill(0),
    T: p.plan.temps.map((n) => new Float64Array(n)),
    C: p.children.map(instantiate),
  };
  inst.run = checkedFirstRun(p, inst);
  return inst;
}

// V8 refuses to enter a function whose frame is too large (a kernel of tens of thousands of fused
// nodes) with a stack overflow, at its first call as at every other: the first run is checked and
// says it as the graph's size, not as an internal error. Once a run completes, the instance calls
// the generated function itself, so that a gradient pays no wrapper (a closure and a try/catch).
function checkedFirstRun(p: Program, inst: Instance): RunFunction {
  return (IN, INOFF, OUT, OUTOFF, T, C, W) => {
    try {
      p.run(IN, INOFF, OUT, OUTOFF, T, C, W);
    } catch (e) {
      if (e instanceof RangeError && /call stack/.test(e.message)) throw tooLarge(p.plan);
      throw e;
    }
    inst.run = p.run;
  };
}

/** The source of a plan and its children, for reading and snapshots. */
export function fullSource(plan: ProgramPlan, label = "program"): string {
  const parts = [`// ===== ${label} =====`, plan.source];
  plan.children.forEach((c, i) => parts.push("", fullSource(c, `${label} / scan body C[${i}]`)));
  return parts.join("\n");
}

function indentSource(s: string): string {
  return s
    .split("\n")
    .map((l) => (l ? "  " + l : l))
    .join("\n");
}

function tooLarge(plan: ProgramPlan): GraphError {
  const lines = plan.source.split("\n").length;
  return new GraphError(
    `the compiled CPU program of this graph is too large to run (${plan.kernels} kernel(s), ${lines} lines of generated JavaScript): ` +
      "a graph of tens of thousands of scalar nodes usually comes from a loop traced one iteration at a time; write it with whole tensors (vectorized), or run it on the reference interpreter",
  );
}
