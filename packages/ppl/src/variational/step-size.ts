/**
 * Stan's adaptive step-size sequence for ADVI (Kucukelbir et al. 2017, eq. 10, with Stan's
 * constants): s_k = g_k² at the first iteration, then 0.9 s_{k−1} + 0.1 g_k², and the step
 * ρ_k = η k^(−1/2) / (τ + √s_k) per variational parameter, τ = 1.
 */
export interface StepSizeState {
  /** The running average s_k of the squared gradient, per variational parameter. */
  readonly history: Float64Array;
  /** The iterations taken so far (k − 1 before the next step). */
  iteration: number;
}

const TAU = 1;
const PRE = 0.9;
const POST = 0.1;

/** A fresh sequence for `size` variational parameters. */
export function stepSizeState(size: number): StepSizeState {
  return { history: new Float64Array(size), iteration: 0 };
}

/** One step of stochastic gradient ascent: updates s_k with `grad` and moves `params` by ρ_k ∘ grad, in place. */
export function ascend(state: StepSizeState, eta: number, params: Float64Array, grad: Float64Array): void {
  const k = ++state.iteration;
  const h = state.history;
  const scaled = eta / Math.sqrt(k);
  for (let i = 0; i < params.length; i++) {
    const g2 = grad[i]! * grad[i]!;
    h[i] = k === 1 ? h[i]! + g2 : PRE * h[i]! + POST * g2;
    params[i] = params[i]! + (scaled * grad[i]!) / (TAU + Math.sqrt(h[i]!));
  }
}

/** The step ρ_k of the last iteration, per variational parameter (on a Gaussian target an iterate's stochastic error is about √(ρ/2)). */
export function lastStep(state: StepSizeState, eta: number): Float64Array {
  const k = Math.max(state.iteration, 1);
  return state.history.map((h) => eta / Math.sqrt(k) / (TAU + Math.sqrt(h)));
}
