/**
 * Demo of the tensor layer: build the log density of a small hierarchical model (eight schools,
 * non-centred) as a graph, differentiate it, and print the value and gradient at a point.
 */
import * as T from "./src/index.ts";
import * as TI from "./src/internals.ts";

const y = [28, 8, -3, 7, -1, 1, 18, 12];
const sigma = [15, 10, 16, 11, 9, 11, 10, 18];
const J = y.length;

// Unconstrained parameters: mu, log tau, theta_trans[J].
const mu = T.param("mu");
const logTau = T.param("log_tau");
const thetaTrans = T.param("theta_trans", [J]);
const tau = T.exp(logTau);

const normalLpdf = (x: T.Operand, m: T.Operand, s: T.Operand) =>
  T.sub(T.sub(T.mul(-0.5, T.square(T.div(T.sub(x, m), s))), T.log(s)), 0.5 * Math.log(2 * Math.PI));

const theta = T.add(mu, T.mul(tau, thetaTrans));
const lp = T.add(
  T.add(T.sum(normalLpdf(thetaTrans, 0, 1)), normalLpdf(mu, 0, 5)),
  T.add(
    // half-Cauchy(0, 5) on tau, plus the log-Jacobian of tau = exp(log_tau)
    T.add(T.sub(Math.log(2 / (Math.PI * 5)), T.log1p(T.square(T.div(tau, 5)))), logTau),
    T.sum(normalLpdf(T.data("y", [J]), theta, T.data("sigma", [J]))),
  ),
);

const { value, grads } = T.valueAndGrad(lp, [mu, logTau, thetaTrans]);
const backend = await T.getBackend("cpu");
const exe = backend.compileSync!([value, ...grads]);
const point = { mu: 4.4, log_tau: Math.log(3.6), theta_trans: [0.3, 0.1, -0.1, 0.05, -0.2, -0.1, 0.3, 0.1], y, sigma };
const [v, gMu, gLogTau, gTheta] = exe.runSync!(point);
const fmt = (a: Float64Array) => Array.from(a, (x) => x.toFixed(6)).join(", ");
console.log(`graph: ${TI.toposort([value, ...grads]).length} nodes, compiled into ${exe.stats.kernels} fused loops on ${backend.device}`);
console.log(`log density       = ${v!.data[0]!.toFixed(6)}`);
console.log(`d/d mu            = ${fmt(gMu!.data)}`);
console.log(`d/d log_tau       = ${fmt(gLogTau!.data)}`);
console.log(`d/d theta_trans   = [${fmt(gTheta!.data)}]`);
