/**
 * A driver's checkpoints: a run resumed from options.resume before its first step, and a
 * checkpoint handed to options.checkpoint.save every so many iterations or seconds and at the end
 * of warmup (checkpoint.ts says what one holds).
 */
import { checkpointOf, checkResumable } from "../checkpoint.ts";
import { SamplerOptionError } from "../errors.ts";
import { methodOf } from "../methods/builtin.ts";
import type { SampleOptions } from "../options.ts";
import type { SamplingRun } from "../sampling-run.ts";

/** Whether a run saves or resumes checkpoints (it then runs in the calling thread). */
export function usesCheckpoints(options: SampleOptions): boolean {
  return options.checkpoint !== undefined || options.resume !== undefined;
}

/** Refuses what checkpoints cannot hold, and restores a fresh run from options.resume. */
export function resumeRun(run: SamplingRun, options: SampleOptions): void {
  if (!usesCheckpoints(options)) return;
  // A run that may move between the CPU and a device, or whose runner cannot say where its state is
  // whole, or that adapts across chains, has state a checkpoint does not hold.
  if (options.pendingRunner || options.fallback) throw new SamplerOptionError("checkpoint, resume: the run must stay where it starts (leave pendingRunner and fallback out)");
  if (!run.takesCheckpoints) throw new SamplerOptionError("checkpoint, resume: the transition runner does not say where its state is whole (TransitionRunner.atBlockEnd); sample on the CPU, or with a runner that does");
  if (options.method !== undefined && methodOf(options.method).runAdaptation !== undefined) {
    throw new SamplerOptionError(`checkpoint, resume: ${methodOf(options.method).name} adapts across chains, whose state a checkpoint does not hold; use NUTS or static HMC`);
  }
  const cp = options.resume;
  if (cp === undefined) return;
  if (options.keepDraws !== false) throw new SamplerOptionError("resume: the draws before the checkpoint are not in it (they are the caller's, e.g. in CSV files); pass keepDraws: false");
  checkResumable(cp, run.settings, run.dim);
  // A copy: the run's adaptation keeps the arrays it is given and writes into them.
  run.restore(checkpointOf(cp.state, cp.settings).state);
}

/** Hands checkpoints to options.checkpoint.save as the run goes. */
export class CheckpointSaver {
  private last = performance.now();
  // A checkpoint is due and not yet taken (a runner's block has not ended).
  private owed = false;

  constructor(private readonly options: SampleOptions) {
    const every = options.checkpoint?.everyIterations;
    if (every !== undefined && !(Number.isInteger(every) && every >= 1)) throw new SamplerOptionError(`checkpoint.everyIterations must be an integer ≥ 1, got ${every}`);
    const seconds = options.checkpoint?.everySeconds;
    if (seconds !== undefined && !(seconds > 0)) throw new SamplerOptionError(`checkpoint.everySeconds must be positive, got ${seconds}`);
  }

  /**
   * After an iteration of every chain: saves a checkpoint when one is due (never after the last
   * iteration). On a runner of blocks (a GPU) a due checkpoint waits for the block's end, where the
   * run's state is whole; the run's draws do not change with checkpoints.
   */
  after(run: SamplingRun): void {
    const o = this.options.checkpoint;
    if (o === undefined || run.done) return;
    const t = run.iterationsDone;
    const now = performance.now();
    this.owed ||= t === run.settings.warmup
      || (o.everyIterations !== undefined && t % o.everyIterations === 0)
      || (o.everySeconds !== undefined && now - this.last >= o.everySeconds * 1000);
    if (!this.owed || !run.atCheckpoint) return;
    o.save(checkpointOf(run.handOver(0, run.settings.chains), run.settings));
    this.owed = false;
    this.last = now;
  }
}
