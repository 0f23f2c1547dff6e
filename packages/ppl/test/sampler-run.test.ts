import { describe, expect, it } from "vitest";
import {
  InitializationError,
  sample,
  sampleAsync,
  SamplerOptionError,
  type BatchedDensity,
  type DrawInfo,
} from "../src/sampler/index.ts";

/** Independent normals with the given sds; `ignoreActive` evaluates every row regardless of the mask. */
function normals(sds: number[], ignoreActive = false): BatchedDensity & { rowsEvaluated: number } {
  const dim = sds.length;
  const density = {
    dim,
    rowsEvaluated: 0,
    logpGrad(q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array) {
      for (let c = 0; c < lp.length; c++) {
        if (!ignoreActive && active && !active[c]) continue;
        density.rowsEvaluated++;
        let s = 0;
        for (let i = 0; i < dim; i++) {
          const x = q[c * dim + i]! / sds[i]!;
          s += x * x;
          grad[c * dim + i] = -x / sds[i]!;
        }
        lp[c] = -0.5 * s;
      }
    },
  };
  return density;
}

const small = { warmup: 150, draws: 50, seed: 42 };

describe("sample driver", () => {
  it("returns draws, statistics and adaptation per chain", () => {
    const r = sample(normals([1, 2]), { ...small, chains: 3 });
    expect(r.draws).toHaveLength(3);
    expect(r.draws[0]).toHaveLength(50 * 2);
    expect(r.stats[2]!.lp).toHaveLength(50);
    expect(r.drawsDone).toBe(50);
    expect(r.warmupDone).toBe(150);
    expect(r.aborted).toBe(false);
    expect(r.adaptation[1]!.invMetric).toHaveLength(2);
    for (const st of r.stats) {
      for (let i = 0; i < 50; i++) {
        expect(st.nLeapfrog[i]).toBeGreaterThanOrEqual(1);
        expect(st.nLeapfrog[i]).toBeLessThan(2 ** (st.treeDepth[i]! + 1));
        expect(st.acceptStat[i]).toBeGreaterThanOrEqual(0);
        expect(st.acceptStat[i]).toBeLessThanOrEqual(1);
        expect(st.energy[i]).toBeGreaterThanOrEqual(-st.lp[i]!);
      }
      // Step size is fixed after warmup.
      expect(new Set(st.stepSize).size).toBe(1);
    }
    expect(r.settings.metric).toBe("diag");
    expect(r.gradientEvaluations.every((n) => n > 200)).toBe(true);
  });

  it("is reproducible from the seed and differs between seeds", () => {
    const a = sample(normals([1, 2]), small);
    const b = sample(normals([1, 2]), small);
    const c = sample(normals([1, 2]), { ...small, seed: 43 });
    expect(Array.from(a.draws[1]!)).toEqual(Array.from(b.draws[1]!));
    expect(Array.from(a.draws[1]!)).not.toEqual(Array.from(c.draws[1]!));
  });

  it("gives each chain the same result alone as in a batch (chain id = firstChain + row)", () => {
    const batched = sample(normals([1, 3]), { ...small, chains: 4 });
    const alone = sample(normals([1, 3]), { ...small, chains: 1, firstChain: 2 });
    expect(Array.from(alone.draws[0]!)).toEqual(Array.from(batched.draws[2]!));
    expect(Array.from(alone.stats[0]!.nLeapfrog)).toEqual(Array.from(batched.stats[2]!.nLeapfrog));
    expect(alone.adaptation[0]!.stepSize).toBe(batched.adaptation[2]!.stepSize);
  });

  it("does not depend on whether the backend skips inactive chains", () => {
    const masked = normals([1, 3]);
    const unmasked = normals([1, 3], true);
    const a = sample(masked, { ...small, chains: 4 });
    const b = sample(unmasked, { ...small, chains: 4 });
    for (let c = 0; c < 4; c++) expect(Array.from(a.draws[c]!)).toEqual(Array.from(b.draws[c]!));
    expect(masked.rowsEvaluated).toBeLessThan(unmasked.rowsEvaluated);
  });

  it("calls onDraw for every chain and iteration, warmup included", () => {
    const seen: DrawInfo[] = [];
    sample(normals([1]), { ...small, chains: 2, onDraw: (d) => seen.push({ ...d, position: Float64Array.from(d.position) }) });
    expect(seen).toHaveLength(2 * 200);
    expect(seen.filter((d) => d.warmup)).toHaveLength(2 * 150);
    expect(seen[seen.length - 1]!.iteration).toBe(199);
    expect(seen[seen.length - 1]!.chain).toBe(1);
  });

  it("stores every sampling draw and its statistics as onDraw reported them, chain by chain", () => {
    // 50 draws of 3 chains: several of the record's chunks of iterations and a partial one.
    const seen: DrawInfo[] = [];
    const r = sample(normals([1, 2, 3]), { ...small, chains: 3, onDraw: (d) => void (d.warmup || seen.push({ ...d, position: Float64Array.from(d.position) })) });
    expect(seen).toHaveLength(3 * 50);
    for (const d of seen) {
      const i = d.iteration - 150, st = r.stats[d.chain]!;
      expect(Array.from(r.draws[d.chain]!.subarray(i * 3, (i + 1) * 3))).toEqual(Array.from(d.position));
      expect([st.lp[i], st.acceptStat[i], st.stepSize[i], st.treeDepth[i], st.nLeapfrog[i], st.divergent[i], st.energy[i]])
        .toEqual([d.lp, d.acceptStat, d.stepSize, d.treeDepth, d.nLeapfrog, d.divergent ? 1 : 0, d.energy]);
    }
  });

  it("hands each chain's one draw record to onDraw, refilled in place (no object a draw), with the draws unchanged", () => {
    const records = new Map<number, Set<DrawInfo>>();
    const seen: DrawInfo[] = [];
    const r = sample(normals([1, 2]), {
      ...small,
      chains: 2,
      onDraw: (d) => {
        if (!records.has(d.chain)) records.set(d.chain, new Set());
        records.get(d.chain)!.add(d);
        if (!d.warmup) seen.push({ ...d, position: Float64Array.from(d.position) });
      },
    });
    expect([records.get(0)!.size, records.get(1)!.size]).toEqual([1, 1]);
    const plain = sample(normals([1, 2]), { ...small, chains: 2 });
    for (let c = 0; c < 2; c++) expect(Array.from(r.draws[c]!)).toEqual(Array.from(plain.draws[c]!));
    for (const d of seen) expect(Array.from(d.position)).toEqual(Array.from(r.draws[d.chain]!.subarray((d.iteration - 150) * 2, (d.iteration - 149) * 2)));
  });

  it("stops cleanly between iterations when aborted, keeping what was drawn", () => {
    const controller = new AbortController();
    const r = sample(normals([1, 2]), {
      ...small,
      chains: 2,
      signal: controller.signal,
      onDraw: (d) => {
        if (!d.warmup && d.iteration === 150 + 9 && d.chain === 1) controller.abort();
      },
    });
    expect(r.aborted).toBe(true);
    expect(r.drawsDone).toBe(10);
    expect(r.draws[0]).toHaveLength(20);
    expect(r.stats[1]!.energy).toHaveLength(10);
    const full = sample(normals([1, 2]), { ...small, chains: 2 });
    expect(Array.from(r.draws[1]!)).toEqual(Array.from(full.draws[1]!.slice(0, 20)));
    expect(Array.from(r.stats[1]!.energy)).toEqual(Array.from(full.stats[1]!.energy.slice(0, 10)));
  });

  it("lets an async run be aborted from the event loop", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    const r = await sampleAsync(normals(new Array<number>(50).fill(1)), {
      warmup: 100_000,
      draws: 10,
      seed: 1,
      signal: controller.signal,
      yieldEveryMs: 1,
    });
    expect(r.aborted).toBe(true);
    expect(r.warmupDone).toBeLessThan(100_000);
  });

  it("reports a density that is never finite with a typed error", () => {
    const nowhere: BatchedDensity = {
      dim: 2,
      logpGrad(_q, lp, grad) {
        lp.fill(-Infinity);
        grad.fill(0);
      },
    };
    expect(() => sample(nowhere, { chains: 4, seed: 1 })).toThrow(InitializationError);
    expect(() => sample(nowhere, { chains: 4, seed: 1 })).toThrow(
      "chain 1: log density was not finite at 100 random initial points in (-2, 2); check the model's support and data",
    );
    let error: unknown;
    try {
      sample(nowhere, { chains: 4, seed: 1, firstChain: 2 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InitializationError);
    expect((error as InitializationError).chain).toBe(2);
    expect(String(error)).toBe(
      "InitializationError: chain 3: log density was not finite at 100 random initial points in (-2, 2); check the model's support and data",
    );
  });

  it("retries initial points until the density is finite", () => {
    // Finite only where every coordinate is positive: a random point in (−2, 2)² hits it 1 time in 4.
    const quadrant: BatchedDensity = {
      dim: 2,
      logpGrad(q, lp, grad) {
        for (let c = 0; c < lp.length; c++) {
          const x = q[2 * c]!;
          const y = q[2 * c + 1]!;
          lp[c] = x > 0 && y > 0 ? Math.log(x) + Math.log(y) - x - y : -Infinity;
          grad[2 * c] = 1 / x - 1;
          grad[2 * c + 1] = 1 / y - 1;
        }
      },
    };
    const r = sample(quadrant, { chains: 4, warmup: 20, draws: 5, seed: 3 });
    for (const d of r.draws) for (const x of d) expect(x).toBeGreaterThan(0);
  });

  it("uses given initial values and rejects non-finite ones", () => {
    const first: number[] = [];
    sample(normals([1, 1]), {
      warmup: 0,
      draws: 1,
      chains: 2,
      seed: 1,
      init: [Float64Array.from([5, 5]), Float64Array.from([-5, -5])],
      stepSize: 1e-9,
      maxDepth: 1,
      onDraw: (d) => first.push(d.position[0]!),
    });
    expect(first[0]).toBeCloseTo(5, 6);
    expect(first[1]).toBeCloseTo(-5, 6);
    const bad: BatchedDensity = { dim: 1, logpGrad: (_q, lp, grad) => (lp.fill(NaN), grad.fill(0)) };
    expect(() => sample(bad, { chains: 1, init: Float64Array.from([0]) })).toThrow(/chain 1: log density was not finite at the given initial point/);
  });

  it("rejects bad options with a message naming the option", () => {
    const d = normals([1]);
    expect(() => sample(d, { chains: 0 })).toThrow(SamplerOptionError);
    expect(() => sample(d, { adaptDelta: 1 })).toThrow(/adaptDelta/);
    expect(() => sample(d, { maxDepth: 0 })).toThrow(/maxDepth/);
    expect(() => sample(d, { seed: -3 })).toThrow(/seed/);
    expect(() => sample(d, { init: [Float64Array.from([1, 2])] , chains: 1 })).toThrow(/init for chain 1 has length 2, expected 1/);
    expect(() => sample(d, { metric: "full" as "dense" })).toThrow(/metric/);
  });

  it("runs without warmup at the given step size and inverse metric", () => {
    const r = sample(normals([1, 10]), { warmup: 0, draws: 20, seed: 5, stepSize: 0.7, invMetric: Float64Array.from([1, 100]) });
    expect(r.stats[0]!.stepSize.every((e) => e === 0.7)).toBe(true);
    expect(Array.from(r.adaptation[0]!.invMetric)).toEqual([1, 100]);
  });
});
