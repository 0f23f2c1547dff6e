/**
 * `ppl sample --init pathfinder`: each chain starts at a Pathfinder draw. Multi-path Pathfinder
 * runs once on the CPU density with CmdStan's defaults and the run's seed (4 paths, 1000 draws
 * each, PSIS resampling), and chain c takes resampled draw c, the draw on row c of
 * `ppl pathfinder --seed SEED`'s pathfinder.csv; with --first-chain F the chains take draws F….
 * Starting in the typical set shortens what warmup must do to find it.
 */
import { approximationTarget, type CompiledModel } from "@ppl/ppl";
import { runPathfinder } from "./commands/pathfinder.ts";
import type { CommandIO } from "./io.ts";
import type { InitValues } from "./start-values.ts";

/** The `--init` value that asks for Pathfinder's draws (a file of that name is given as ./pathfinder). */
export const PATHFINDER_INIT = "pathfinder";

/** Initial points of chains `first` … `first + chains − 1` from one multi-path Pathfinder run with `seed`. */
export async function pathfinderInits(compiled: CompiledModel, chains: number, first: number, seed: number, io: CommandIO): Promise<InitValues> {
  const m = await approximationTarget(compiled, true);
  const t0 = performance.now();
  const opts = { numPaths: 4, draws: 1000, psisResample: true, numElboDraws: 25, historySize: 5, maxLbfgsIters: 1000, init: 2, output: "", quiet: true };
  const r = runPathfinder(m, opts, seed, io, { first, count: chains });
  const failed = r.paths.filter((p) => p.draws === null).length;
  const k = Number.isNaN(r.paretoK) ? "none, equal weights" : Number.isFinite(r.paretoK) ? r.paretoK.toFixed(2) : "Inf";
  const notes = [
    `init: pathfinder (${r.paths.length - failed} of ${r.paths.length} paths, Pareto k ${k}, ${((performance.now() - t0) / 1000).toFixed(1)}s): chain c starts at row c of \`ppl pathfinder --seed ${seed}\`'s draws`,
  ];
  return { perChain: r.draws.x.map((x) => Float64Array.from(x)), notes };
}
