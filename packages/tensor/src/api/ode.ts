import { jvp } from "../autodiff/jvp.ts";
import { substitute } from "../graph/substitute.ts";
import { toposort } from "../graph/toposort.ts";
import { floatOf, isFloat, type DType } from "../ir/dtype.ts";
import { GraphError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { fmt, sameShape, sizeOf } from "../ir/shape.ts";
import {
  add, and, cast, ge, gt, isFinite, le, lt, maximum, minimum, mul, not, or, pow, select, sqrt, square, stopGradient, sub, abs, div,
} from "./elementwise.ts";
import { constant, lift, param, type Operand } from "./leaves.ts";
import { matmul } from "./linalg.ts";
import { mean, sum } from "./reduce.ts";
import { scan } from "./scan.ts";
import { concat, index, reshape, slice, stack } from "./shape-ops.ts";

/** An ODE right-hand side dy/dt = f(t, y, theta): y is the state vector [n], the result has its shape. */
export type OdeRhs = (t: Node, y: Node, theta: Node[]) => Node;

/** Tolerances and the step budget of an adaptive solver. */
export interface OdeOptions {
  /** Relative tolerance of the local error test (1e-6, Stan's default). */
  rtol?: number;
  /**
   * Absolute tolerance of the local error test (1e-6, Stan's default), for a state that changes
   * sign or touches zero within a step; a state that keeps its sign is held to rtol relative to its
   * own magnitude however small it is (see errorScale in ode.ts).
   */
  atol?: number;
  /**
   * Step attempts (accepted or rejected) between two output times before the solve counts as
   * failed (1000): Stan's max_num_steps, which its solvers count per output interval too. Each
   * interval is a scan of this length; once its output time is reached its steps change nothing,
   * and the backends stop a scan at such a fixed point, so a generous maxSteps costs nothing while
   * unused. `odeRK45Solve(...).steps` tells how many a solve took in all.
   */
  maxSteps?: number;
}

/** A solve with its bookkeeping: the states, whether every output time was reached, and the attempts used. */
export interface OdeSolution {
  /** States at the output times, [N, n]; NaN everywhere when the solve failed. */
  states: Node;
  /** True when every output time was reached within maxSteps attempts of the one before (bool scalar). */
  ok: Node;
  /** Step attempts used, accepted and rejected (f64 scalar). */
  steps: Node;
}

/** An ODE problem the solver cannot take as given; the message says what to change. */
export class OdeError extends GraphError {
  constructor(message: string) {
    super(message);
    this.name = "OdeError";
  }
}

// Dormand–Prince 5(4): nodes c, stage matrix a, 5th-order weights b (also stage 7's input, so the
// last stage is the next step's first: FSAL) and the embedded 4th-order weights bs.
const C = [0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1];
const A: number[][] = [
  [],
  [1 / 5],
  [3 / 40, 9 / 40],
  [44 / 45, -56 / 15, 32 / 9],
  [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
  [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
  [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
];
const B = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0];
const BS = [5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40];
const E = B.map((b, i) => b - BS[i]!);

// Step-size controller (Hairer, Nørsett & Wanner II.4): safety factor and the bounds of one change.
const SAFETY = 0.9, MIN_FACTOR = 0.2, MAX_FACTOR = 10;

let placeholderCount = 0;

/**
 * Solves dy/dt = rhs(t, y, theta) from y(t0) = y0 with the adaptive Dormand–Prince Runge–Kutta 4(5)
 * method (Stan's ode_rk45) and returns the states at the increasing output times ts, [N, n].
 * Gradients come from forward sensitivities; a solve that runs out of maxSteps gives NaN states.
 */
export function odeRK45(rhs: OdeRhs, y0: Node, t0: Operand, ts: Node, theta: readonly Node[] = [], opts: OdeOptions = {}): Node {
  return odeRK45Solve(rhs, y0, t0, ts, theta, opts).states;
}

/**
 * odeRK45 with its bookkeeping (whether it finished, the attempts it used).
 *
 * How it works. One scan per output interval, of length maxSteps; each iteration attempts one step
 * from t with h clipped to the interval's output time, accepts it when the local error (RMS over
 * the state, scaled by errorScale: relative for a state that keeps its sign) is ≤ 1, and proposes the next h; the interval ends when a
 * step lands on its output time, and the next interval's scan starts from its carries. Only the
 * current state is carried, so a scan's step does the same work whatever the number of outputs.
 * The state carries the sensitivities S = ∂y/∂(y0, theta) too, integrated by the same Runge–Kutta
 * stages along dS/dt = J_y·S + J_θ (the Jacobians' columns are jvps of the rhs), so each step's S is the exact
 * derivative of that step's map at fixed h. Only y enters the error test (CVODES's default): the
 * step sequence then does not depend on how S is scaled, and any deterministic gradient keeps HMC
 * exact, since the log density itself is evaluated exactly as solved. Only a gradient close to the
 * density's own derivative keeps HMC efficient, though: S at fixed h is that derivative only where
 * the states are resolved, which is why small states are resolved relative to themselves (errorScale).
 *
 * The scans themselves are never differentiated: they read y0, theta and ts through stopGradient, so no
 * gradient flows through h or the accept/reject choices. The returned states are
 * stopGradient(y) + S·(p − stopGradient(p)) for p = (y0, theta) flattened: the value is y, the
 * gradient is Sᵀ·cotangent. Only inputs that depend on a parameter get sensitivity columns.
 */
export function odeRK45Solve(rhs: OdeRhs, y0: Node, t0: Operand, ts: Node, theta: readonly Node[] = [], opts: OdeOptions = {}): OdeSolution {
  const rtol = opts.rtol ?? 1e-6, atol = opts.atol ?? 1e-6, maxSteps = opts.maxSteps ?? 1000;
  if (!(rtol > 0) || !(atol > 0)) throw new OdeError(`odeRK45: rtol and atol must be positive, got ${rtol} and ${atol}`);
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new OdeError(`odeRK45: maxSteps must be a positive integer, got ${maxSteps}`);
  if (y0.rank !== 1 || !isFloat(y0.dtype)) throw new OdeError(`odeRK45: y0 must be a float vector, got ${y0.dtype}${fmt(y0.shape)}; reshape a scalar state to [1]`);
  if (ts.rank !== 1 || ts.shape[0] === 0) throw new OdeError(`odeRK45: ts must be a non-empty vector of output times, got ${fmt(ts.shape)}`);
  const dt: DType = y0.dtype;
  const n = y0.shape[0]!, N = ts.shape[0]!;
  for (const [j, th] of theta.entries()) {
    if (!isFloat(th.dtype)) throw new OdeError(`odeRK45: theta[${j}] is ${th.dtype}; pass integer data through the rhs's closure instead`);
  }

  // Which inputs move with the parameters: only they get sensitivity columns.
  const sensY0 = isVariable(y0);
  const sensTheta = theta.map(isVariable);
  const columns: { y0?: number; theta?: [number, number] }[] = [];
  if (sensY0) for (let i = 0; i < n; i++) columns.push({ y0: i });
  theta.forEach((th, j) => {
    if (sensTheta[j]) for (let e = 0; e < th.size; e++) columns.push({ theta: [j, e] });
  });
  const P = columns.length;

  // The rhs, traced once over placeholders and substituted into each stage.
  const id = placeholderCount++;
  const tP = param(`__ode${id}_t`, [], dt), yP = param(`__ode${id}_y`, [n], dt);
  const thP = theta.map((th, j) => param(`__ode${id}_theta${j}`, th.shape, th.dtype));
  const f = rhs(tP, yP, thP);
  if (!sameShape(f.shape, [n]) || !isFloat(f.dtype)) throw new OdeError(`odeRK45: rhs returned ${f.dtype}${fmt(f.shape)} for a state of ${fmt([n])}; return dy/dt with the state's shape`);
  const placeholders = new Set<Node>([tP, yP, ...thP]);
  const stray = toposort([f]).find((x) => x.op === "param" && !placeholders.has(x));
  if (stray) {
    throw new OdeError(`odeRK45: rhs reads the parameter '${String(stray.attrs.name)}' from its closure; pass what depends on parameters through theta, so that its sensitivities are integrated`);
  }
  // The Jacobians J_y [n, n] and J_θ [n, P_θ] (only the sensitive entries of theta), each column a jvp
  // along a basis vector: with symbolic zeros these are the plain partial derivatives of the rhs.
  const basis = (shape: readonly number[], at: number, dtype: DType) => oneHot(shape, at, dtype);
  const jy = stack(Array.from({ length: n }, (_, i) => jvp([f], [yP], [basis([n], i, dt)])[0]!), 1);
  const thetaCols = columns.filter((c) => c.theta).map(({ theta: [j, e] = [0, 0] }) => jvp([f], [thP[j]!], [basis(thP[j]!.shape, e, thP[j]!.dtype)])[0]!);
  const jth = thetaCols.length > 0 ? stack(thetaCols, 1) : null;
  const nY0 = sensY0 ? n : 0;
  const template = [f, jy, ...(jth ? [jth] : [])];
  // (f, J_y·S + J_θ) at one stage: the template with the stage's values in place of the placeholders.
  const augmented = (t: Node, y: Node, S: Node | null, th: readonly Node[]): [Node, Node | null] => {
    const m = new Map<Node, Node>([[tP, t], [yP, y], ...thP.map((x, j) => [x, th[j]!] as const)]);
    const [fv, jyv, jthv] = substitute(template, m);
    if (!S) return [cast(fv!, dt), null];
    let ks = matmul(cast(jyv!, dt), S);
    if (jthv) ks = add(ks, nY0 > 0 ? concat([constant(0, [n, nY0], dt), cast(jthv, dt)], 1) : cast(jthv, dt));
    return [cast(fv!, dt), ks];
  };

  // The solver reads its inputs without their gradients; the sensitivities carry those.
  const t0s = stopGradient(lift(t0, dt));
  const tsS = stopGradient(cast(ts, dt));
  const y0s = stopGradient(y0);
  const thS = theta.map((th) => stopGradient(th));
  const S0 = P === 0 ? null : constant(Array.from({ length: n * P }, (_, q) => (columns[q % P]!.y0 === Math.floor(q / P) ? 1 : 0)), [n, P], dt);
  const [f0, FS0] = augmented(t0s, y0s, S0, thS);

  // Initial step (Hairer, Nørsett & Wanner II.4, the first half of their estimate): 1% of |y|/|f| in the error norm.
  const sc0 = add(atol, mul(rtol, abs(y0s)));
  const d0 = rms(div(y0s, sc0)), d1 = rms(div(f0, sc0));
  const span = sub(index(tsS, N - 1), t0s);
  const h0 = minimum(select(or(lt(d0, 1e-5), lt(d1, 1e-5)), constant(1e-6, [], dt), mul(0.01, div(d0, d1))), maximum(span, 0));

  // One scan per output interval, each carrying only the current state: a scan's loop then runs at
  // most maxSteps steps of one state, never N times the state (drivers that cap the loop iterations
  // of one invocation, llvmpipe's 65,535, meet each scan as a kernel of its own). The state and its
  // sensitivities travel as one [n, 1 + P] array and the attempts so far as a carry, so what reads
  // the N intervals' states and sensitivities reads N buffers, not 2N (a shader binds a limited
  // number: 32 on lavapipe).
  const zero = constant(0, [], dt);
  let c: Node[] = [t0s, packState(y0s, S0, n), packState(f0, FS0, n), h0, zero, zero];
  const Ys: Node[] = [];
  let ok: Node | null = null;
  for (let k = 0; k < N; k++) {
    const { carry } = odeInterval(c, index(tsS, k), thS, { augmented, rtol, atol, maxSteps, dt, n, P });
    const [t, Y, F, h, reached, steps] = carry as [Node, Node, Node, Node, Node, Node];
    Ys.push(Y);
    const landed = ge(reached!, 0.5);
    ok = ok ? and(ok, landed) : landed;
    c = [t, Y, F, h, zero, steps];
  }
  const Ystack = stack(Ys); // [N, n, 1 + P]
  const value = select(ok!, stopGradient(reshape(slice(Ystack, [undefined, undefined, { stop: 1 }]), [N, n])), NaN);
  let states = value;
  if (P > 0) {
    const p = concat([...(sensY0 ? [y0] : []), ...theta.filter((_, j) => sensTheta[j]).map((th) => reshape(cast(th, dt), [th.size]))]);
    const dp = reshape(sub(p, stopGradient(p)), [P, 1]);
    const SY = slice(Ystack, [undefined, undefined, { start: 1 }]);
    states = add(value, reshape(matmul(reshape(SY, [N * n, P]), dp), [N, n]));
  }
  return { states, ok: ok!, steps: c[5]! };
}

/** What one interval's scan needs from its solve. */
interface IntervalSolver {
  /** (f, J_y·S + J_θ) at a stage. */
  augmented(t: Node, y: Node, S: Node | null, th: readonly Node[]): [Node, Node | null];
  rtol: number;
  atol: number;
  maxSteps: number;
  dt: DType;
  /** The state's size and the sensitivity columns. */
  n: number;
  P: number;
}

/**
 * The steps from carry (t, Y, F, h, reached, attempts) to the output time `target`, where
 * Y = [y | S] and F = [f | J_y·S + J_θ] ([n, 1 + P]): a scan of maxSteps attempts, each one step from
 * t with h clipped to the target, accepted when the local error (RMS over the state, scaled by
 * errorScale) is ≤ 1, with the next h proposed. Once the target is reached (reached = 1) a step
 * changes nothing, so the backends stop the scan there; attempts counts on from the earlier intervals'.
 */
function odeInterval(c: readonly Node[], target: Node, thS: readonly Node[], s: IntervalSolver) {
  const { augmented, rtol, atol, dt, n, P } = s;
  const column = (X: Node) => reshape(slice(X, [undefined, { stop: 1 }]), [n]);
  const rest = (X: Node) => (P > 0 ? slice(X, [undefined, { start: 1 }]) : null);
  return scan(
    (cc, _xs, [tNext, ...thA]) => {
      const [t, Y, F, h, reached, steps] = cc as [Node, Node, Node, Node, Node, Node];
      const y = column(Y), fy = column(F), S = rest(Y), FSy = rest(F);
      const done = ge(reached, 0.5);
      const rem = sub(tNext!, t);
      const hs = minimum(h, rem);
      const hit = ge(h, rem);

      // The seven stages; the seventh is evaluated at the 5th-order solution (FSAL).
      const ks: Node[] = [fy], Ks: (Node | null)[] = [FSy];
      let y5 = y, S5 = S;
      for (let st = 1; st < 7; st++) {
        const ys = combine(y, hs, A[st]!, ks);
        const Sst = S ? combine(S, hs, A[st]!, Ks as Node[]) : null;
        if (st === 6) [y5, S5] = [ys, Sst];
        const [kf, kS] = augmented(add(t, mul(C[st]!, hs)), ys, Sst, thA);
        ks.push(kf);
        Ks.push(kS);
      }
      const err = mul(hs, weighted(E, ks)!);
      const en = rms(div(err, errorScale(y, y5, rtol, atol)));
      const finite = isFinite(en);
      const accept = and(and(le(en, 1), finite), not(done));
      const factor = select(finite, minimum(maximum(mul(SAFETY, pow(en, -0.2)), MIN_FACTOR), MAX_FACTOR), MIN_FACTOR);
      let hNew = mul(hs, select(accept, factor, minimum(factor, 1)));
      const record = and(accept, hit);
      // A step cut short to land on an output time says nothing against the step the controller wanted.
      hNew = select(record, maximum(hNew, h), hNew);
      return {
        carry: [
          select(accept, select(hit, tNext!, add(t, hs)), t),
          select(accept, packState(y5, S5, n), Y),
          select(accept, packState(ks[6]!, Ks[6] ?? null, n), F),
          select(done, h, hNew),
          select(record, 1, reached),
          select(done, steps, add(steps, 1)),
        ],
      };
    },
    c,
    [],
    [target, ...thS],
    { length: s.maxSteps },
  );
}

/**
 * The local error test's per-state scale over a step from y to y5: rtol·max(|y|, |y5|) for a state
 * that keeps its sign over the step, atol + rtol·max(|y|, |y5|) for one that changes sign or is zero
 * at either end.
 *
 * Why not atol + rtol·|y| throughout (Hairer's scale, Stan's). Below atol that scale controls a
 * state's error absolutely, so a state that decays towards zero keeps no significant digit: a prey
 * population that falls as e^(−15t) from 0.25 comes out near 1e-6 … 1e-9 where it is 1e-11 … 1e-21,
 * and the attempt sequence, not the parameters, decides which. A log density that reads such a
 * state through a log (populations, concentrations, counts' rates) then has a value that is smooth
 * between attempt-sequence changes but whose derivative, through the sequence, the sensitivities do
 * not see: the gradient is unrelated to the density (wrong in sign at such a Lotka–Volterra point),
 * the sampler's step size collapses and the chain stays where it started. A state that keeps its
 * sign has a scale of its own, its magnitude, so relative control is well defined there, and it is
 * what a log-scale reading needs: the state then has rtol's digits however small it is, its
 * sensitivities (integrated by the same steps) with it, and the density's gradient is its
 * derivative. Where resolving the decay takes more than maxSteps attempts the solve fails (NaN
 * states), a rejected initial point or a divergent transition, as Stan's solver's negative states
 * there make its likelihood throw. atol still bounds the error where a state crosses or touches zero
 * (a state that starts at 0, an oscillation), where relative control has no scale; there, as
 * before, a step's error is at most atol. The cost is in states that decay far below atol and keep
 * their sign: they are now resolved where they were left unresolved (more attempts per interval),
 * while states well above atol/rtol are controlled as before.
 */
function errorScale(y: Node, y5: Node, rtol: number, atol: number): Node {
  const relative = mul(rtol, maximum(abs(y), abs(y5)));
  // Compared by sign, not by y·y5 > 0, which underflows for small states.
  const keeps = or(and(gt(y, 0), gt(y5, 0)), and(lt(y, 0), lt(y5, 0)));
  return select(keeps, relative, add(atol, relative));
}

// [y | S] as one [n, 1 + P] array (just y as [n, 1] without sensitivities).
function packState(y: Node, S: Node | null, n: number): Node {
  return S ? concat([reshape(y, [n, 1]), S], 1) : reshape(y, [n, 1]);
}

// A node moves with the parameters when it reads a parameter or a scan argument.
function isVariable(x: Node): boolean {
  return toposort([x]).some((v) => v.op === "param" || v.op === "arg");
}

function oneHot(shape: readonly number[], at: number, dtype: DType): Node {
  return constant(Array.from({ length: sizeOf(shape) }, (_, i) => (i === at ? 1 : 0)), shape, floatOf(dtype));
}

// Σ w_i·k_i over the nonzero weights (null when all are zero).
function weighted(w: readonly number[], ks: readonly Node[]): Node | null {
  let acc: Node | null = null;
  for (let i = 0; i < Math.min(w.length, ks.length); i++) {
    if (w[i] === 0) continue;
    const term = mul(w[i]!, ks[i]!);
    acc = acc ? add(acc, term) : term;
  }
  return acc;
}

// base + h·Σ a_i·k_i.
function combine(base: Node, h: Node, a: readonly number[], ks: readonly Node[]): Node {
  const w = weighted(a, ks);
  return w ? add(base, mul(h, w)) : base;
}

function rms(x: Node): Node {
  return sqrt(mean(square(x)));
}

