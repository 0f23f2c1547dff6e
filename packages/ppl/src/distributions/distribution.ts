import type { Bindings, Node, Operand, Shape, TensorValue } from "@ppl/tensor";
import type { Rng } from "../random/rng.ts";

/**
 * Where a distribution puts its mass. A parameter given this distribution as its prior and no
 * explicit constraint is sampled through the matching transform (positive → exp, unit → logit, …).
 */
export type Support =
  | { readonly kind: "real" }
  | { readonly kind: "positive" }
  | { readonly kind: "unit" }
  | { readonly kind: "lower"; readonly lower: Operand }
  | { readonly kind: "upper"; readonly upper: Operand }
  | { readonly kind: "interval"; readonly lower: Operand; readonly upper: Operand }
  | { readonly kind: "simplex" }
  | { readonly kind: "cholesky_corr" }
  | { readonly kind: "cov_matrix" }
  | { readonly kind: "corr_matrix" }
  | { readonly kind: "cholesky_cov" }
  | { readonly kind: "nonnegative_int" }
  | { readonly kind: "int_interval"; readonly lower: Operand; readonly upper: Operand }
  | { readonly kind: "counts" }
  | { readonly kind: "any" };

/** A probability distribution over tensors whose parameters are graph nodes or numbers (broadcast together). */
export interface Distribution {
  /** Stan-style name, for messages ("normal", "lkj_corr_cholesky"). */
  readonly name: string;
  readonly support: Support;
  /** True for distributions over integers: they may be observed, never used as a parameter's prior. */
  readonly discrete: boolean;
  /** Broadcast shape of the parameters, without the event axes. */
  readonly batchShape: Shape;
  /** Shape of one draw: [] for scalar distributions, [K] for Dirichlet or MVN, [K,K] for LKJ. */
  readonly eventShape: Shape;
  /**
   * Log density (or mass) of each event of x, normalizing constants included (Stan's _lpdf):
   * shape = broadcast of x's batch axes with batchShape; −∞ outside the support.
   */
  logpdf(x: Operand): Node;
  /**
   * Σ logpdf(x) over every element as one fused node with hand-written partials (lpdf_sum), for
   * the distributions where that is faster than differentiating the expansion; equal to
   * sum(logpdf(x)) to rounding. The model uses it for long observations.
   */
  logpdfSum?(x: Operand): Node;
  /**
   * log P(X ≤ x) of each element (Stan's _lcdf), for univariate distributions that have one:
   * shape = broadcast of x with batchShape; −∞ below the support, 0 above it. Discrete
   * distributions count x itself (P(X ≤ ⌊x⌋)). Differentiable in x (continuous distributions) and
   * in every parameter, shapes that go through an incomplete gamma or beta function included.
   */
  lcdf?(x: Operand): Node;
  /** log P(X > x) of each element (Stan's _lccdf): the complement of lcdf, computed in its own tail so that it does not cancel. */
  lccdf?(x: Operand): Node;
  /**
   * Draws of shape [...shape, ...batchShape, ...eventShape]; node parameters are evaluated at `at`:
   * leaf bindings for the reference interpreter, or a generated quantity's draw (NodeValues).
   */
  sample(rng: Rng, shape?: Shape, at?: ValuesAt): TensorValue;
  /** Mean of each event entry, where closed-form. */
  mean?(): Node;
  /** Variance of each event entry, where closed-form. */
  variance?(): Node;
}

/** Values of graph nodes at one point (a draw): what a distribution's sampler evaluates its node parameters with. */
export interface NodeValues {
  /** The value of each node, in order. */
  values(nodes: readonly Node[]): TensorValue[];
}

/** Where a distribution's node parameters get their values when it is sampled. */
export type ValuesAt = Bindings | NodeValues;

/** True when `at` evaluates nodes itself (a NodeValues), false for leaf bindings. */
export function isNodeValues(at: ValuesAt): at is NodeValues {
  // A binding is a value, never a function, so a data field named "values" cannot pass for one.
  return typeof (at as NodeValues).values === "function";
}

/** True for objects that implement Distribution. */
export function isDistribution(x: unknown): x is Distribution {
  return typeof x === "object" && x !== null && typeof (x as Distribution).logpdf === "function" && "support" in x && "eventShape" in x;
}
