import { GraphError } from "./ir/errors.ts";
import type { Node } from "./ir/node.ts";
import type { Bindings } from "./cpu/reference/interpret.ts";
import type { TensorValue } from "./cpu/value.ts";

/** What a compiled graph reports about how it runs. */
export interface ExecutableStats {
  /** Kernels (fused loops or shaders) the graph became. */
  readonly kernels: number;
  /** Graph nodes evaluated on the host instead of the backend's device (must be 0 on a device backend). */
  readonly hostNodes: number;
}

/** A graph compiled for one backend; buffers and code stay resident between runs. */
export interface Executable {
  readonly outputs: readonly Node[];
  readonly stats: ExecutableStats;
  /** Evaluate with values bound to the graph's params and data. */
  run(inputs: Bindings): Promise<TensorValue[]>;
  /** Synchronous evaluation, where the backend can offer it (the CPU paths). */
  runSync?(inputs: Bindings): TensorValue[];
  /**
   * Binds `inputs` once and returns a runner that reads and writes caller-owned arrays with no
   * allocation per run, where the backend can offer it (the compiled CPU path): a sampler calls a
   * log density hundreds of thousands of times with the same data.
   */
  bindSync?(inputs: Bindings): BoundExecutable;
  /** Release device resources. */
  dispose?(): void;
}

/**
 * An executable with its inputs bound: each run reads the arrays last given to `setInput` and writes
 * the outputs into the arrays last given to `setOutput`, at their offsets, without copying f64 data.
 */
export interface BoundExecutable {
  /** The input slot of the param or data leaf `name`, or -1 when the graph does not read it. */
  slot(name: string): number;
  /** Reads input `slot` from data[offset …] at the next runs (in place for f64 leaves, rounded into a copy otherwise). */
  setInput(slot: number, data: Float64Array, offset: number): void;
  /** Writes output j into data[offset …] at the next runs. */
  setOutput(j: number, data: Float64Array, offset: number): void;
  /** Evaluates the graph once. */
  run(): void;
}

/** A backend: compiles graphs into executables; cached by (graph hash, signature, device). */
export interface Backend {
  readonly name: string;
  /** A line describing the device, for logs and CSV headers. */
  readonly device: string;
  /** Compiles the graph of `outputs` into an executable (cached by graph hash and signature). */
  compile(outputs: readonly Node[]): Promise<Executable>;
  /** Synchronous compile, where the backend can offer it. */
  compileSync?(outputs: readonly Node[]): Executable;
}

type BackendFactory = () => Backend | Promise<Backend>;
const registry = new Map<string, BackendFactory>();

/** Make a backend available by name (the Vulkan package registers itself this way). */
export function registerBackend(name: string, factory: BackendFactory): void {
  registry.set(name, factory);
}

/** The backend registered under `name`. */
export async function getBackend(name: string): Promise<Backend> {
  const f = registry.get(name);
  if (!f) throw new GraphError(`no backend named '${name}' (registered: ${[...registry.keys()].join(", ") || "none"})`);
  return f();
}

/** Names of the registered backends. */
export function backendNames(): string[] {
  return [...registry.keys()];
}
