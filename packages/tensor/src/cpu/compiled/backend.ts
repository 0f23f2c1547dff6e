import type { Backend, BoundExecutable, Executable } from "../../backend.ts";
import { GraphError } from "../../ir/errors.ts";
import type { Node } from "../../ir/node.ts";
import { boundValues, type Bindings } from "../reference/interpret.ts";
import type { TensorValue } from "../value.ts";
import { cachedProgram } from "./cache.ts";
import { roundValue } from "./expr.ts";
import { fullSource, instantiate, type Program } from "./program.ts";
import { Arena, WasmKernels } from "./wasm.ts";

/** An executable of the compiled CPU path; `source` is the generated JavaScript, for debugging. */
export interface CompiledExecutable extends Executable {
  readonly source: string;
  runSync(inputs: Bindings): TensorValue[];
  bindSync(inputs: Bindings): BoundExecutable;
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
    bindSync: (inputs) => bindProgram(program, inputs),
    run: async (inputs) => runSync(inputs),
  };
}

// A runner with its own instance (its own scratch buffers), so that it and runSync never share slots.
function bindProgram(program: Program, inputs: Bindings): BoundExecutable {
  const inst = instantiate(program);
  const leaves = program.plan.inputs as readonly Node[];
  const outputs = program.plan.outputs;
  const staging = leaves.map(() => undefined as Float64Array | undefined);
  const slots = new Map<string, number>();
  // Leaves read from caller arrays that must be rounded (f32 and integer leaves), with where to read them.
  const roundFrom: (Float64Array | null)[] = leaves.map(() => null);
  const roundAt = new Array<number>(leaves.length).fill(0);
  const unset = new Set<number>();
  // Sizes read once: setInput and setOutput run per gradient, and Node.size walks the shape.
  const inSize = leaves.map((l) => l.size);
  const outSize = outputs.map((o) => o.size);
  leaves.forEach((leaf, k) => {
    slots.set(leaf.attrs.name!, k);
    if (inputs[leaf.attrs.name!] === undefined) unset.add(k);
    else inst.IN[k] = bind(leaf, inputs, staging, k);
  });
  outputs.forEach((o, j) => (inst.OUT[j] = new Float64Array(o.size)));
  // Data in a WebAssembly arena (a log density's, see modelDensity): the long matrix products run
  // there, and the scratch buffers move into the arena so that they are read and written in place.
  const arena = program.plan.source.includes("W.dot") ? inst.IN.map((x) => (x ? Arena.of(x) : undefined)).find((a) => a !== undefined) : undefined;
  if (arena) {
    inst.W = new WasmKernels(arena);
    program.plan.temps.forEach((size, k) => (inst.T[k] = arena.alloc(size)));
  }
  let rounded = false;
  return {
    slot: (name) => slots.get(name) ?? -1,
    setInput(k, data, offset) {
      const leaf = leaves[k];
      if (leaf === undefined) throw new GraphError(`no input slot ${k} (the graph has ${leaves.length})`);
      if (!(offset >= 0 && offset + inSize[k]! <= data.length)) {
        throw new GraphError(`${leaf.op} '${leaf.attrs.name}' needs ${inSize[k]} values from offset ${offset}, the array has ${data.length}`);
      }
      unset.delete(k);
      if (leaf.dtype === "f64") {
        inst.IN[k] = data;
        inst.INOFF[k] = offset;
        return;
      }
      roundFrom[k] = data;
      roundAt[k] = offset;
      inst.IN[k] = staging[k] ??= new Float64Array(inSize[k]!);
      rounded = true;
    },
    setOutput(j, data, offset) {
      const size = outSize[j];
      if (size === undefined) throw new GraphError(`no output ${j} (the graph has ${outputs.length})`);
      if (!(offset >= 0 && offset + size <= data.length)) throw new GraphError(`output ${j} needs ${size} values from offset ${offset}, the array has ${data.length}`);
      inst.OUT[j] = data;
      inst.OUTOFF[j] = offset;
    },
    run() {
      if (unset.size > 0) {
        const names = [...unset].map((k) => `'${leaves[k]!.attrs.name}'`).join(", ");
        throw new GraphError(`no value bound for ${names}`);
      }
      if (rounded) {
        for (let k = 0; k < leaves.length; k++) {
          const src = roundFrom[k];
          if (src === null) continue;
          const leaf = leaves[k]!, buf = staging[k]!, at = roundAt[k]!;
          for (let i = 0; i < buf.length; i++) buf[i] = roundValue(leaf.dtype, src[at + i]!);
        }
      }
      inst.run(inst.IN, inst.INOFF, inst.OUT, inst.OUTOFF, inst.T, inst.C, inst.W);
    },
  };
}

// The value bound to a param or data node, checked as the reference checks it.
function bind(node: Node, inputs: Bindings, staging: (Float64Array | undefined)[], k: number): Float64Array {
  const data = boundValues(node, inputs);
  // f64 data is read in place: generated code never writes to its inputs. So is other data whose
  // values are already those of its type (integer indices), so that threads sharing it copy nothing.
  if (data instanceof Float64Array && (node.dtype === "f64" || holdsExactly(node.dtype, data))) return data;
  const buf = (staging[k] ??= new Float64Array(data.length));
  for (let i = 0; i < data.length; i++) buf[i] = roundValue(node.dtype, data[i]!);
  return buf;
}

// Whether every value is already what rounding to `dtype` gives, bit for bit (-0 and NaN included).
function holdsExactly(dtype: Node["dtype"], data: Float64Array): boolean {
  for (let i = 0; i < data.length; i++) if (!Object.is(roundValue(dtype, data[i]!), data[i]!)) return false;
  return true;
}
