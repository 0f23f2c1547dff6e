/**
 * The stopping rule of the time-to-target-ESS benchmark (bench/gpu-anchors.ts --target-ess; its
 * NumPyro twin is bench/numpyro_target.py, the rule in docs/target-ess-benchmark.md): the sampling
 * draws of every chain are kept, and each time every chain holds a multiple of `block` draws the
 * bulk ESS of every coordinate is computed over all draws so far (packages/ppl/src/diagnostics).
 * The target is met when the lowest is ≥ target and, for chains started in superchains, the
 * highest nested R-hat is below the CLI's threshold (packages/cli/src/target-ess.ts checks the same
 * per parameter; its blocks grow, these are fixed so that NumPyro's compiled block is one).
 * A check stops at the first coordinate that misses the target, starting from the one that missed
 * it last: the decision is the same as over every coordinate (all meet it, or not), and a failed
 * check of 2005 coordinates costs one or a few instead of all (seconds a check on a CPU core).
 */
import { contiguousSuperchains, essBulk, rhatNested } from "../packages/ppl/src/index.ts";
import { NESTED_RHAT_THRESHOLD } from "../packages/cli/src/nested-rhat-lines.ts";

/**
 * One check after a block: the lowest bulk ESS and highest nested R-hat over the coordinates it
 * computed (every one when it met the target; up to the first that missed it otherwise), whose,
 * and what it took.
 */
export interface BlockCheck {
  readonly draws: number;
  readonly reached: boolean;
  /** Coordinates computed. */
  readonly coordinates: number;
  readonly minEss: number;
  readonly minEssName: string;
  /** With superchains: the highest nested R-hat and whose (NaN and "" without). */
  readonly maxRhat: number;
  readonly maxRhatName: string;
  /** The check's own wall seconds. */
  readonly seconds: number;
}

/** Whether a check's numbers meet the target: ESS ≥ target, and nested R-hat below the threshold where there are superchains. */
export function meetsTarget(minEss: number, maxRhat: number, target: number, superchains: boolean): boolean {
  // NaN (too few draws, constant draws) never meets it.
  return minEss >= target && (!superchains || maxRhat < NESTED_RHAT_THRESHOLD);
}

/** Follows the sampling draws of every chain (unconstrained coordinates) and checks the target after each complete block. */
export class TargetBlocks {
  private readonly store: Float64Array[];
  private readonly counts: Int32Array;
  private readonly labels: Int32Array | null;
  private complete = 0;
  private next: number;
  // The coordinate that missed the target at the last check: the next check starts with it.
  private missed = 0;
  /** Every check so far, in order. */
  readonly checks: BlockCheck[] = [];
  /** The check that met the target, once one has. */
  met: BlockCheck | null = null;

  /**
   * `names` name the coordinates (their count is the dimension); `superchains` (K) groups the
   * chains into K contiguous superchains of equal size for nested R-hat; the first check comes at
   * the first multiple of the block that holds `firstCheck` draws a chain or more.
   */
  constructor(readonly target: number, readonly block: number, readonly names: readonly string[], readonly chains: number, readonly superchains?: number, firstCheck = block) {
    if (!(Number.isInteger(block) && block >= 1)) throw new RangeError(`block: ${block} draws; give a whole number ≥ 1`);
    this.store = Array.from({ length: chains }, () => new Float64Array(block * names.length));
    this.counts = new Int32Array(chains);
    // Throws a SuperchainError that names the fix when K does not divide the chains.
    this.labels = superchains === undefined ? null : contiguousSuperchains(chains, superchains);
    this.next = Math.max(1, Math.ceil(firstCheck / block)) * block;
  }

  /** Whether the target is met (later draws are not kept). */
  get done(): boolean {
    return this.met !== null;
  }

  /** Keeps chain `chain`'s next sampling draw; checks when it completes a block; true when this check met the target. */
  add(chain: number, position: ArrayLike<number>): boolean {
    if (this.met !== null) return false;
    const dim = this.names.length;
    const n = this.counts[chain]!;
    let buf = this.store[chain]!;
    if ((n + 1) * dim > buf.length) {
      const grown = new Float64Array(buf.length * 2);
      grown.set(buf);
      this.store[chain] = buf = grown;
    }
    for (let j = 0; j < dim; j++) buf[n * dim + j] = position[j]!;
    this.counts[chain] = n + 1;
    if (n + 1 !== this.next || ++this.complete < this.chains) return false;
    const check = this.check(this.next);
    this.checks.push(check);
    if (check.reached) {
      this.met = check;
      return true;
    }
    this.next += this.block;
    // Chains that ran ahead (none in lockstep runs) already count for the next block.
    this.complete = this.counts.reduce((k, c) => k + (c >= this.next ? 1 : 0), 0);
    return false;
  }

  /** Total wall seconds of the checks so far. */
  get checkSeconds(): number {
    return this.checks.reduce((s, c) => s + c.seconds, 0);
  }

  // Each coordinate's bulk ESS (and nested R-hat) over the first n draws of every chain, one
  // coordinate at a time, the last one to miss first, up to the first that misses.
  private check(n: number): BlockCheck {
    const t0 = performance.now();
    const dim = this.names.length;
    const superchains = this.labels !== null;
    let minEss = Infinity, minEssName = "", maxRhat = superchains ? -Infinity : NaN, maxRhatName = "", computed = 0;
    const columns = Array.from({ length: this.chains }, () => new Float64Array(n));
    for (let k = 0; k < dim; k++) {
      const j = k === 0 ? this.missed : k <= this.missed ? k - 1 : k;
      for (let c = 0; c < this.chains; c++) {
        const buf = this.store[c]!, col = columns[c]!;
        for (let i = 0; i < n; i++) col[i] = buf[i * dim + j]!;
      }
      const ess = essBulk(columns);
      const r = this.labels ? rhatNested(columns, this.labels) : NaN;
      computed++;
      if (!(ess >= minEss)) [minEss, minEssName] = [ess, this.names[j]!];
      if (superchains && !(r <= maxRhat)) [maxRhat, maxRhatName] = [r, this.names[j]!];
      if (!meetsTarget(ess, r, this.target, superchains)) {
        this.missed = j;
        break;
      }
    }
    const reached = computed === dim && meetsTarget(minEss, maxRhat, this.target, superchains);
    return { draws: n, reached, coordinates: computed, minEss, minEssName, maxRhat, maxRhatName, seconds: (performance.now() - t0) / 1000 };
  }
}
