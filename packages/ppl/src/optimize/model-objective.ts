import { add, slice, sub, type Node } from "@ppl/tensor";
import { substitute } from "@ppl/tensor/ir";
import { modelDensity, type ModelDensity } from "../density/model-density.ts";
import type { CompiledModel } from "../model/compile.ts";
import { fusedDensityOf, registerFusedDensity } from "../model/fused-density.ts";

/**
 * A model's log density on the unconstrained scale with or without the log-Jacobians of its
 * parameters' constraints. With them (jacobian true) its maximum is the MAP on the unconstrained
 * scale, the density NUTS samples; without them, the mode of the constrained density (the
 * penalized maximum likelihood estimate), as CmdStan's optimize computes by default.
 */
export async function optimizationDensity(model: CompiledModel, jacobian: boolean): Promise<ModelDensity> {
  return modelDensity(jacobian ? model : withoutJacobian(model));
}

const stripped = new WeakMap<CompiledModel, CompiledModel>();

/** The model with its log density less the log-Jacobian of every parameter's transform (its fused form too). */
export function withoutJacobian(model: CompiledModel): CompiledModel {
  const hit = stripped.get(model);
  if (hit) return hit;
  const replace = new Map<Node, Node>(model.recorded.params.map((p, i) => {
    const info = model.paramInfo[i]!;
    return [p.leaf, slice(model.q, [{ start: info.offset, stop: info.offset + info.unconstrainedSize }])];
  }));
  const terms = model.recorded.params.map((p) => p.transform.logJacobian(p.leaf));
  const total = terms.reduce((a, b) => add(a, b));
  const [jac] = substitute([total], replace);
  const logDensity = sub(model.logDensity, jac!);
  const fused = fusedDensityOf(model.logDensity);
  if (fused) registerFusedDensity(logDensity, sub(fused, jac!));
  const out: CompiledModel = { ...model, logDensity, fusedLogDensity: fused ? sub(fused, jac!) : logDensity };
  stripped.set(model, out);
  return out;
}
