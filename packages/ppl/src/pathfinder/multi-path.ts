/**
 * Multi-path Pathfinder (the paper's Algorithm 5, Stan's `pathfinder_lbfgs_multi`): `numPaths`
 * independent single paths, each from its own initial point, their draws pooled and, by default,
 * importance-resampled with Pareto-smoothed weights (psis-resample.ts). Path p starts where chain
 * p of `sample` would (uniform in (−r, r) from the Init stream of chain p, up to 100 attempts for
 * a finite density), unless initial points are given.
 */
import { initialCandidate, MAX_INIT_ATTEMPTS } from "../sampler/initialize.ts";
import { loopedObjective, type BatchedObjective } from "../optimize/batched-objective.ts";
import { runLockstep, type Evaluating } from "../optimize/evaluating.ts";
import type { Objective } from "../optimize/objective.ts";
import { seedKey } from "../random/streams.ts";
import { psisResample, type PooledDraws } from "./pooled-draws.ts";
import { PATH_DEFAULTS, singlePathSteps, type PathSettings, type SinglePathResult } from "./single-path.ts";

/** Settings of a Pathfinder run; what is left out takes CmdStan's default. */
export interface PathfinderOptions extends Partial<PathSettings> {
  readonly seed: number;
  /** Independent paths (4). */
  readonly numPaths?: number;
  /** Resample the pooled draws by their importance weights (true), or return them all. */
  readonly psisResample?: boolean;
  /** Draws the resampling makes (CmdStan's num_psis_draws; default numDraws). */
  readonly numResampled?: number;
  /** The first resampled draw's index (its uniform in the resampling stream; 0). */
  readonly firstResampled?: number;
  /** Radius of the random initial points (2). */
  readonly initRadius?: number;
  /** Initial points on the unconstrained scale: one per path, or one for all. */
  readonly init?: readonly Float64Array[];
}

/** A Pathfinder run: its draws (resampled, or every successful path's in path order), the Pareto k of the pooled importance weights, and each path's outcome. */
export interface PathfinderResult extends PooledDraws {
  readonly paths: readonly SinglePathResult[];
}

/** Why a Pathfinder run made no draws: no finite initial point (`init`), or every path failed (`paths`). */
export class PathfinderError extends Error {
  override name = "PathfinderError";
  constructor(message: string, readonly reason: "init" | "paths") {
    super(message);
  }
}

/**
 * Runs multi-path Pathfinder on the density whose negative log is `obj`. The paths advance in
 * lockstep (path p is row p of each round): every round of their line searches' trial points, of
 * their iterates' ELBO draws (numElboDraws a path) and of their output draws is one call of
 * `batched` (the GPU's batched gradient, say), or of `obj` a point at a time. The paths are
 * independent, so the result is the same bits as running them one after the other.
 */
export function pathfinder(obj: Objective, opts: PathfinderOptions, batched: BatchedObjective = loopedObjective(obj)): PathfinderResult {
  const settings: PathSettings = { ...PATH_DEFAULTS, ...definedOnly(opts) };
  const numPaths = opts.numPaths ?? 4;
  const key = seedKey(opts.seed);
  function* path(p: number): Evaluating<SinglePathResult> {
    const x0 = yield* startSteps(obj.dim, opts, p);
    return yield* singlePathSteps(obj, x0, p, key, settings);
  }
  const paths = runLockstep(Array.from({ length: numPaths }, (_, p) => path(p)), batched);
  const ok = paths.filter((p) => p.draws !== null);
  if (ok.length === 0) {
    const why = [...new Set(paths.map((p) => p.message))].join("; ");
    throw new PathfinderError(`all ${numPaths} Pathfinder paths failed: ${why}`, "paths");
  }
  return { ...psisResample(ok, key, opts.psisResample ?? true, opts.numResampled ?? settings.numDraws, opts.firstResampled ?? 0), paths };
}

// The path's initial point: given, or the first finite one of the Init stream of chain `path`.
function* startSteps(dim: number, opts: PathfinderOptions, path: number): Evaluating<Float64Array> {
  const given = opts.init === undefined ? undefined : opts.init[opts.init.length === 1 ? 0 : path];
  if (given !== undefined) return given;
  const radius = opts.initRadius ?? 2;
  const key = seedKey(opts.seed);
  for (let attempt = 0; attempt < MAX_INIT_ATTEMPTS; attempt++) {
    const q = new Float64Array(dim);
    initialCandidate(key, path, attempt, radius, q);
    const r = yield [q];
    if (Number.isFinite(r.f[0]!) && r.g[0]!.every(Number.isFinite)) return q;
  }
  throw new PathfinderError(`path ${path + 1}: the log density is not finite at ${MAX_INIT_ATTEMPTS} random initial points uniform in (−${radius}, ${radius}) on the unconstrained scale`, "init");
}

function definedOnly(o: PathfinderOptions): Partial<PathSettings> {
  const keys = Object.keys(PATH_DEFAULTS) as (keyof PathSettings)[];
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]])) as Partial<PathSettings>;
}
