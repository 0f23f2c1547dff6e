// The approximations' batched evaluations on the CPU: a batched objective of fixed batch sizes
// (padded, split) gives each point's value and gradient as the objective does; Pathfinder's paths
// in lockstep give the bits of its paths run one after the other; ADVI and the Laplace Hessian
// over a batched objective give the bits of their one-point-at-a-time evaluation.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approximate, compileModel, laplaceMode, modelDensity, philoxRng, type BatchedDensity } from "../src/index.ts";
import {
  advi, finiteDifferenceHessian, PATH_DEFAULTS, fixedBatchObjective, loopedObjective, objectiveOf, optimizationDensity, pathfinder, runLockstep, singlePath, strongWolfeSteps,
  type BatchedObjective, type Objective,
} from "../src/inference.ts";
import { seedKey } from "../src/random/streams.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const data = JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8"));

// log p(q) = −½ Σ w_i q_i² over rows of a fixed batch size, counting its calls.
function quadraticDensity(dim: number, rows: number, calls: number[]): BatchedDensity {
  return {
    dim,
    logpGrad(q, lp, grad) {
      expect(q.length).toBe(rows * dim);
      calls.push(rows);
      for (let r = 0; r < rows; r++) {
        let t = 0;
        for (let i = 0; i < dim; i++) {
          const v = q[r * dim + i]!;
          t -= 0.5 * (i + 1) * v * v;
          grad[r * dim + i] = -(i + 1) * v;
        }
        lp[r] = t;
      }
    },
  };
}

const objective = async (): Promise<Objective> => objectiveOf(await optimizationDensity(compileModel(eightSchools, data), true));

// The CPU density restricted to batches of exactly `rows` points (as the GPU's batched gradient is built).
function fixedRows(density: BatchedDensity, rows: number): BatchedDensity {
  return { dim: density.dim, logpGrad: (q, lp, grad) => (expect(lp.length).toBe(rows), density.logpGrad(q, lp, grad)) };
}

describe("batched objective", () => {
  it("fixed batch sizes: a call takes the smallest size that holds it, pads it, splits beyond the largest; values as one point at a time", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 4 }), (n, dim) => {
      const calls: number[] = [];
      const batched = fixedBatchObjective(new Map([[3, quadraticDensity(dim, 3, calls)], [8, quadraticDensity(dim, 8, calls)]]));
      const x = Float64Array.from({ length: n * dim }, (_, k) => Math.sin(k + 1));
      const f = new Float64Array(n);
      const grad = new Float64Array(n * dim);
      batched.evaluateBatch(x, n, f, grad);
      const one = loopedObjective(objectiveOf(quadraticDensity(dim, 1, [])));
      const f1 = new Float64Array(n);
      const g1 = new Float64Array(n * dim);
      one.evaluateBatch(x, n, f1, g1);
      expect(Array.from(f)).toEqual(Array.from(f1));
      expect(Array.from(grad)).toEqual(Array.from(g1));
      const expected = n <= 3 ? [3] : n <= 8 ? [8] : [...Array<number>(Math.floor(n / 8)).fill(8), ...(n % 8 === 0 ? [] : [n % 8 <= 3 ? 3 : 8])];
      expect(calls).toEqual(expected);
      expect(batched.calls).toBe(expected.length);
    }), { numRuns: 60 });
  });

  it("line searches in lockstep: each search's result is the one it reaches alone", () => {
    const obj = objectiveOf(quadraticDensity(3, 1, []));
    const starts = [[1, -2, 0.5], [3, 1, -1], [-0.2, 0.1, 4]].map((v) => Float64Array.from(v));
    const search = (x: Float64Array) => {
      const g = new Float64Array(3);
      const f = obj.evaluate(x, g);
      return strongWolfeSteps(x, f, g, g.map((v) => -v), 0.01);
    };
    const together = runLockstep(starts.map(search), loopedObjective(obj));
    starts.forEach((x, i) => {
      const alone = runLockstep([search(x)], loopedObjective(obj))[0]!;
      expect(together[i]).toEqual(alone);
    });
  });
});

describe("the approximations over a batched objective, on the CPU (eight schools, noncentered)", () => {
  it("pathfinder: the paths in lockstep are the bits of each path run alone, and of a batched density of fixed sizes", async () => {
    const obj = await objective();
    const init = [0.5, -1, 1.5].map((c) => Float64Array.from({ length: obj.dim }, (_, i) => c * Math.cos(i)));
    const opts = { seed: 11, numPaths: 3, numDraws: 60, init };
    const together = pathfinder(obj, opts);
    const key = seedKey(11);
    together.paths.forEach((p) => {
      const alone = singlePath(obj, init[p.path]!, p.path, key, { ...PATH_DEFAULTS, numDraws: 60 });
      expect(alone.evaluations).toBe(p.evaluations);
      expect(Array.from(alone.draws!.lp)).toEqual(Array.from(p.draws!.lp));
      alone.draws!.x.forEach((x, k) => expect(Array.from(x)).toEqual(Array.from(p.draws!.x[k]!)));
    });
    const density = await optimizationDensity(compileModel(eightSchools, data), true);
    const batched = fixedBatchObjective(new Map([[3, fixedRows(density, 3)], [75, fixedRows(density, 75)]]));
    const onBatches = pathfinder(obj, opts, batched);
    expect(Array.from(onBatches.draws.lp)).toEqual(Array.from(together.draws.lp));
    onBatches.draws.x.forEach((x, k) => expect(Array.from(x)).toEqual(Array.from(together.draws.x[k]!)));
    // A round a call: far fewer calls than the paths' evaluations.
    expect(batched.calls).toBeLessThan(together.paths.reduce((t, p) => t + p.evaluations, 0) / 10);
  });

  it("advi (meanfield and fullrank) and the Laplace Hessian: the bits of one point at a time", async () => {
    const obj = await objective();
    const density = await modelDensity(compileModel(eightSchools, data));
    const batched = fixedBatchObjective(new Map([[2, fixedRows(density, 2)], [30, fixedRows(density, 30)]]));
    for (const algorithm of ["meanfield", "fullrank"] as const) {
      const o = { algorithm, iter: 400, gradSamples: 2, elboSamples: 30, evalElbo: 50 };
      const a = advi(obj, new Float64Array(obj.dim), philoxRng(3, 100), o);
      const b = advi(obj, new Float64Array(obj.dim), philoxRng(3, 100), o, batched);
      expect(Array.from(b.params)).toEqual(Array.from(a.params));
      expect(b.checks).toEqual(a.checks);
    }
    const x = Float64Array.from({ length: obj.dim }, (_, i) => 0.1 * i - 0.3);
    const h20 = fixedBatchObjective(new Map([[2 * obj.dim, fixedRows(density, 2 * obj.dim)]]));
    expect(Array.from(finiteDifferenceHessian(obj, x, h20))).toEqual(Array.from(finiteDifferenceHessian(obj, x)));
    expect(h20.calls).toBe(1);
  });

  it("advi's step-size trials in lockstep: the bits of the trials in turn, in fewer batched calls; draws dropped where the density is not finite", async () => {
    const counted = (inner: BatchedObjective): BatchedObjective & { rounds: number } => {
      const c = { dim: inner.dim, rounds: 0, calls: 0, evaluateBatch(x: Float64Array, n: number, f: Float64Array, g: Float64Array) { c.rounds++; inner.evaluateBatch(x, n, f, g); } };
      return c;
    };
    const o = { iter: 100, evalElbo: 100, elboSamples: 20, adaptIter: 30 };
    const obj = await objective();
    const x0 = new Float64Array(obj.dim);
    const inTurn = advi(obj, x0, philoxRng(8, 100), o);
    const batched = counted(loopedObjective(obj));
    const lockstep = advi(obj, x0, philoxRng(8, 100), o, batched);
    expect(Array.from(lockstep.params)).toEqual(Array.from(inTurn.params));
    expect(lockstep.adaptation).toEqual(inTurn.adaptation);
    // In turn: the initial ELBO, each trial's gradients and ELBO, the ascent's gradients and its one ELBO check.
    const trials = inTurn.adaptation!.trials.length;
    expect(trials).toBeGreaterThan(1);
    expect(batched.rounds).toBeLessThan(1 + trials * (o.adaptIter + 1) + o.iter + 1);

    // −log p = ½|x − 1|² where x₀ < 2.5, +∞ beyond: the trials drop draws (and the large η's diverge), so a
    // trial reads further than predicted and the ones after it run again from where it stopped.
    let infinite = 0;
    const bounded: Objective = {
      dim: 3,
      evaluate(x, g) {
        let t = 0;
        for (let i = 0; i < 3; i++) (g[i] = x[i]! - 1), (t += 0.5 * (x[i]! - 1) ** 2);
        if (x[0]! >= 2.5) return (infinite++, Infinity);
        return t;
      },
    };
    const b0 = new Float64Array(3);
    const a = advi(bounded, b0, philoxRng(4, 100), o);
    const dropped = infinite;
    const b = advi(bounded, b0, philoxRng(4, 100), o, loopedObjective(bounded));
    expect(dropped).toBeGreaterThan(0);
    expect(Array.from(b.params)).toEqual(Array.from(a.params));
    expect(b.adaptation).toEqual(a.adaptation);
    expect(b.checks).toEqual(a.checks);
  });

  it("laplace's mode search over a batched objective: L-BFGS one row a call, each Newton Hessian one call, the CPU's mode bit for bit", async () => {
    const obj = await objective();
    const density = await modelDensity(compileModel(eightSchools, data));
    const rows: number[] = [];
    const counted = (n: number): BatchedDensity => ({ dim: density.dim, logpGrad: (q, lp, g) => (rows.push(n), fixedRows(density, n).logpGrad(q, lp, g)) });
    const batched = fixedBatchObjective(new Map([[1, counted(1)], [2 * obj.dim, counted(2 * obj.dim)]]));
    const x0 = Float64Array.from({ length: obj.dim }, (_, i) => 0.2 * i - 1);
    const cpu = laplaceMode(obj, x0);
    const placed = laplaceMode(obj, x0, batched);
    expect(Array.from(placed.x)).toEqual(Array.from(cpu.x));
    expect([placed.f, placed.iterations, placed.evaluations, placed.converged]).toEqual([cpu.f, cpu.iterations, cpu.evaluations, cpu.converged]);
    // Every evaluation went through the batched objective: one-row calls (L-BFGS, Newton's line
    // searches) and 2·dim-row calls (Newton's Hessians, one per direction and scaled gradient).
    expect(rows.filter((n) => n === 1).length).toBeGreaterThan(placed.iterations);
    expect(rows.filter((n) => n === 2 * obj.dim).length).toBeGreaterThan(0);
    expect(rows.every((n) => n === 1 || n === 2 * obj.dim)).toBe(true);
  });
});

describe("approximate()'s backend without a GPU runner registered", () => {
  it("vulkan is a FitError naming the import; auto stays on the CPU with the same draws", async () => {
    await expect(approximate(eightSchools, data, { method: "laplace", seed: 1, draws: 10, backend: "vulkan" })).rejects.toThrow(/import '@ppl\/ppl-vulkan'/);
    const cpu = await approximate(eightSchools, data, { method: "laplace", seed: 1, draws: 10 });
    const auto = await approximate(eightSchools, data, { method: "laplace", seed: 1, draws: 10, backend: "auto" });
    expect(Array.from(auto.draws("mu"))).toEqual(Array.from(cpu.draws("mu")));
    expect(auto.notes).toEqual(cpu.notes);
  });
});
