import { runEvaluating, type Evaluating } from "./evaluating.ts";
import { axpy, dot, type Objective } from "./objective.ts";

/** Settings of the strong Wolfe line search. */
export interface LineSearchOptions {
  /** Sufficient decrease constant c1 (Armijo), in (0, c2). */
  readonly c1: number;
  /** Curvature constant c2, in (c1, 1): 0.9 for quasi-Newton directions. */
  readonly c2: number;
  /** Most function evaluations in one search. */
  readonly maxEvaluations: number;
}

/** Nocedal & Wright's constants for quasi-Newton methods; 40 evaluations as Stan's BFGS line search allows. */
export const LINE_SEARCH_DEFAULTS: LineSearchOptions = { c1: 1e-4, c2: 0.9, maxEvaluations: 40 };

/** Where the search stopped: a step meeting the strong Wolfe conditions, or none (ok false). */
export interface LineSearchResult {
  readonly ok: boolean;
  /**
   * The bracketing phase ran out of evaluations with every trial a sufficient decrease and the
   * slope still steep: the objective kept falling as far as the doubled steps reached (ok false).
   */
  readonly unbounded: boolean;
  readonly alpha: number;
  readonly x: Float64Array;
  readonly f: number;
  readonly g: Float64Array;
  readonly evaluations: number;
}

interface Trial {
  readonly alpha: number;
  readonly x: Float64Array;
  readonly f: number;
  readonly g: Float64Array;
  /** The directional derivative g·p at the trial point. */
  readonly d: number;
}

/**
 * A step along the descent direction p from x (value f0, gradient g0) meeting the strong Wolfe
 * conditions, f(x+αp) ≤ f0 + c1·α·g0·p and |g(x+αp)·p| ≤ c2·|g0·p|: Nocedal & Wright, Numerical
 * Optimization (2nd ed.), Algorithm 3.5 (bracketing by doubling) with Algorithm 3.6 (zoom by
 * safeguarded cubic interpolation). A point outside the domain (f infinite) counts as too long a step.
 */
export function strongWolfe(obj: Objective, x: Float64Array, f0: number, g0: Float64Array, p: Float64Array, alpha0: number, opts: LineSearchOptions = LINE_SEARCH_DEFAULTS): LineSearchResult {
  return runEvaluating(strongWolfeSteps(x, f0, g0, p, alpha0, opts), obj);
}

/** strongWolfe as a computation that requests its trial points one at a time (evaluating.ts), for searches run in lockstep. */
export function* strongWolfeSteps(x: Float64Array, f0: number, g0: Float64Array, p: Float64Array, alpha0: number, opts: LineSearchOptions = LINE_SEARCH_DEFAULTS): Evaluating<LineSearchResult> {
  const d0 = dot(g0, p);
  let evaluations = 0;
  function* trial(alpha: number): Evaluating<Trial> {
    evaluations++;
    const xt = axpy(x, alpha, p);
    const r = yield [xt];
    const f = r.f[0]!;
    const g = r.g[0]!;
    const finite = Number.isFinite(f) && g.every(Number.isFinite);
    return { alpha, x: xt, f: finite ? f : Infinity, g, d: finite ? dot(g, p) : NaN };
  }
  const done = (t: Trial, ok: boolean, unbounded = false): LineSearchResult => ({ ok, unbounded, alpha: t.alpha, x: t.x, f: t.f, g: t.g, evaluations });
  const start: Trial = { alpha: 0, x, f: f0, g: g0, d: d0 };
  if (!(d0 < 0)) return done(start, false);
  const armijo = (t: Trial) => t.f <= f0 + opts.c1 * t.alpha * d0;
  const curvature = (t: Trial) => Math.abs(t.d) <= -opts.c2 * d0;

  function* zoom(lo: Trial, hi: Trial): Evaluating<LineSearchResult> {
    while (evaluations < opts.maxEvaluations) {
      const t = yield* trial(interpolate(lo, hi));
      if (!armijo(t) || t.f >= lo.f) hi = t;
      else {
        if (curvature(t)) return done(t, true);
        if (t.d * (hi.alpha - lo.alpha) >= 0) hi = lo;
        lo = t;
      }
      if (Math.abs(hi.alpha - lo.alpha) <= 1e-16 * Math.max(1, lo.alpha)) break;
    }
    // No step meets both conditions; one of sufficient decrease is still progress.
    return done(lo, lo.alpha > 0);
  }

  let prev = start;
  let alpha = alpha0;
  while (evaluations < opts.maxEvaluations) {
    const t = yield* trial(alpha);
    if (!armijo(t) || (prev.alpha > 0 && t.f >= prev.f)) return yield* zoom(prev, t);
    if (curvature(t)) return done(t, true);
    if (t.d >= 0) return yield* zoom(t, prev);
    prev = t;
    alpha *= 2;
  }
  // Never bracketed: after maxEvaluations doublings (2^39 times the first step) the objective still
  // falls as steeply, which is an objective without a minimum along p (a density increasing without
  // bound), not a step to take; Stan's line search fails here too.
  return done(prev, false, prev.alpha > 0);
}

// The minimizer of the cubic through both ends' values and slopes, kept in the middle 80% of the
// bracket (a step onto an end would not shrink it); bisection where an end is infinite.
function interpolate(lo: Trial, hi: Trial): number {
  const a = lo.alpha;
  const b = hi.alpha;
  const left = Math.min(a, b) + 0.1 * Math.abs(b - a);
  const right = Math.max(a, b) - 0.1 * Math.abs(b - a);
  if (!Number.isFinite(hi.f) || !Number.isFinite(hi.d)) return 0.5 * (a + b);
  const d1 = lo.d + hi.d - 3 * (lo.f - hi.f) / (a - b);
  const disc = d1 * d1 - lo.d * hi.d;
  if (!(disc >= 0)) return 0.5 * (a + b);
  const d2 = Math.sign(b - a) * Math.sqrt(disc);
  const c = b - (b - a) * (hi.d + d2 - d1) / (hi.d - lo.d + 2 * d2);
  return Number.isFinite(c) ? Math.min(right, Math.max(left, c)) : 0.5 * (a + b);
}
