/**
 * One transition runner over several: the run's chains split into consecutive groups, each group
 * advanced by its own prepared runner (the GPU sampler on one device each). The sampler still
 * drives one runner for all chains, so initialization, adaptation and output are unchanged; each
 * group's runner sees its chains as a run of its own whose first chain id is the group's offset,
 * so every chain keeps its Philox stream and its draws equal a one-runner run chain for chain.
 */
import { ChainBatch } from "./batch.ts";
import type { BatchedDensity } from "./density.ts";
import { SamplerOptionError } from "./errors.ts";
import type { RunnerStats, TransitionRunner, TransitionRunnerContext } from "./transition-runner.ts";
import type { PreparedRunner } from "./runner-registry.ts";

/** Chain counts of `groups` near-equal groups of `chains` chains (the first ones one larger); groups that would be empty are left out. */
export function chainGroupSizes(chains: number, groups: number): number[] {
  const base = Math.floor(chains / groups), extra = chains % groups;
  return Array.from({ length: groups }, (_, g) => base + (g < extra ? 1 : 0)).filter((n) => n > 0);
}

/**
 * A runner that advances each group of chains with its own runner, given in chain order: each
 * group's chain count is its runner's plan's (the plan a placement split the run into, e.g.
 * PlacedPlan.groups). One group after another within an iteration through `run`, and all at once
 * through `runAsync` (each group waiting for its own device), which sampleAsync uses when every
 * group's runner offers it.
 */
export function splitRunner(runners: readonly PreparedRunner[]): PreparedRunner {
  if (runners.length === 0) throw new SamplerOptionError("splitRunner needs at least one group of chains");
  const groups = runners.map((runner) => ({ chains: runner.plan.chains, runner }));
  const offsets: number[] = [];
  let total = 0;
  for (const g of groups) {
    if (!Number.isInteger(g.chains) || g.chains < 1) throw new SamplerOptionError(`splitRunner: a group's runner was prepared for ${g.chains} chains; prepare each group's runner for its chains (at least 1)`);
    offsets.push(total);
    total += g.chains;
  }
  const shapes = [...new Set(groups.map((g) => g.runner.plan.shape))];
  const warning = groups.find((g) => g.runner.warning !== undefined)?.runner.warning;
  // Groups split the same iterations into blocks alike; the smallest block bounds them all.
  const blocks = groups.map((g) => g.runner.blockIterations).filter((b): b is number => b !== undefined);
  // The groups' plans as one: every chain, each group's shape.
  const plan = { ...groups[0]!.runner.plan, chains: total, shape: shapes.join("+") };
  return {
    plan,
    ...(warning !== undefined ? { warning } : {}),
    ...(blocks.length > 0 ? { blockIterations: Math.min(...blocks) } : {}),
    factory(ctx) {
      const parts = groups.map((g, i) => groupPart(ctx, offsets[i]!, g.chains, g.runner));
      const concurrent = parts.every((p) => p.runAsync !== undefined);
      // The run's state is whole where every group's is (their blocks end together); a group that cannot say takes no checkpoints.
      const ends = parts.map((p) => p.atBlockEnd);
      const atBlockEnd = ends.every((f) => f !== undefined) ? () => ends.every((f) => f!()) : undefined;
      return {
        run(t, stepSizes, batch, stats) {
          for (const p of parts) p.run(t, stepSizes, batch, stats);
        },
        ...(concurrent
          ? {
              async runAsync(t: number, stepSizes: Float64Array, batch: ChainBatch, stats: RunnerStats[]) {
                await Promise.all(parts.map((p) => p.runAsync!(t, stepSizes, batch, stats)));
              },
            }
          : {}),
        ...(atBlockEnd ? { atBlockEnd } : {}),
      };
    },
    hostDensity<T extends BatchedDensity>(host: T): T {
      const per = groups.map((g) => g.runner.hostDensity(host));
      if (per.every((d) => d === host)) return host;
      const D = host.dim;
      // A call for the whole batch goes to each group's density (its device's batched kernels) for
      // its rows, in place; any other call (one chain) stays on the host.
      const logpGrad = (q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array): void => {
        if (lp.length !== total) return host.logpGrad(q, lp, grad, active);
        groups.forEach((g, i) => {
          const o = offsets[i]!, n = g.chains;
          per[i]!.logpGrad(q.subarray(o * D, (o + n) * D), lp.subarray(o, o + n), grad.subarray(o * D, (o + n) * D), active?.subarray(o, o + n));
        });
      };
      return Object.create(host, { logpGrad: { value: logpGrad } }) as T;
    },
    dispose() {
      for (const g of groups) g.runner.dispose();
    },
  };
}

// One group's runner over its own batch: the group's rows are copied in before its transitions
// and out after them (runners read and write a batch of exactly their chain count).
function groupPart(ctx: TransitionRunnerContext, offset: number, n: number, prepared: PreparedRunner): TransitionRunner {
  const s = ctx.settings;
  const D = ctx.dim;
  const own = new ChainBatch(n, D);
  const runner = prepared.factory({
    settings: { ...s, chains: n, firstChain: s.firstChain + offset },
    dim: D,
    metrics: ctx.metrics.slice(offset, offset + n),
    stepSizeAdaptation: {
      settings: ctx.stepSizeAdaptation.settings,
      state: (c) => ctx.stepSizeAdaptation.state(offset + c),
      hostSteps: ctx.stepSizeAdaptation.hostSteps,
    },
    ...(ctx.blockLimit ? { blockLimit: ctx.blockLimit } : {}),
  });
  const rows = offset * D, end = (offset + n) * D;
  const copyIn = (batch: ChainBatch) => {
    own.q.set(batch.q.subarray(rows, end));
    own.grad.set(batch.grad.subarray(rows, end));
    own.lp.set(batch.lp.subarray(offset, offset + n));
    own.evaluations.set(batch.evaluations.subarray(offset, offset + n));
  };
  const copyOut = (batch: ChainBatch) => {
    batch.q.set(own.q, rows);
    batch.grad.set(own.grad, rows);
    batch.lp.set(own.lp, offset);
    batch.evaluations.set(own.evaluations, offset);
  };
  // The stats objects are the run's own, so the group's runner fills them in place.
  const part: TransitionRunner = {
    run(t: number, stepSizes: Float64Array, batch: ChainBatch, stats: RunnerStats[]): void {
      copyIn(batch);
      runner.run(t, stepSizes.subarray(offset, offset + n), own, stats.slice(offset, offset + n));
      copyOut(batch);
    },
  };
  const runAsync = runner.runAsync?.bind(runner);
  if (runAsync) {
    part.runAsync = async (t, stepSizes, batch, stats) => {
      copyIn(batch);
      await runAsync(t, stepSizes.subarray(offset, offset + n), own, stats.slice(offset, offset + n));
      copyOut(batch);
    };
  }
  if (runner.atBlockEnd) part.atBlockEnd = runner.atBlockEnd.bind(runner);
  return part;
}
