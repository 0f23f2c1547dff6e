import type { Backend, Executable } from "../../backend.ts";
import type { Node } from "../../ir/node.ts";
import { toposort } from "../../graph/toposort.ts";
import { interpret } from "./interpret.ts";

/** The reference interpreter as a backend: every node evaluated by plain loops on the host. */
export function referenceBackend(): Backend {
  const compileSync = (outputs: readonly Node[]): Executable => ({
    outputs,
    stats: { kernels: toposort(outputs).length, hostNodes: 0 },
    run: async (inputs) => interpret(outputs, inputs),
    runSync: (inputs) => interpret(outputs, inputs),
  });
  return { name: "reference", device: "CPU (reference interpreter, f64)", compileSync, compile: async (o) => compileSync(o) };
}
