import type { Node } from "@ppl/tensor";
import { glslType } from "../codegen/glsl.ts";
import { flatten } from "../codegen/index-math.ts";
import { Scope } from "../codegen/scope.ts";
import { renderSequential } from "../codegen/sequential.ts";

/** A one-chain log density and gradient as a GLSL function, and the data buffers it reads. */
export interface LogpFunction {
  /** GLSL source of `REAL ppl_logp_grad(in REAL q[D], out REAL g[D])`. */
  readonly source: string;
  /** Data leaves in binding order (after the sampler's own buffers). */
  readonly data: readonly Node[];
}

/**
 * Render lp(q) and its gradient, graphs over the param `q`, as one GLSL function run by one
 * thread: this is the model part of the fused leapfrog, evaluated inside the NUTS loop of
 * each chain's thread. Data are read from storage buffers bound from `firstBinding` on.
 */
export function renderLogpFunction(lp: Node, grad: Node, q: Node, firstBinding: number, real: "f32" | "f64"): LogpFunction {
  const data: Node[] = [];
  const T = real === "f64" ? "double" : "float";
  const scope = new Scope(undefined, "  ");
  const program = renderSequential(
    [lp, grad],
    (n, idx) => {
      if (n === q) return `q[${flatten(n.shape, idx)}]`;
      if (n.op === "data") {
        let b = data.indexOf(n);
        if (b < 0) b = data.push(n) - 1;
        const e = `bd${b}.v[${flatten(n.shape, idx)}]`;
        return n.dtype === "bool" ? `(${e} != 0)` : e;
      }
      return undefined;
    },
    scope,
    undefined,
    undefined,
    "m",
  );
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
  const source = [...decls, `${T} ppl_logp_grad(in ${T} q[D], out ${T} g[D]) {`, ...scope.lines, "}"].join("\n");
  return { source, data };
}
