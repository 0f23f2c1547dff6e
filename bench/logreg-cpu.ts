/**
 * CPU benchmark: value + gradient of a logistic-regression log density, N = 100,000, D = 100, f64.
 *   lp = Σ (y·η − softplus(η)) + Σ Normal(β | 0, σ),  η = X·β
 *   ∇ = Xᵀ(y − sigmoid(η)) − β/σ²
 * Compares (a) the reference interpreter, (b) the compiled CPU path (autodiff graph after optimize,
 * and the hand-built gradient graph), (c) a hand-written JavaScript loop of the same math.
 * Prints JSON (milliseconds per value+gradient evaluation). Run: npx tsx bench/logreg-cpu.ts
 */
import * as T from "../packages/tensor/src/index.ts";
import * as TI from "../packages/tensor/src/internals.ts";

const N = Number(process.env.N ?? 100_000), D = Number(process.env.D ?? 100), SIGMA = 2;

// Deterministic data: a small LCG, so every run times the same work.
let state = 12345;
const rand = () => ((state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32);
const X = Float64Array.from({ length: N * D }, () => rand() * 2 - 1);
const trueBeta = Float64Array.from({ length: D }, () => rand() - 0.5);
const y = new Float64Array(N);
for (let i = 0; i < N; i++) {
  let e = 0;
  for (let j = 0; j < D; j++) e += X[i * D + j]! * trueBeta[j]!;
  y[i] = rand() < 1 / (1 + Math.exp(-e)) ? 1 : 0;
}
const beta = Float64Array.from({ length: D }, () => 0.1 * (rand() - 0.5));

// The model as a graph.
const Xn = T.data("X", [N, D]), yn = T.data("y", [N]), bn = T.param("beta", [D]);
const eta = T.matmul(Xn, bn);
const prior = T.sum(T.sub(T.mul(-0.5, T.square(T.div(bn, SIGMA))), Math.log(SIGMA) + 0.5 * Math.log(2 * Math.PI)));
const lp = T.add(T.sum(T.sub(T.mul(yn, eta), T.softplus(eta))), prior);
const autodiff = TI.optimize([lp, ...T.grad(lp, [bn])]);
const handGrad = T.sub(T.matmul(T.transpose(Xn), T.sub(yn, T.sigmoid(eta))), T.div(bn, SIGMA * SIGMA));
const bindings = { X, y, beta };

// (c) The same math written by hand: one pass over X per evaluation.
const grad = new Float64Array(D);
function handWritten(b: Float64Array): number {
  let lpv = 0;
  grad.fill(0);
  for (let i = 0; i < N; i++) {
    const row = i * D;
    let e = 0;
    for (let j = 0; j < D; j++) e += X[row + j]! * b[j]!;
    lpv += y[i]! * e - (e > 0 ? e + Math.log1p(Math.exp(-e)) : Math.log1p(Math.exp(e)));
    const r = y[i]! - (e >= 0 ? 1 / (1 + Math.exp(-e)) : Math.exp(e) / (1 + Math.exp(e)));
    for (let j = 0; j < D; j++) grad[j]! += r * X[row + j]!;
  }
  const c = Math.log(SIGMA) + 0.5 * Math.log(2 * Math.PI);
  for (let j = 0; j < D; j++) {
    lpv += -0.5 * (b[j]! / SIGMA) ** 2 - c;
    grad[j]! -= b[j]! / (SIGMA * SIGMA);
  }
  return lpv;
}

// Medians over interleaved runs: the candidates take turns, so a burst of load on a shared machine hits all of them alike.
function timeInterleaved(runs: number, fns: Record<string, () => unknown>): Record<string, number> {
  const names = Object.keys(fns);
  const ms: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const n of names) for (let i = 0; i < 3; i++) fns[n]!(); // warm up (JIT)
  for (let r = 0; r < runs; r++) {
    for (const n of names) {
      const t0 = performance.now();
      fns[n]!();
      ms[n]!.push(performance.now() - t0);
    }
  }
  return Object.fromEntries(
    names.map((n) => {
      const sorted = ms[n]!.sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      process.stderr.write(`${n}: median ${median.toFixed(2)} ms over ${runs} runs\n`);
      return [n, median];
    }),
  );
}

const cpu = TI.compiledBackend();
const t0 = performance.now();
const compiled = cpu.compileSync(autodiff);
const compileMs = performance.now() - t0;
const compiledHand = cpu.compileSync([lp, handGrad]);

// (b'') The compiled program bound as the sampler binds it: with X in a WebAssembly arena (as
// modelDensity places large data) the two matrix-vector products run in WebAssembly; with X in
// an ordinary array they run as JavaScript loops (the same bound path otherwise).
const arena = TI.Arena.create();
const Xa = arena.alloc(X.length);
Xa.set(X);
const boundOuts = (bound: T.BoundExecutable): { lp: Float64Array; grad: Float64Array } => {
  const out = { lp: new Float64Array(1), grad: new Float64Array(D) };
  bound.setInput(bound.slot("beta"), beta, 0);
  bound.setOutput(0, out.lp, 0);
  bound.setOutput(1, out.grad, 0);
  return out;
};
const boundWasm = compiled.bindSync({ X: Xa, y });
const wasmOut = boundOuts(boundWasm);
const boundJs = compiled.bindSync({ X, y });
const jsOut = boundOuts(boundJs);
boundWasm.run();
boundJs.run();
// The WebAssembly kernels add the same products in the same order: the same bits.
if (!Object.is(wasmOut.lp[0], jsOut.lp[0]) || !wasmOut.grad.every((g, j) => Object.is(g, jsOut.grad[j]))) throw new Error("WebAssembly and JavaScript paths differ");

// Agreement check before timing: all paths compute the same value and gradient.
const [vC, gC] = compiled.runSync(bindings);
const [vH] = compiledHand.runSync(bindings);
const vLoop = handWritten(beta);
const maxGradDiff = Math.max(...Array.from(gC!.data, (g, j) => Math.abs(g - grad[j]!)));
if (Math.abs(vC!.data[0]! - vLoop) > 1e-8 * Math.abs(vLoop) || Math.abs(vH!.data[0]! - vLoop) > 1e-8 * Math.abs(vLoop) || maxGradDiff > 1e-8) {
  throw new Error(`paths disagree: compiled ${vC!.data[0]}, hand graph ${vH!.data[0]}, loop ${vLoop}, max |Δgrad| ${maxGradDiff}`);
}

const { reference: referenceMs } = timeInterleaved(3, { reference: () => T.interpret(autodiff, bindings) });
const { compiled: compiledMs, compiledHand: compiledHandMs, hand: handMs, boundJs: boundJsMs, boundWasm: boundWasmMs } = timeInterleaved(40, {
  compiled: () => compiled.runSync(bindings),
  compiledHand: () => compiledHand.runSync(bindings),
  hand: () => handWritten(beta),
  boundJs: () => boundJs.run(),
  boundWasm: () => boundWasm.run(),
});

console.log(
  JSON.stringify(
    {
      case: "logreg value+gradient",
      N, D, dtype: "f64",
      ms_per_gradient: {
        reference_interpreter: +referenceMs.toFixed(2),
        compiled: +compiledMs.toFixed(2),
        compiled_hand_gradient_graph: +compiledHandMs.toFixed(2),
        hand_written_loop: +handMs.toFixed(2),
        compiled_bound_js: +boundJsMs.toFixed(2),
        compiled_bound_wasm: +boundWasmMs.toFixed(2),
      },
      wasm_vs_js: +(boundWasmMs / boundJsMs).toFixed(2),
      compiled_vs_hand_written: +(compiledMs / handMs).toFixed(2),
      compile_ms: +compileMs.toFixed(1),
      kernels: compiled.stats.kernels,
    },
    null,
    2,
  ),
);
