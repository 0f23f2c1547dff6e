/**
 * Values of a model's nodes at one constrained draw, on the host in f64: the nodes a generated
 * quantity asks for, and the parameters of the distributions it draws from. Each node reads the
 * parameters through the constrained leaf (RecordedModel.atConstrained), so a draw read back from
 * a Stan CSV file gives exactly the values the run that wrote it computed.
 */
import { interpret, type Bindings, type Node, type Operand, type TensorValue } from "@ppl/tensor";
import { compiledBackend, lift, optimize, substitute, toposort, type CompiledExecutable } from "@ppl/tensor/internals";
import { hoistData } from "../density/hoist-data.ts";
import type { NodeValues } from "../distributions/distribution.ts";
import type { CompiledModel } from "../model/compile.ts";
import { ModelError } from "../model/errors.ts";

// One set of nodes, ready to evaluate: the parameter-free ones once, the others compiled.
interface Plan {
  readonly fixed: (TensorValue | undefined)[];
  readonly exe: CompiledExecutable | undefined;
  readonly bindings: Bindings;
  // For each node that reads parameters, its position among the executable's outputs.
  readonly slot: number[];
}

/** The most node sets kept compiled at once: a quantity that builds new nodes every draw must not grow memory without bound. */
const MAX_PLANS = 256;

/** Evaluates nodes of a compiled model at the constrained draw last set. */
export class DrawValues implements NodeValues {
  /** The constrained parameter values of the draw, in constrainedNames() order. */
  readonly params: Float64Array;
  private readonly leafName: string;
  private readonly leaf: TensorValue;
  private readonly extra: Record<string, TensorValue> = {};
  private readonly plans = new Map<string, Plan>();
  private readonly backend = compiledBackend();

  constructor(private readonly model: CompiledModel) {
    const n = model.constrainedParams.size;
    this.params = new Float64Array(n);
    this.leaf = { dtype: "f64", shape: [n], data: this.params };
    this.leafName = String(model.constrainedParams.attrs.name);
  }

  /** Sets the draw: the first entries of `constrained` (constrainedNames() order) are the parameters'. */
  set(constrained: ArrayLike<number>): void {
    if (constrained.length < this.params.length) {
      throw new Error(`DrawValues: a draw of model '${this.model.name}' has ${this.params.length} parameter values, got ${constrained.length}`);
    }
    for (let i = 0; i < this.params.length; i++) this.params[i] = constrained[i]!;
  }

  /**
   * Binds a further input leaf by name (a prior draw being checked against its constraint), before
   * any node that reads it is evaluated; its data are then read in place at every evaluation.
   */
  bind(name: string, value: TensorValue): void {
    this.extra[name] = value;
  }

  values(nodes: readonly Node[]): TensorValue[] {
    const key = nodes.map((n) => n.hash).join(",");
    let plan = this.plans.get(key);
    if (plan === undefined) {
      if (this.plans.size >= MAX_PLANS) this.plans.clear();
      plan = this.plan(nodes);
      this.plans.set(key, plan);
    }
    const outs = plan.exe?.runSync(plan.bindings);
    return nodes.map((n, i) => plan.fixed[i] ?? { dtype: "f64", shape: n.shape, data: outs![plan.slot[i]!]!.data });
  }

  /** The value of one node (or number) at the draw. */
  value(x: Operand): TensorValue {
    return this.values([lift(x)])[0]!;
  }

  private plan(nodes: readonly Node[]): Plan {
    const subst = substitute(nodes, this.model.recorded.atConstrained);
    const known = new Set([this.leafName, ...Object.keys(this.extra)]);
    for (const n of toposort(subst)) {
      if (n.op === "param" && !known.has(String(n.attrs.name))) {
        throw new ModelError(`model '${this.model.name}': a generated quantity reads the graph input '${String(n.attrs.name)}', which is not one of the model's parameters; use the nodes that m.param, m.deterministic and the data give`);
      }
    }
    const readsParams = subst.map((n) => toposort([n]).some((m) => m.op === "param"));
    const fixedNodes = subst.filter((_, i) => !readsParams[i]);
    const fixedValues = fixedNodes.length > 0 ? interpret(fixedNodes, this.model.dataBindings) : [];
    let k = 0;
    const fixed = readsParams.map((r) => (r ? undefined : fixedValues[k++]));
    const live = [...new Set(subst.filter((_, i) => readsParams[i]))];
    const slot = subst.map((n) => live.indexOf(n));
    if (live.length === 0) return { fixed, exe: undefined, bindings: {}, slot };
    const hoisted = hoistData(optimize(live), this.model.dataBindings, this.backend);
    const exe = this.backend.compileSync(hoisted.outputs);
    const bindings = { ...this.model.dataBindings, ...hoisted.bindings, ...this.extra, [this.leafName]: this.leaf };
    return { fixed, exe, bindings, slot };
  }
}
