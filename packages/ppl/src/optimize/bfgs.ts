import { dot, sub, type Objective } from "./objective.ts";
import { startPoint, type OptimizerMethod, type PointState } from "./method.ts";

/** BFGS's state: the point and the dense inverse Hessian estimate (row-major), null before the first update. */
export interface BfgsState extends PointState {
  readonly inverseHessian: Float64Array | null;
}

function times(h: Float64Array | null, g: Float64Array): Float64Array {
  const n = g.length;
  if (h === null) return Float64Array.from(g);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += h[i * n + j]! * g[j]!;
    out[i] = s;
  }
  return out;
}

/**
 * H ← (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ (Nocedal & Wright, eq. 6.17), with H₀ = (sᵀy / yᵀy)·I
 * before the first update (eq. 6.20).
 */
function bfgsUpdate(h0: Float64Array | null, s: Float64Array, y: Float64Array): Float64Array {
  const n = s.length;
  const sy = dot(s, y);
  const rho = 1 / sy;
  const h = h0 ?? identityTimes(n, sy / dot(y, y));
  const hy = times(h, y);
  const yhy = dot(y, hy);
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      out[i * n + j] = h[i * n + j]! - rho * (hy[i]! * s[j]! + s[i]! * hy[j]!) + (rho * rho * yhy + rho) * s[i]! * s[j]!;
    }
  }
  return out;
}

function identityTimes(n: number, c: number): Float64Array {
  const h = new Float64Array(n * n);
  for (let i = 0; i < n; i++) h[i * n + i] = c;
  return h;
}

/** Dense BFGS (Nocedal & Wright, §6.1); an update whose curvature sᵀy is not positive is skipped. */
export const bfgs: OptimizerMethod<BfgsState> = {
  name: "bfgs",
  init: (obj: Objective, x0: Float64Array) => ({ ...startPoint(obj, x0), inverseHessian: null }),
  direction(_obj, state, settings) {
    const p = times(state.inverseHessian, state.g).map((v) => -v);
    return { p, alpha0: state.inverseHessian === null ? settings.initAlpha : 1 };
  },
  update(state, next) {
    const s = sub(next.x, state.x);
    const y = sub(next.g, state.g);
    return { ...next, inverseHessian: dot(s, y) > 0 ? bfgsUpdate(state.inverseHessian, s, y) : state.inverseHessian };
  },
  reset: (state) => ({ ...state, inverseHessian: null }),
  scaledGradient: (_obj, state) => dot(state.g, times(state.inverseHessian, state.g)),
};
