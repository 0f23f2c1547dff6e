/**
 * `ppl sample --checkpoint-every N|Ns` and `--resume`: DIR/checkpoint.json holds the sampler's
 * checkpoint (every chain's state, bit for bit: @ppl/ppl's encodeCheckpoint) with the length of
 * each chain's CSV file at that moment (the files are written unbuffered, so every row before the
 * checkpoint is whole in them). A resumed run cuts each file back to that length, appends to it and
 * continues the sampler from the checkpoint: its files are those of the run had it not stopped.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import { basename, join } from "node:path";
import { decodeCheckpoint, encodeCheckpoint, SamplerOptionError, type Checkpoint, type CheckpointOptions } from "@ppl/ppl";
import { usageError } from "./exit-codes.ts";

/** The checkpoint's file in the output directory. */
export const CHECKPOINT_FILE = "checkpoint.json";

/** How often `--checkpoint-every` saves: N iterations, or N seconds written `Ns`. */
export type CheckpointEvery = { readonly everyIterations: number } | { readonly everySeconds: number };

/** Parses `--checkpoint-every`: `100` (iterations) or `60s` (seconds). */
export function parseCheckpointEvery(text: string): CheckpointEvery {
  const m = /^(\d+(?:\.\d+)?)(s?)$/.exec(text.trim());
  const n = m === null ? NaN : Number(m[1]);
  if (m === null || !(n > 0) || (m[2] === "" && !Number.isInteger(n))) {
    throw usageError(`--checkpoint-every ${text}: give a whole number of iterations (100) or of seconds with an s (60s)`);
  }
  return m[2] === "s" ? { everySeconds: n } : { everyIterations: n };
}

/** Where a run samples: its backend and float type (a checkpoint resumes only there, where its draws are the same bits). */
export interface CheckpointBackend {
  readonly backend: "cpu" | "vulkan";
  readonly dtype: "f32" | "f64";
}

/** What checkpoint.json holds. */
interface CheckpointFile {
  /** Each chain file's length in bytes when the checkpoint was taken. */
  readonly files: Readonly<Record<string, number>>;
  /** Where the run sampled (absent in files written before it was recorded: the CPU in f64). */
  readonly backend?: CheckpointBackend;
  /** The sampler's checkpoint, as encodeCheckpoint writes it. */
  readonly sampler: unknown;
}

/** The sampler's checkpoint option of a run writing into `dir`: each checkpoint saved with its files' lengths, atomically. */
export function checkpointOption(dir: string, paths: readonly string[], every: CheckpointEvery, backend: CheckpointBackend): CheckpointOptions {
  return {
    ...every,
    save: (cp: Checkpoint) => {
      const files = Object.fromEntries(paths.map((p) => [basename(p), statSync(p).size]));
      const text = JSON.stringify({ files, backend, sampler: JSON.parse(encodeCheckpoint(cp)) as unknown } satisfies CheckpointFile);
      const path = join(dir, CHECKPOINT_FILE);
      const tmp = `${path}.${process.pid}.tmp`;
      const fd = openSync(tmp, "w");
      try {
        writeSync(fd, text + "\n");
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, path);
    },
  };
}

/** What `--checkpoint-every` and `--resume` ask of a run (checkpointPlan). */
export interface CheckpointPlan {
  readonly every?: CheckpointEvery;
  /** With --resume: the checkpoint, and each chain file's length when it was taken. */
  readonly resumed?: { readonly checkpoint: Checkpoint; readonly files: Readonly<Record<string, number>>; readonly backend: CheckpointBackend };
}

/** The options of `ppl sample` these read (a subset of SampleCommandOptions). */
export interface CheckpointCommandOptions {
  readonly checkpointEvery?: string;
  readonly resume?: boolean;
  readonly output: string;
  readonly backend?: string;
  readonly algorithm?: string;
  readonly targetEss?: number;
  readonly seed?: number;
  readonly chains: number;
  readonly warmup: number;
  readonly draws: number;
  readonly firstChain?: number;
  readonly metric: string;
  readonly adaptDelta: number;
  readonly maxDepth: number;
  readonly stepsize?: number;
  readonly init: number | string;
  readonly steps?: number;
}

/**
 * Checks what the options ask of checkpoints (NUTS or static HMC, on the CPU or with --backend
 * vulkan, one file per chain) and, with --resume, reads the checkpoint (the files are cut back later, by cutFiles) and
 * checks that these options continue its run. Undefined when neither option is given.
 */
export function checkpointPlan(opts: CheckpointCommandOptions, single: boolean): CheckpointPlan | undefined {
  if (opts.checkpointEvery === undefined && !opts.resume) return undefined;
  const what = opts.resume ? "--resume" : "--checkpoint-every";
  if (opts.algorithm === "chees" || opts.algorithm === "meads") throw usageError(`${what}: --algorithm ${opts.algorithm} adapts across chains, whose state a checkpoint does not hold; use --algorithm nuts or hmc`);
  if (opts.targetEss !== undefined) throw usageError(`${what} and --target-ess cannot be combined: the target's checks are not in a checkpoint; drop one`);
  if (single) throw usageError(`${what} works with one CSV file per chain; add --output-format chains`);
  const every = opts.checkpointEvery !== undefined ? parseCheckpointEvery(opts.checkpointEvery) : undefined;
  if (!opts.resume) return { ...(every ? { every } : {}) };
  const resumed = readRunCheckpoint(opts.output);
  checkSameRun(opts, resumed.checkpoint);
  return { ...(every ? { every } : {}), resumed };
}

/** The sampler's options of a run with this plan: its checkpoints, and where it resumes. */
export function checkpointSampleOptions(plan: CheckpointPlan | undefined, dir: string, paths: readonly string[], backend: CheckpointBackend): { checkpoint?: CheckpointOptions; resume?: Checkpoint } {
  if (plan === undefined) return {};
  return {
    ...(plan.every ? { checkpoint: checkpointOption(dir, paths, plan.every, backend) } : {}),
    ...(plan.resumed ? { resume: plan.resumed.checkpoint } : {}),
  };
}

/** Refuses to resume on another backend or float type than the checkpoint's run sampled on (the draws would not be that run's). */
export function checkBackend(plan: CheckpointPlan | undefined, choice: CheckpointBackend): void {
  if (plan === undefined) return;
  const was = plan.resumed?.backend;
  if (was === undefined || (was.backend === choice.backend && was.dtype === choice.dtype)) return;
  throw usageError(`--resume: the checkpoint's run sampled with --backend ${was.backend} --dtype ${was.dtype}, this command with --backend ${choice.backend} --dtype ${choice.dtype}; resume with --backend ${was.backend} --dtype ${was.dtype}`);
}

// The run's settings that decide its draws, as the sampler resolves them from these options.
function checkSameRun(opts: CheckpointCommandOptions, cp: Checkpoint): void {
  const s = cp.settings;
  const asked: [string, unknown, unknown][] = [
    ["--seed", opts.seed ?? s.seed, s.seed], ["--chains", opts.chains, s.chains], ["--warmup", opts.warmup, s.warmup], ["--draws", opts.draws, s.draws],
    ["--first-chain", opts.firstChain ?? 0, s.firstChain], ["--metric", opts.metric, s.metric], ["--adapt-delta", opts.adaptDelta, s.adaptDelta],
    ["--max-depth", opts.maxDepth, s.maxDepth], ["--stepsize", opts.stepsize ?? 1, s.stepSize], ["--init", typeof opts.init === "number" ? opts.init : s.initRadius, s.initRadius],
    ["--algorithm", opts.algorithm === "hmc" ? "hmc" : "nuts", s.sampler], ["--steps", opts.steps ?? 10, s.hmcSteps],
  ];
  for (const [flag, mine, theirs] of asked) {
    if (!Object.is(mine, theirs)) throw usageError(`--resume: the checkpoint's run has ${flag} ${String(theirs)}, this command ${String(mine)}; resume with the options of the run that wrote it`);
  }
}

// DIR/checkpoint.json, read and decoded; a directory without one is a usage error.
function readRunCheckpoint(output: string): NonNullable<CheckpointPlan["resumed"]> {
  const path = join(output, CHECKPOINT_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw usageError(`--resume: '${output}' has no ${CHECKPOINT_FILE}; only a run started with --checkpoint-every can be resumed (or it ended before its first checkpoint: run it again)`);
  }
  try {
    const file = JSON.parse(text) as CheckpointFile;
    return { checkpoint: decodeCheckpoint(JSON.stringify(file.sampler)), files: file.files, backend: file.backend ?? { backend: "cpu", dtype: "f64" } };
  } catch (e) {
    throw usageError(`--resume: '${path}' is not a checkpoint of ppl sample (${e instanceof SamplerOptionError || e instanceof Error ? e.message : String(e)})`);
  }
}

/**
 * Cuts each chain file back to its length at the checkpoint (what follows it, the resumed run
 * writes again); a run that does not resume removes a checkpoint an earlier run left in DIR.
 */
export function cutFiles(plan: CheckpointPlan | undefined, dir: string, output: string, paths: readonly string[]): void {
  const files = plan?.resumed?.files;
  if (files === undefined) {
    rmSync(join(dir, CHECKPOINT_FILE), { force: true });
    return;
  }
  for (const p of paths) {
    const size = files[basename(p)];
    if (size === undefined) throw usageError(`--resume: the checkpoint in '${output}' has no ${basename(p)}; resume with the --chains and --first-chain of the run that wrote it`);
    let now: number;
    try {
      now = statSync(p).size;
    } catch {
      throw usageError(`--resume: ${basename(p)} is missing from '${output}'; the checkpoint needs the files it was taken with`);
    }
    if (now < size) throw usageError(`--resume: ${basename(p)} in '${output}' is shorter (${now} bytes) than at the checkpoint (${size}); it was changed since`);
    truncateSync(p, size);
  }
}
