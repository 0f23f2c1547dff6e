// splitRunner: the chains split into groups, each advanced by its own runner (one per device). Through
// sampleAsync, groups whose runners wait asynchronously run at the same time; through sample(), one
// after another; the draws are the same either way.
import { describe, expect, it } from "vitest";
import { sample, sampleAsync, splitRunner, type BatchedDensity, type PreparedRunner, type RunnerStats } from "../src/sampler/index.ts";

const density: BatchedDensity = {
  dim: 2,
  logpGrad(q, lp, grad) {
    for (let c = 0; c < lp.length; c++) {
      lp[c] = -0.5 * (q[2 * c]! ** 2 + q[2 * c + 1]! ** 2);
      grad[2 * c] = -q[2 * c]!;
      grad[2 * c + 1] = -q[2 * c + 1]!;
    }
  },
};

/**
 * A runner for one group that moves each of its chains by a fixed step per transition (so the
 * draws say which group and chain moved them), logging when its transitions start and end; with
 * `async`, it also offers runAsync, which waits a few milliseconds as a device would.
 */
function fakeRunner(name: string, log: string[], async: boolean, chains: number): PreparedRunner {
  const transition = (t: number, batch: { q: Float64Array; chains: number; dim: number }, stats: RunnerStats[], first: number) => {
    for (let c = 0; c < batch.chains; c++) {
      for (let i = 0; i < batch.dim; i++) batch.q[c * batch.dim + i] = (first + c + 1) * 0.01 * (t + 1) * (i + 1);
      Object.assign(stats[c]!, { acceptStat: 0.8, treeDepth: 1, nLeapfrog: 1, divergent: false, energy: 1 });
    }
  };
  return {
    plan: { chains, maxDepth: 10, metric: "diag", dtype: "f64", shape: name },
    factory(ctx) {
      const first = ctx.settings.firstChain;
      return {
        run(t, _eps, batch, stats) {
          log.push(`${name} run ${t}`);
          transition(t, batch, stats, first);
        },
        ...(async
          ? {
              async runAsync(t: number, _eps: Float64Array, batch: Parameters<typeof transition>[1], stats: RunnerStats[]) {
                log.push(`${name} start ${t}`);
                await new Promise((resolve) => setTimeout(resolve, 3));
                transition(t, batch, stats, first);
                log.push(`${name} end ${t}`);
              },
            }
          : {}),
      };
    },
    hostDensity: (host) => host,
    dispose() {},
  };
}

const settings = { chains: 5, warmup: 3, draws: 2, seed: 9 };

describe("splitRunner", () => {
  it("through sampleAsync runs the groups at the same time, each waiting for its own device", async () => {
    const log: string[] = [];
    const split = splitRunner([fakeRunner("a", log, true, 3), fakeRunner("b", log, true, 2)]);
    await sampleAsync(density, { ...settings, transitionRunner: split });
    for (let t = 0; t < 5; t++) {
      const at = log.filter((e) => e.endsWith(` ${t}`));
      // Both groups start before either ends: their waits overlap.
      expect(at).toEqual([`a start ${t}`, `b start ${t}`, `a end ${t}`, `b end ${t}`]);
    }
  });

  it("through sample() runs them one after another, with the same draws", async () => {
    const log: string[] = [];
    const make = (l: string[]) => splitRunner([fakeRunner("a", l, true, 3), fakeRunner("b", l, true, 2)]);
    const sync = sample(density, { ...settings, transitionRunner: make(log) });
    expect(log.slice(0, 4)).toEqual(["a run 0", "b run 0", "a run 1", "b run 1"]);
    const async = await sampleAsync(density, { ...settings, transitionRunner: make([]) });
    for (let c = 0; c < 5; c++) expect(Array.from(async.draws[c]!)).toEqual(Array.from(sync.draws[c]!));
    // Chain 4 is the second group's second chain: its draws carry its run-wide number.
    expect(sync.draws[4]![0]).toBeCloseTo(5 * 0.01 * 4, 12);
  });

  it("waits synchronously when any group's runner cannot wait asynchronously", async () => {
    const log: string[] = [];
    const split = splitRunner([fakeRunner("a", log, true, 3), fakeRunner("b", log, false, 2)]);
    await sampleAsync(density, { ...settings, transitionRunner: split });
    expect(log.slice(0, 4)).toEqual(["a run 0", "b run 0", "a run 1", "b run 1"]);
  });

  it("takes each group's chains from its runner's plan, and refuses a runner prepared for none", () => {
    const log: string[] = [];
    expect(splitRunner([fakeRunner("a", log, true, 3), fakeRunner("b", log, true, 2)]).plan).toMatchObject({ chains: 5, shape: "a+b" });
    expect(() => splitRunner([fakeRunner("a", log, true, 3), fakeRunner("b", log, true, 0)])).toThrow(/prepared for 0 chains/);
  });
});
