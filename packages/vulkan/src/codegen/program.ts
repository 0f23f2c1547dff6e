import { GraphError, toposort, type DType, type Node } from "@ppl/tensor";
import { ExprRenderer } from "./expr.ts";
import { bufferType, glslType } from "./glsl.ts";
import { flatten } from "./index-math.ts";
import type { RenderLimits } from "./limits.ts";
import { renderScan } from "./scan.ts";
import { schedule } from "./schedule.ts";
import { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";
import { unitWriter, type UnitContext } from "./units.ts";

/** One compute shader of a program: the node it materializes and the buffers it binds, in binding order. */
export interface KernelPlan {
  readonly node: Node;
  readonly source: string;
  readonly units: number;
  readonly localSize: number;
  readonly bindings: readonly Node[];
  /** Workgroup counts [x, y]. */
  readonly groups: readonly [number, number];
}

/** A graph as a list of kernels run in order over buffers, one buffer per stored node. */
export interface ProgramPlan {
  readonly outputs: readonly Node[];
  readonly kernels: readonly KernelPlan[];
  /** Every node with a buffer: leaves (params, data, array constants) and kernel results. */
  readonly buffers: readonly Node[];
  /** The dtypes the program computes in (f64 needs shaderFloat64). */
  readonly dtypes: ReadonlySet<DType>;
}

/** Plan the kernels of a graph and render their GLSL; `prelude` gives the shared function source. */
export function planProgram(outputs: readonly Node[], limits: RenderLimits, prelude: (dtypes: ReadonlySet<DType>) => string): ProgramPlan {
  const sched = schedule(outputs);
  const dtypes = new Set(toposortAll(outputs).map((n) => n.dtype));
  if (dtypes.has("f64") && !limits.float64) {
    throw new GraphError("this device has no shaderFloat64: compute in f32 (dtype f32) or choose another device");
  }
  const tupleUsers = new Map<Node, Node[]>();
  for (const n of sched.order) if (n.op === "tuple_get") tupleUsers.set(n.inputs[0]!, [...(tupleUsers.get(n.inputs[0]!) ?? []), n]);
  const buffers = sched.order.filter((n) => sched.isStored(n));
  // Kernels with nothing to compute (zero-size results) are dropped: there is no work to dispatch.
  const kernels = sched.kernels
    .filter((node) => node.op === "scan" || node.size > 0)
    .map((node) => renderKernel(node, sched.isStored, tupleUsers, limits, prelude))
    .filter((k) => k.units > 0);
  return { outputs, kernels, buffers, dtypes };
}

// All nodes, scan bodies included: their dtypes count too.
function toposortAll(outputs: readonly Node[]): Node[] {
  const all: Node[] = [];
  for (const n of toposort(outputs)) {
    all.push(n);
    if (n.op === "scan") all.push(...toposortAll(n.attrs.body!.outputs));
  }
  return all;
}

function renderKernel(
  node: Node,
  isStored: (n: Node) => boolean,
  tupleUsers: ReadonlyMap<Node, Node[]>,
  limits: RenderLimits,
  prelude: (dtypes: ReadonlySet<DType>) => string,
): KernelPlan {
  const bindings: Node[] = [];
  const bindingOf = (n: Node) => {
    let b = bindings.indexOf(n);
    if (b < 0) b = bindings.push(n) - 1;
    return `b${b}.v`;
  };
  const storage: Storage = {
    read(n, idx) {
      if (!isStored(n)) return undefined;
      const e = `${bindingOf(n)}[${flatten(n.shape, idx)}]`;
      return n.dtype === "bool" ? `(${e} != 0)` : e;
    },
    write(n, flat, value) {
      return `${bindingOf(n)}[${flat}] = ${n.dtype === "bool" ? `int(${value})` : value};`;
    },
  };
  const r = new ExprRenderer(storage);
  const ctx: UnitContext = { r, storage, scan: (s, scope) => renderScan(s, scope, ctx, tupleUsers.get(s) ?? []) };
  const writer = unitWriter(node);
  const body = new Scope(undefined, "  ");
  writer.emit("u", body, ctx);
  const localSize = writer.units === 1 ? 1 : limits.localSize;
  const totalGroups = Math.ceil(writer.units / localSize);
  const gx = Math.min(totalGroups, limits.maxGroupCountX);
  const gy = Math.ceil(totalGroups / gx);
  const dtypes = new Set<DType>([...bindings.map((b) => b.dtype), node.dtype]);
  collectDtypes(node, dtypes);
  const decls = bindings.map(
    (b, i) => `layout(std430, set = 0, binding = ${i}) buffer Buf${i} { ${bufferType(b.dtype)} v[]; } b${i};`,
  );
  const source = [
    "#version 450",
    `// kernel for ${node.op} ${glslType(node.dtype)}[${node.shape.join(",")}] (node ${node.hash})`,
    `layout(local_size_x = ${localSize}) in;`,
    ...decls,
    prelude(dtypes),
    "void main() {",
    `  int u = int(gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * ${localSize}u);`,
    `  if (u >= ${writer.units}) return;`,
    ...body.lines,
    "}",
    "",
  ].join("\n");
  return { node, source, units: writer.units, localSize, bindings, groups: [gx, Math.max(1, gy)] };
}

function collectDtypes(node: Node, out: Set<DType>): void {
  for (const n of toposortAll([node])) out.add(n.dtype);
}
