import type { Node } from "@ppl/tensor";
import { glslType } from "../codegen/glsl.ts";
import { flatten } from "../codegen/index-math.ts";
import { renderCooperative } from "../codegen/cooperative.ts";
import { Scope } from "../codegen/scope.ts";
import { renderSequential, type LeafReader } from "../codegen/sequential.ts";

/** A one-chain log density and gradient as a GLSL function, and the data buffers it reads. */
export interface LogpFunction {
  /** GLSL source of `REAL ppl_logp_grad(in REAL q[D], out REAL g[D])`. */
  readonly source: string;
  /** Data leaves in binding order (after the sampler's own buffers). */
  readonly data: readonly Node[];
  /** Scratch elements per chain (workgroup mode; 0 for thread mode). */
  readonly scratch: number;
}

/** How the log density runs: by the chain's one thread, or by its whole workgroup of `workgroup` threads. */
export type LogpMode = { kind: "thread" } | { kind: "workgroup"; workgroup: number };

/**
 * Render lp(q) and its gradient, graphs over the param `q`, as one GLSL function run by one
 * thread: this is the model part of the fused leapfrog, evaluated inside the NUTS loop of
 * each chain's thread. Data are read from storage buffers bound from `firstBinding` on.
 */
export function renderLogpFunction(lp: Node, grad: Node, q: Node, firstBinding: number, real: "f32" | "f64", mode: LogpMode = { kind: "thread" }): LogpFunction {
  const data: Node[] = [];
  const T = real === "f64" ? "double" : "float";
  const scope = new Scope(undefined, "  ");
  const leaves: LeafReader = (n, idx) => {
    if (n === q) return `q[${flatten(n.shape, idx)}]`;
    if (n.op === "data") {
      let b = data.indexOf(n);
      if (b < 0) b = data.push(n) - 1;
      const e = `bd${b}.v[${flatten(n.shape, idx)}]`;
      return n.dtype === "bool" ? `(${e} != 0)` : e;
    }
    return undefined;
  };
  let scratch = 0;
  const extra: string[] = [];
  let program;
  if (mode.kind === "thread") {
    program = renderSequential([lp, grad], leaves, scope, undefined, undefined, "m");
  } else {
    // The workgroup's intermediates live in its slice of a scratch buffer bound just before the data.
    const W = mode.workgroup;
    program = renderCooperative([lp, grad], leaves, scope, {
      at: (offset, flat) => `bs.v[ppl_scratch_base + ${offset} + ${flat}]`,
      dtype: real,
      workgroup: W,
      lid: "gl_LocalInvocationID.x",
      shared: ["ppl_red0", "ppl_red1"],
    });
    scratch = program.scratchSize;
    extra.push(
      `layout(std430, set = 0, binding = ${firstBinding}) buffer Scratch { ${T} v[]; } bs;`,
      `shared ${T} ppl_red0[${W}];`,
      `shared ${T} ppl_red1[${W}];`,
    );
    scope.lines.unshift(`  uint ppl_scratch_base = gl_WorkGroupID.x * ${scratch}u;`);
    firstBinding += 1;
  }
  const lpVal = program.r.value(lp, [], scope);
  const gi = program.r.fresh("gi");
  const loop = scope.child();
  loop.emit(`g[${gi}] = ${T}(${program.r.value(grad, [gi], loop)});`);
  scope.block(`for (int ${gi} = 0; ${gi} < ${grad.size}; ${gi}++)`, loop);
  scope.emit(`return ${T}(${lpVal});`);
  const decls = data.map(
    (n, i) =>
      `layout(std430, set = 0, binding = ${firstBinding + i}) readonly buffer Data${i} { ${n.dtype === "bool" ? "int" : glslType(n.dtype)} v[]; } bd${i};`,
  );
  const source = [...extra, ...decls, `${T} ppl_logp_grad(in ${T} q[D], out ${T} g[D]) {`, ...scope.lines, "}"].join("\n");
  return { source, data, scratch };
}
