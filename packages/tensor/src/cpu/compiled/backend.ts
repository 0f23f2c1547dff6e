import type { Backend, Executable } from "../../backend.ts";
import { GraphError } from "../../ir/errors.ts";
import type { Node } from "../../ir/node.ts";
import { fmt, sameShape, sizeOf } from "../../ir/shape.ts";
import type { Bindings } from "../reference/interpret.ts";
import type { TensorValue } from "../value.ts";
import { cachedProgram } from "./cache.ts";
import { roundValue } from "./expr.ts";
import { fullSource, instantiate, type Program } from "./program.ts";

/** An executable of the compiled CPU path; `source` is the generated JavaScript, for debugging. */
export interface CompiledExecutable extends Executable {
  readonly source: string;
  runSync(inputs: Bindings): TensorValue[];
}

/** The compiled CPU backend: whole graphs become generated JavaScript with fused loops. */
export interface CompiledBackend extends Backend {
  compileSync(outputs: readonly Node[]): CompiledExecutable;
  compile(outputs: readonly Node[]): Promise<CompiledExecutable>;
}

/** The compiled CPU path as a backend (registered as "cpu"). */
export function compiledBackend(): CompiledBackend {
  const compileSync = (outputs: readonly Node[]) => makeExecutable(outputs, cachedProgram(outputs));
  return {
    name: "cpu",
    device: "CPU (compiled JavaScript, f64)",
    compileSync,
    compile: async (outputs) => compileSync(outputs),
  };
}

function makeExecutable(outputs: readonly Node[], program: Program): CompiledExecutable {
  const inst = instantiate(program);
  const leaves = program.plan.inputs as readonly Node[];
  // Inputs that are not f64 Float64Arrays get rounded copies here, allocated once.
  const staging = leaves.map(() => undefined as Float64Array | undefined);
  const runSync = (inputs: Bindings): TensorValue[] => {
    leaves.forEach((leaf, k) => {
      inst.IN[k] = bind(leaf, inputs, staging, k);
    });
    const outs = program.plan.outputs.map((o) => new Float64Array(o.size));
    outs.forEach((o, j) => (inst.OUT[j] = o));
    inst.run(inst.IN, inst.INOFF, inst.OUT, inst.OUTOFF, inst.T, inst.C);
    return outputs.map((o, j) => ({ dtype: o.dtype, shape: o.shape, data: outs[j]! }));
  };
  return {
    outputs,
    stats: { kernels: program.plan.kernels, hostNodes: 0 },
    source: fullSource(program.plan),
    runSync,
    run: async (inputs) => runSync(inputs),
  };
}

// The value bound to a param or data node, checked as the reference checks it.
function bind(node: Node, inputs: Bindings, staging: (Float64Array | undefined)[], k: number): Float64Array {
  const name = node.attrs.name!;
  const v = inputs[name];
  if (v === undefined) throw new GraphError(`no value bound for ${node.op} '${name}'`);
  let data: ArrayLike<number>;
  if (typeof v === "number") data = [v];
  else if ("data" in v && "shape" in v) {
    if (!sameShape(v.shape, node.shape)) throw new GraphError(`${node.op} '${name}' has shape ${fmt(v.shape)}, the graph expects ${fmt(node.shape)}`);
    data = v.data;
  } else data = v as ArrayLike<number>;
  if (data.length !== sizeOf(node.shape)) {
    throw new GraphError(`${node.op} '${name}' has ${data.length} values, the graph expects ${sizeOf(node.shape)} (shape ${fmt(node.shape)})`);
  }
  // f64 data is read in place: generated code never writes to its inputs.
  if (node.dtype === "f64" && data instanceof Float64Array) return data;
  const buf = (staging[k] ??= new Float64Array(data.length));
  for (let i = 0; i < data.length; i++) buf[i] = roundValue(node.dtype, data[i]!);
  return buf;
}
