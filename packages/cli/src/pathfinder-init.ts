/**
 * `ppl sample --init pathfinder`: each chain starts at a Pathfinder draw. Multi-path Pathfinder
 * runs once with CmdStan's defaults and the run's seed (4 paths, 1000 draws each, PSIS
 * resampling), and chain c takes resampled draw c, the draw on row c of `ppl pathfinder --seed
 * SEED`'s pathfinder.csv; with --first-chain F the chains take draws F…. Its paths run on the
 * sampling run's backend: on the run's GPU (its device and float type) as the GPU's batched
 * gradient, on the CPU otherwise. Starting in the typical set shortens what warmup must do to find it.
 */
import { approximationTarget, type CompiledModel, type PathfinderModelOptions } from "@ppl/ppl";
import type { PlacedPlan } from "@ppl/ppl/runner";
import { placeApproximation, type ApproximationBackendFlags, type PlacedApproximation } from "./approximation-backend-flags.ts";
import { runPathfinder, type PathfinderCommandOptions } from "./commands/pathfinder.ts";
import { CliError, ExitCode } from "./exit-codes.ts";
import type { CommandIO } from "./io.ts";
import type { InitValues } from "./start-values.ts";

/** The `--init` value that asks for Pathfinder's draws (a file of that name is given as ./pathfinder). */
export const PATHFINDER_INIT = "pathfinder";

/** CmdStan's pathfinder defaults, as `ppl pathfinder` takes them. */
const DEFAULTS: PathfinderCommandOptions = { numPaths: 4, draws: 1000, psisResample: true, numElboDraws: 25, historySize: 5, maxLbfgsIters: 1000, init: 2, output: "", quiet: true };

/**
 * Where Pathfinder's paths run for a sampling run placed by `plan`: its GPU (device and float type)
 * where the run samples there from the start, the CPU where it does (or starts there, as auto's
 * run that may move to the GPU midway).
 */
export function pathfinderBackend(plan: Pick<PlacedPlan, "backend" | "device" | "devices" | "dtype" | "cpuFallback">): ApproximationBackendFlags {
  if (plan.backend === "cpu" || plan.cpuFallback !== undefined) return { backend: "cpu" };
  const device = plan.device ?? plan.devices?.[0];
  return { backend: "vulkan", dtype: plan.dtype, ...(device !== undefined ? { device } : {}) };
}

type PathfinderTarget = Awaited<ReturnType<typeof approximationTarget>>;

/** Initial points of chains `first` … `first + chains − 1` from one multi-path Pathfinder run with `seed`, its paths where `where` places them (the CPU by default). */
export async function pathfinderInits(compiled: CompiledModel, chains: number, first: number, seed: number, io: CommandIO, where: ApproximationBackendFlags = { backend: "cpu" }): Promise<InitValues> {
  const m = await approximationTarget(compiled, true);
  const options: PathfinderModelOptions = { method: "pathfinder", numPaths: DEFAULTS.numPaths, numElboDraws: DEFAULTS.numElboDraws };
  const placed = await placeOrCpu(where, m, options, io);
  const t0 = performance.now();
  let r;
  try {
    r = runPathfinder(placed.model, DEFAULTS, seed, io, { first, count: chains });
  } finally {
    placed.dispose();
  }
  const failed = r.paths.filter((p) => p.draws === null).length;
  const k = Number.isNaN(r.paretoK) ? "none, equal weights" : Number.isFinite(r.paretoK) ? r.paretoK.toFixed(2) : "Inf";
  const on = placed.note !== undefined ? `, ${placed.note}` : placed.fallback !== undefined ? `, on the CPU: ${placed.fallback}` : "";
  const notes = [
    `init: pathfinder (${r.paths.length - failed} of ${r.paths.length} paths, Pareto k ${k}, ${((performance.now() - t0) / 1000).toFixed(1)}s${on}): chain c starts at row c of \`ppl pathfinder --seed ${seed}\`'s draws`,
  ];
  return { perChain: r.draws.x.map((x) => Float64Array.from(x)), notes };
}

// The paths placed where asked; where the run's device cannot evaluate the model's batched
// gradient (a driver's limit, say), on the CPU, the reason kept for the init line: the init is
// the run's helper, and the sampler may still run on the device (or fail there with its own error).
async function placeOrCpu(where: ApproximationBackendFlags, m: PathfinderTarget, options: PathfinderModelOptions, io: CommandIO): Promise<PlacedApproximation<PathfinderTarget> & { readonly fallback?: string }> {
  try {
    return await placeApproximation(where, m, true, options, io, true);
  } catch (e) {
    if (where.backend === "cpu" || !(e instanceof CliError && e.exitCode === ExitCode.device)) throw e;
    return { ...(await placeApproximation({ backend: "cpu" }, m, true, options, io, true)), fallback: e.message.replace(/; use --backend cpu$/, "") };
  }
}
