/**
 * `ppl sample --target-ess N`: sampling stops once every shown parameter's bulk ESS reaches N and
 * its R-hat is below 1.01 (nested R-hat over the superchains with --superchains, else rank-
 * normalized split R-hat), checked in blocks as the draws are written, or at the cap on draws.
 * A check runs when every chain has written `next` draws, on exactly those draws; blocks grow by a
 * fifth of the draws so far (at least MIN_BLOCK), so that the checks cost a bounded multiple of one
 * summary and the run overshoots the draws it needed by at most a fifth.
 */
import { contiguousSuperchains, essBulk, rhat, rhatNested, type ChainDraws } from "@ppl/ppl";
import { NESTED_RHAT_THRESHOLD } from "./nested-rhat-lines.ts";

/** Draws a chain before the first check, and the smallest block between checks. */
export const MIN_BLOCK = 10;

/** The outcome of one check: whether the target is met, and the parameter furthest from it. */
export interface TargetCheck {
  readonly reached: boolean;
  readonly draws: number;
  /** The smallest bulk ESS over the parameters, and whose. */
  readonly minEss: number;
  readonly minEssName: string;
  /** The largest R-hat (nested R-hat with superchains) over the parameters, and whose. */
  readonly maxRhat: number;
  readonly maxRhatName: string;
}

/** Whether `draws` meet the target: every named parameter's bulk ESS ≥ target and R-hat < 1.01. */
export function checkTarget(draws: ChainDraws, names: readonly string[], target: number, superchains?: number): TargetCheck {
  let minEss = Infinity;
  let minEssName = "";
  let maxRhat = -Infinity;
  let maxRhatName = "";
  for (const name of names) {
    const d = draws.parameters[name];
    if (d === undefined) continue;
    // NaN (constant or non-finite draws) never meets the target: !(NaN >= x).
    const ess = essBulk(d);
    const r = superchains !== undefined ? rhatNested(d, contiguousSuperchains(d.length, superchains)) : rhat(d);
    if (!(ess >= minEss)) [minEss, minEssName] = [ess, name];
    if (!(r <= maxRhat)) [maxRhat, maxRhatName] = [r, name];
  }
  const reached = minEss >= target && maxRhat < NESTED_RHAT_THRESHOLD;
  return { reached, draws: draws.drawsPerChain, minEss, minEssName, maxRhat, maxRhatName };
}

/** Follows the draws written per chain and checks the target whenever every chain completes a block. */
export class TargetEss {
  private readonly counts: Int32Array;
  private complete = 0;
  private next = MIN_BLOCK;
  /** Draws per chain the run keeps, once the target is met: later draws are not written. */
  stopAt: number | null = null;
  /** The latest check. */
  last: TargetCheck | null = null;

  constructor(readonly target: number, private readonly names: readonly string[], chains: number, private readonly superchains?: number) {
    this.counts = new Int32Array(chains);
  }

  /** Whether a chain's next sampling draw is still wanted (false once the target is met and the chain has its share). */
  wants(chain: number): boolean {
    return this.stopAt === null || this.counts[chain]! < this.stopAt;
  }

  /** Records that `chain` wrote a sampling draw; checks when it completes the block; true when the run should stop. */
  drawn(chain: number, draws: () => ChainDraws): boolean {
    const n = ++this.counts[chain]!;
    if (this.stopAt !== null || n !== this.next) return false;
    if (++this.complete < this.counts.length) return false;
    // Every chain holds `next` draws or more; the spill's columns are cut to the shortest chain, `next`.
    const check = checkTarget(draws(), this.names, this.target, this.superchains);
    this.last = check;
    if (check.reached) {
      this.stopAt = this.next;
      return true;
    }
    this.next += Math.max(MIN_BLOCK, Math.ceil(this.next / 5));
    this.complete = this.counts.reduce((k, c) => k + (c >= this.next ? 1 : 0), 0);
    return false;
  }

  /** Checks the draws of a run that ended without meeting the target (at the cap), for the closing line. */
  finish(draws: ChainDraws): void {
    if (this.stopAt === null && draws.drawsPerChain > 0) this.last = checkTarget(draws, this.names, this.target, this.superchains);
  }

  /** The line said at the end of the run: met after how many draws, or not within the cap. */
  line(): string {
    const c = this.last;
    const rhatName = this.superchains !== undefined ? "nested R-hat" : "R-hat";
    if (c === null) return `--target-ess ${this.target}: no check ran (fewer than ${MIN_BLOCK} draws a chain)`;
    const where = `lowest bulk ESS ${c.minEss.toFixed(0)} (${c.minEssName}), highest ${rhatName} ${c.maxRhat.toFixed(4)} (${c.maxRhatName})`;
    if (c.reached) return `--target-ess ${this.target}: reached after ${c.draws} draws a chain: ${where}`;
    return `warning: --target-ess ${this.target}: not reached within the cap of draws; after ${c.draws} draws a chain: ${where}; raise --max-draws, or run a longer warmup`;
  }
}
