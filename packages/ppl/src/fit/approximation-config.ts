/**
 * The settings block of an approximation's Stan CSV file, nested as CmdStan writes it (method,
 * then the method's own settings, then id, data, init and seed), each value marked as default or
 * given. One description for `approximate`'s files and for those of `ppl laplace`,
 * `ppl pathfinder` and `ppl variational`.
 */
import type { ConfigNode } from "../io/config.ts";
import { CONVERGENCE_DEFAULTS } from "../optimize/convergence.ts";
import type { OptimizeOptions } from "../optimize/run-optimizer.ts";
import { PATH_DEFAULTS } from "../pathfinder/single-path.ts";
import { ADVI_DEFAULTS, type AdviOptions } from "../variational/advi.ts";

/** Pathfinder's settings of a run (CmdStan's names in camelCase). */
export interface PathfinderSettings {
  /** Independent L-BFGS paths (4). */
  readonly numPaths: number;
  /** Resample the pooled draws by Pareto-smoothed importance weights (true). */
  readonly psisResample: boolean;
  /** Draws per ELBO estimate along a path (25). */
  readonly numElboDraws: number;
  /** L-BFGS's history size (5). */
  readonly historySize: number;
  /** Most L-BFGS iterations of a path (1000). */
  readonly maxLbfgsIters: number;
}

/** CmdStan's defaults of the optimizer's settings. */
export const OPTIMIZE_DEFAULTS = { ...CONVERGENCE_DEFAULTS, historySize: 5, initAlpha: 0.001 } as const;

/** An approximation's method and settings, as approximate's options give them. */
export type ApproximationSettings =
  | ({ readonly method: "optimize"; readonly jacobian?: boolean } & OptimizeOptions)
  | ({ readonly method: "laplace"; readonly draws?: number; readonly jacobian?: boolean; readonly modeFile?: string })
  | ({ readonly method: "pathfinder"; readonly draws?: number } & Partial<PathfinderSettings>)
  | ({ readonly method: "variational"; readonly draws?: number } & AdviOptions);

/** The model and method blocks of the file's settings. */
export function approximationConfig(model: string, s: ApproximationSettings): ConfigNode[] {
  const children = s.method === "optimize" ? optimizeSettings(s) : s.method === "laplace" ? laplaceSettings(s) : s.method === "pathfinder" ? pathfinderSettings(s) : variationalSettings(s);
  return [{ key: "model", value: model }, { key: "method", value: s.method, children: [{ key: s.method, children }] }];
}

/** The settings CmdStan writes after the method's: id, data file, init, seed (the output file follows). */
export function runConfig(dataPath: string | undefined, init: number | string, seed: number, seedGiven: boolean): ConfigNode[] {
  return [
    { key: "id", value: 1, isDefault: true },
    { key: "data", children: [{ key: "file", value: dataPath ?? "", isDefault: dataPath === undefined }] },
    { key: "init", value: init, isDefault: init === 2 },
    { key: "random", children: [{ key: "seed", value: seed, isDefault: !seedGiven }] },
  ];
}

function setting(key: string, value: number | boolean | string, def: number | boolean | string): ConfigNode {
  return { key, value, isDefault: value === def };
}

function optimizeSettings(s: Extract<ApproximationSettings, { method: "optimize" }>): ConfigNode[] {
  const d = OPTIMIZE_DEFAULTS;
  const o = { ...d, ...definedOnly(s) };
  const algorithm = s.algorithm ?? "lbfgs";
  const quasiNewton = [
    setting("init_alpha", o.initAlpha, d.initAlpha), setting("tol_obj", o.tolObj, d.tolObj), setting("tol_rel_obj", o.tolRelObj, d.tolRelObj),
    setting("tol_grad", o.tolGrad, d.tolGrad), setting("tol_rel_grad", o.tolRelGrad, d.tolRelGrad), setting("tol_param", o.tolParam, d.tolParam),
    ...(algorithm === "lbfgs" ? [setting("history_size", o.historySize, d.historySize)] : []),
  ];
  return [
    { key: "algorithm", value: algorithm, isDefault: algorithm === "lbfgs", children: [{ key: algorithm, children: algorithm === "newton" ? [] : quasiNewton }] },
    { key: "jacobian", value: s.jacobian ?? false, isDefault: !(s.jacobian ?? false) },
    setting("iter", o.iter, d.iter),
    { key: "save_iterations", value: false, isDefault: true },
  ];
}

function laplaceSettings(s: Extract<ApproximationSettings, { method: "laplace" }>): ConfigNode[] {
  return [setting("mode", s.modeFile ?? "", ""), setting("jacobian", s.jacobian ?? true, true), setting("draws", s.draws ?? 1000, 1000)];
}

function pathfinderSettings(s: Extract<ApproximationSettings, { method: "pathfinder" }>): ConfigNode[] {
  const d = PATH_DEFAULTS;
  const draws = s.draws ?? d.numDraws;
  return [
    setting("init_alpha", d.initAlpha, d.initAlpha), setting("tol_obj", d.tolObj, d.tolObj), setting("tol_rel_obj", d.tolRelObj, d.tolRelObj),
    setting("tol_grad", d.tolGrad, d.tolGrad), setting("tol_rel_grad", d.tolRelGrad, d.tolRelGrad), setting("tol_param", d.tolParam, d.tolParam),
    setting("history_size", s.historySize ?? d.historySize, d.historySize), setting("num_psis_draws", draws, 1000), setting("num_paths", s.numPaths ?? 4, 4),
    setting("save_single_paths", false, false), setting("psis_resample", s.psisResample ?? true, true), setting("calculate_lp", true, true),
    setting("max_lbfgs_iters", s.maxLbfgsIters ?? d.iter, d.iter), setting("num_draws", draws, d.numDraws), setting("num_elbo_draws", s.numElboDraws ?? d.numElboDraws, d.numElboDraws),
  ];
}

function variationalSettings(s: Extract<ApproximationSettings, { method: "variational" }>): ConfigNode[] {
  const d = ADVI_DEFAULTS;
  const o = { ...d, ...definedOnly(s) };
  const adaptEngaged = o.adaptEngaged;
  return [
    { key: "algorithm", value: o.algorithm, isDefault: o.algorithm === d.algorithm, children: [{ key: o.algorithm, children: [] }] },
    setting("iter", o.iter, d.iter), setting("grad_samples", o.gradSamples, d.gradSamples), setting("elbo_samples", o.elboSamples, d.elboSamples), setting("eta", o.eta, d.eta),
    { key: "adapt", children: [{ key: "engaged", value: adaptEngaged, isDefault: adaptEngaged }, setting("iter", o.adaptIter, d.adaptIter)] },
    setting("tol_rel_obj", o.tolRelObj, d.tolRelObj), setting("eval_elbo", o.evalElbo, d.evalElbo), setting("output_samples", s.draws ?? 1000, 1000),
  ];
}

// The options' own values, without keys given as undefined (which would hide the defaults).
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
