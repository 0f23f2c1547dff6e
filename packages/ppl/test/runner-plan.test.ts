// The prepared runner owns a run's layout: a run on it takes its chains, tree depth and metric from
// the runner's plan (planOwnedOptions), and a caller's differing value is refused before anything runs.
import { describe, expect, it } from "vitest";
import { sample, sampleAsync, SamplerOptionError, type BatchedDensity, type PlannedRunner, type ResolvedSampleSettings } from "../src/sampler/index.ts";

// A standard normal in two dimensions.
const density: BatchedDensity = {
  dim: 2,
  logpGrad(q, lp, grad) {
    for (let c = 0; c < lp.length; c++) {
      let s = 0;
      for (let i = 0; i < 2; i++) {
        const x = q[c * 2 + i]!;
        s += x * x;
        grad[c * 2 + i] = -x;
      }
      lp[c] = -0.5 * s;
    }
  },
};

// A runner that records the settings its factory is given and moves no chain (every transition stays put).
function recordingRunner(plan: PlannedRunner["plan"], seen: ResolvedSampleSettings[]): PlannedRunner {
  return {
    plan,
    factory(ctx) {
      seen.push(ctx.settings);
      return {
        run(_t, _eps, batch, stats) {
          for (let c = 0; c < batch.chains; c++) Object.assign(stats[c]!, { acceptStat: 0.8, treeDepth: 1, nLeapfrog: 1, divergent: false, energy: 1 });
        },
      };
    },
  };
}

const plan = { chains: 3, maxDepth: 5, metric: "dense", dtype: "f64", shape: "test" } as const;

describe("a run on a prepared runner", () => {
  it("takes its chains, tree depth and metric from the runner's plan", async () => {
    const seen: ResolvedSampleSettings[] = [];
    const res = sample(density, { warmup: 3, draws: 2, seed: 1, transitionRunner: recordingRunner(plan, seen) });
    expect(res.settings).toMatchObject({ chains: 3, maxDepth: 5, metric: "dense" });
    expect(res.draws).toHaveLength(3);
    expect(seen.map((s) => [s.chains, s.maxDepth, s.metric])).toEqual([[3, 5, "dense"]]);
    const async = await sampleAsync(density, { warmup: 3, draws: 2, seed: 1, chains: 3, transitionRunner: recordingRunner(plan, []) });
    expect(async.settings.chains).toBe(3);
  });

  it("refuses options that differ from the plan, naming the fix", () => {
    for (const [name, value] of [["chains", 4], ["maxDepth", 10], ["metric", "diag"]] as const) {
      const run = () => sample(density, { warmup: 3, draws: 2, seed: 1, [name]: value, transitionRunner: recordingRunner(plan, []) });
      expect(run).toThrow(SamplerOptionError);
      expect(run).toThrow(new RegExp(`^${name}: the transition runner was prepared for ${name} ${plan[name]}, the options ask for ${value}; leave ${name} out`));
    }
  });
});
