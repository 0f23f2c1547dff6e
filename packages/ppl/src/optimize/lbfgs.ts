import { dot, sub, type Objective } from "./objective.ts";
import { startPoint, type MethodSettings, type OptimizerMethod, type PointState } from "./method.ts";

/** L-BFGS's state: the point and the last historySize pairs s = Δx, y = Δg, oldest first. */
export interface LbfgsState extends PointState {
  readonly s: readonly Float64Array[];
  readonly y: readonly Float64Array[];
}

/** −H·g by the two-loop recursion (Nocedal & Wright, Algorithm 7.4), H₀ = (sᵀy / yᵀy)·I from the newest pair. */
function twoLoop(state: LbfgsState): Float64Array {
  const q = Float64Array.from(state.g);
  const k = state.s.length;
  const alpha = new Float64Array(k);
  const rho = state.s.map((s, i) => 1 / dot(state.y[i]!, s));
  for (let i = k - 1; i >= 0; i--) {
    alpha[i] = rho[i]! * dot(state.s[i]!, q);
    const y = state.y[i]!;
    for (let j = 0; j < q.length; j++) q[j] = q[j]! - alpha[i]! * y[j]!;
  }
  const gamma = k > 0 ? dot(state.s[k - 1]!, state.y[k - 1]!) / dot(state.y[k - 1]!, state.y[k - 1]!) : 1;
  for (let j = 0; j < q.length; j++) q[j] = q[j]! * gamma;
  for (let i = 0; i < k; i++) {
    const beta = rho[i]! * dot(state.y[i]!, q);
    const s = state.s[i]!;
    for (let j = 0; j < q.length; j++) q[j] = q[j]! + (alpha[i]! - beta) * s[j]!;
  }
  for (let j = 0; j < q.length; j++) q[j] = -q[j]!;
  return q;
}

/** Limited-memory BFGS (Nocedal & Wright, §7.2); a pair whose curvature sᵀy is not positive is skipped. */
export const lbfgs: OptimizerMethod<LbfgsState> = {
  name: "lbfgs",
  init: (obj: Objective, x0: Float64Array) => ({ ...startPoint(obj, x0), s: [], y: [] }),
  direction(_obj, state, settings: MethodSettings) {
    if (state.s.length === 0) return { p: state.g.map((v) => -v), alpha0: settings.initAlpha };
    return { p: twoLoop(state), alpha0: 1 };
  },
  update(state, next, settings) {
    const s = sub(next.x, state.x);
    const y = sub(next.g, state.g);
    const keep = dot(s, y) > 0;
    const trim = <T>(a: readonly T[]): T[] => a.slice(Math.max(0, a.length - settings.historySize));
    return {
      ...next,
      s: keep ? trim([...state.s, s]) : state.s,
      y: keep ? trim([...state.y, y]) : state.y,
    };
  },
  reset: (state) => ({ ...state, s: [], y: [] }),
  scaledGradient: (_obj, state) => -dot(state.g, twoLoop(state)),
};
