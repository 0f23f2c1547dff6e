import fc from "fast-check";
import type { DType } from "../ir/dtype.ts";
import type { Node } from "../ir/node.ts";
import type { Op } from "../ir/ops.ts";
import { data, param } from "../api/leaves.ts";
import { fmt } from "../ir/shape.ts";
import { tensorValue, type TensorValue } from "../cpu/value.ts";
import { valuesArb } from "./arbitraries.ts";
import type { FloatDType, Tolerance } from "./tolerance.ts";

/** One random graph of a case, with values for its inputs. */
export interface CaseInstance {
  readonly outputs: readonly Node[];
  readonly bindings: Readonly<Record<string, TensorValue>>;
  /** Per output: a graph whose value (computed by the oracle) is the error scale of that output; see Tolerance. */
  readonly scales: readonly (Node | undefined)[];
}

/** An op (or a family of graphs) checked against the oracle on random shapes and values. */
export interface ConformanceCase {
  readonly name: string;
  /** The ops this case exercises (checked against the graphs it builds). */
  readonly ops: readonly Op[];
  /** Random instances whose float tensors are of `dtype`. */
  arbitrary(dtype: FloatDType): fc.Arbitrary<CaseInstance>;
  /** Allowed error per float dtype. */
  tolerance(dtype: FloatDType): Tolerance;
}

/** An input of an instance: a leaf of the given shape and dtype ("float" is the case's dtype) with random values. */
export interface InputSpec {
  readonly name: string;
  readonly shape: readonly number[];
  readonly values: fc.Arbitrary<number>;
  readonly dtype?: DType | "float";
  /** param (default) or data: both kinds of leaf get exercised. */
  readonly leaf?: "param" | "data";
}

/** What a case's graph builder returns. */
export interface Built {
  readonly outputs: readonly Node[];
  readonly scales?: readonly (Node | undefined)[];
}

/** Random values for `inputs`, then `build` over their leaves: the usual way a case makes its arbitrary. */
export function instanceArb(dtype: FloatDType, inputs: readonly InputSpec[], build: (x: Node[]) => Built): fc.Arbitrary<CaseInstance> {
  const dt = (s: InputSpec): DType => (s.dtype === undefined || s.dtype === "float" ? dtype : s.dtype);
  return fc.tuple(...inputs.map((s) => valuesArb(s.shape, s.values))).map((vals) => {
    const leaves = inputs.map((s) => (s.leaf === "data" ? data : param)(s.name, s.shape, dt(s)));
    const bindings: Record<string, TensorValue> = {};
    inputs.forEach((s, k) => (bindings[s.name] = tensorValue(vals[k]!, s.shape, dt(s))));
    const built = build(leaves);
    const inst: CaseInstance = { outputs: built.outputs, bindings, scales: built.scales ?? built.outputs.map(() => undefined) };
    return Object.assign(inst, { [fc.toStringMethod]: () => describeInstance(inst) });
  });
}

/** A short readable account of an instance (fast-check prints it for a counterexample). */
export function describeInstance(inst: CaseInstance): string {
  const ins = Object.entries(inst.bindings).map(([k, v]) => `${k}: ${v.dtype}${fmt(v.shape)} = [${Array.from(v.data.slice(0, 12)).join(", ")}${v.data.length > 12 ? ", …" : ""}]`);
  const outs = inst.outputs.map((o) => `${o.op}:${o.dtype}${fmt(o.shape)}`);
  return `{ inputs: { ${ins.join("; ")} }, outputs: [${outs.join(", ")}] }`;
}
