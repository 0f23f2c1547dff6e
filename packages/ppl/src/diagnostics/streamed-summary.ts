import type { DrawSource } from "./draw-source.ts";
import { essAfterPassSteps, essOfSeriesSteps, essTailFrom, lagsFor, seriesPassSteps, type SeriesSteps } from "./ess.ts";
import { MAD_CONSTANT } from "./mad.ts";
import { mcseQuantileSorted } from "./mcse.ts";
import type { ParameterSummary } from "./parameter-summary.ts";
import { quantileSorted } from "./quantile.ts";
import { normalScore } from "./rank-normalize.ts";
import { rhatFromPass } from "./rhat.ts";
import { sortInSteps } from "./sort-in-steps.ts";
import { SortScratch, sortOrderSteps } from "./sort-order.ts";
import { finish, inRanges, STEP_WORK } from "./steps.ts";

/** Draws read from a source in one call: a spill's read of millions is tens of milliseconds, and a stop waits for none longer than this. */
const READ_STRETCH = 1 << 18;
/** Distinct values ranked between two yields: each is a search through the pooled draws and a normal quantile. */
const RANK_STEP = 1 << 12;

/**
 * The arrays of one parameter's summary (the pooled draws, a split chain and its derived series,
 * the sort's scratch), kept for the next parameter, whose draws are as many: made anew for each,
 * the pooled draws of the last one (160 MB at 4 × 5,000,000) were still held, until the garbage
 * collector came, when the next one's were filled. Contents are not kept: each use fills them.
 */
export class SummaryBuffers {
  private readonly arrays = new Map<string, Float64Array>();
  private scratch: SortScratch | undefined;

  /** The array named `name` of `length` doubles: the one made before when it is that long. */
  take(name: "pooled" | "raws" | "work", length: number): Float64Array {
    let a = this.arrays.get(name);
    if (a?.length !== length) {
      // Dropped before the new one is made, so that the two are never held together.
      this.arrays.delete(name);
      a = new Float64Array(length);
      this.arrays.set(name, a);
    }
    return a;
  }

  /** The radix sort's arrays for series of `length` values. */
  sortScratch(length: number): SortScratch {
    if (this.scratch === undefined || this.scratch.arrays[0]!.length !== length) {
      this.scratch = undefined;
      this.scratch = new SortScratch(length);
    }
    return this.scratch;
  }
}

/** How many of a parameter's draws are NaN or infinite (for its warning). */
export interface NonFiniteCount {
  readonly bad: number;
  readonly nan: number;
  readonly total: number;
}

/**
 * Every statistic of one parameter (as `summarizeParameter` computes them from ParameterDraws,
 * bit for bit) holding only the pooled draws sorted and one split chain at a time: the split
 * chains, their rank-normalised, folded, squared and indicator forms are made from `source` when a
 * pass needs them, and a split chain's ranks among all draws come from its own sort merged with
 * the pooled one. For 4 × 5,000,000 draws that is 160 MB of sorted draws and about 100 MB of
 * buffers, where ParameterDraws holds about ten arrays of all draws. Returns null when the
 * median is infinite (more than half the draws infinite): the folded draws hold NaN then, and
 * the caller takes the in-memory route.
 */
export function summarizeSource(name: string, source: DrawSource): { summary: ParameterSummary; nonFinite: NonFiniteCount } | null {
  return finish(summarizeSourceSteps(name, source));
}

/**
 * `summarizeSource` in steps: the generator yields inside every long loop (the chains' reads in
 * stretches, the pooled moments' passes, the sort, each split chain's read, ranks and transforms,
 * in ranges of STEP_WORK elements), none more than milliseconds at 4 × 5,000,000 draws, so that a
 * caller can let a stop signal's handler run and give up the summary at any moment.
 */
export function* summarizeSourceSteps(name: string, source: DrawSource, buffers = new SummaryBuffers()): Generator<void, { summary: ParameterSummary; nonFinite: NonFiniteCount } | null, void> {
  const { chains, iterations: n } = source;
  const total = chains * n;
  const pooled = buffers.take("pooled", total);
  for (let c = 0; c < chains; c++) yield* readSteps(source, c, 0, pooled.subarray(c * n, (c + 1) * n));
  const moments = yield* pooledMoments(pooled);
  // In place: the chains are read again from the source when a pass needs them in order.
  const sorted = yield* sortInSteps(pooled);
  const hasNaN = moments.nonFinite.nan > 0;
  const quantile = (p: number): number => (hasNaN ? NaN : quantileSorted(sorted, p));
  const median = quantile(0.5);
  if (!hasNaN && !Number.isFinite(median)) return null;
  const split = new SplitChains(source, buffers);

  // One pass gives both basic R-hat and basic ESS (and the bulk pass both bulk statistics).
  const raw: SeriesSteps = (j) => split.raw(j);
  const basic = yield* seriesPassSteps(split.count, split.length, raw, lagsFor(split.length));
  const essBasic = yield* essAfterPassSteps(basic, raw);
  const center = moments.mean;
  const essSquared = yield* essOfSeriesSteps(split.count, split.length, (j) => split.map(j, (x) => (x - center) * (x - center)));
  const varVar = (moments.fourth - moments.eVar * moments.eVar) / essSquared;
  const essQ05 = moments.returnsNA ? NaN : yield* essOfSeriesSteps(split.count, split.length, indicator(split, quantile(0.05)));
  const essQ95 = moments.returnsNA ? NaN : yield* essOfSeriesSteps(split.count, split.length, indicator(split, quantile(0.95)));

  let rhat = NaN;
  let essBulk = NaN;
  let mad = NaN;
  if (!hasNaN) {
    const pool = split.middles((x) => x);
    const bulk: SeriesSteps = function* (j) {
      return yield* split.scores(yield* split.raw(j), pool, new SortedPool(sorted));
    };
    const bulkPass = yield* seriesPassSteps(split.count, split.length, bulk, lagsFor(split.length));
    essBulk = yield* essAfterPassSteps(bulkPass, bulk);
    const fold = (x: number): number => Math.abs(x - median);
    const foldedPool = split.middles(fold);
    const medianAt = gallop(sorted, 0, 1, NaN, 0, sorted.length, median, false);
    const tail: SeriesSteps = function* (j) {
      return yield* split.scores(yield* split.map(j, fold), foldedPool, new FoldedPool(sorted, median, medianAt));
    };
    rhat = rhatOfBoth(rhatFromPass(bulkPass), rhatFromPass(yield* seriesPassSteps(split.count, split.length, tail, 0)));
    mad = MAD_CONSTANT * (yield* foldedMedian(sorted, median));
  }
  const sd = Math.sqrt(moments.variance);
  const summary: ParameterSummary = {
    name,
    mean: moments.mean,
    sd,
    median,
    mad,
    q5: quantile(0.05),
    q50: median,
    q95: quantile(0.95),
    rhat,
    rhat_basic: rhatFromPass(basic),
    ess_bulk: essBulk,
    ess_tail: essTailFrom(essQ05, essQ95),
    ess_basic: essBasic,
    mcse_mean: sd / Math.sqrt(essBasic),
    mcse_sd: Math.sqrt(varVar / moments.eVar / 4),
    mcse_q5: mcseQuantileSorted(sorted, 0.05, essQ05),
    mcse_q95: mcseQuantileSorted(sorted, 0.95, essQ95),
  };
  return { summary, nonFinite: moments.nonFinite };
}

// The larger of the bulk and the tail R-hat, NA when either is.
function rhatOfBoth(bulk: number, tail: number): number {
  return Number.isNaN(bulk) || Number.isNaN(tail) ? NaN : Math.max(bulk, tail);
}

// The indicator draws <= q of each split chain.
function indicator(split: SplitChains, q: number): SeriesSteps {
  return (j) => split.map(j, (x) => (x <= q ? 1 : 0));
}

// What the pooled draws in chain order give, before they are sorted: mean and variance as
// `mean`/`variance` compute them, posterior's NA test, and the squared centred draws' first two
// moments (mcse_sd), each summed in the same order as over an array of them, in ranges of
// STEP_WORK draws (a pass over 20,000,000 draws is a tenth of a second and more).
function* pooledMoments(x: Float64Array): Generator<void, { mean: number; variance: number; eVar: number; fourth: number; returnsNA: boolean; nonFinite: NonFiniteCount }, void> {
  const n = x.length;
  const m = yield* meanOf(x, NaN, 1);
  let bad = 0;
  let nan = 0;
  let min = Infinity;
  let max = -Infinity;
  yield* inRanges(n, (from, to) => {
    for (let i = from; i < to; i++) {
      const v = x[i]!;
      if (!Number.isFinite(v)) {
        bad++;
        if (Number.isNaN(v)) nan++;
      }
      if (v < min) min = v;
      if (v > max) max = v;
    }
  });
  const returnsNA = bad > 0 || Math.abs(max - min) < Number.EPSILON;
  // varianceAbout(x, m): the sum of squares over n - 1.
  const ss = yield* sumOf(x, m, 2, 0);
  const eVar = yield* meanOf(x, m, 2);
  const fourth = yield* meanOf(x, m, 4);
  return { mean: m, variance: n < 2 ? NaN : ss / (n - 1), eVar, fourth, returnsNA, nonFinite: { bad, nan, total: n } };
}

// The sum, in order and in ranges, of f(x[i]) - shift, f being the draw itself (power 1), or its
// squared deviation from c (power 2), or that squared (power 4): written out for each, since a
// function per draw called at one place with several functions was a quarter slower.
function* sumOf(x: Float64Array, c: number, power: 1 | 2 | 4, shift: number): Generator<void, number, void> {
  let sum = 0;
  yield* inRanges(x.length, (from, to) => {
    if (power === 1) for (let i = from; i < to; i++) sum += x[i]! - shift;
    else if (power === 2) {
      for (let i = from; i < to; i++) {
        const d = x[i]! - c;
        sum += d * d - shift;
      }
    } else {
      for (let i = from; i < to; i++) {
        const d = x[i]! - c;
        const q = d * d;
        sum += q * q - shift;
      }
    }
  });
  return sum;
}

// `mean` of f(x[i]) (see sumOf) without an array of them: the same sums in the same order.
function* meanOf(x: Float64Array, c: number, power: 1 | 2 | 4): Generator<void, number, void> {
  const n = x.length;
  if (n === 0) return NaN;
  const m = (yield* sumOf(x, c, power, 0)) / n;
  if (!Number.isFinite(m)) return m;
  const correction = yield* sumOf(x, c, power, m);
  return m + correction / n;
}

// Draws start .. start + out.length - 1 of a chain, read in stretches of READ_STRETCH.
function* readSteps(source: DrawSource, chain: number, start: number, out: Float64Array): Generator<void, Float64Array, void> {
  for (let at = 0; at < out.length; at += READ_STRETCH) {
    source.read(chain, start + at, out.subarray(at, Math.min(out.length, at + READ_STRETCH)));
    yield;
  }
  return out;
}

/**
 * The pooled draws (or their folded form) as the ranks need them: how many are below a value and
 * how many at most it, asked for values that do not decrease, each found by galloping on from the
 * last (a split chain's n values cost n·log(S/n) steps, not S: with a thousand chains a walk
 * through all S draws per split chain took longer than the rest of the summary).
 */
interface RankPool {
  readonly total: number;
  /** Values < v and values <= v, in `below` and `atMost`; v at least the last one asked for. */
  count(v: number): void;
  readonly below: number;
  readonly atMost: number;
}

/**
 * The first k in [from, to) where the k-th value of an ascending sequence is not below v (not at
 * most v with `orEqual`), found by doubling steps from `from`, then bisection. The sequence is
 * x[base + dir·k], or |x[base + dir·k] - center| when `center` is not NaN. Written out, without a
 * function per comparison: the summary makes this search for every distinct draw, twice a pass.
 */
function gallop(x: Float64Array, base: number, dir: number, center: number, from: number, to: number, v: number, orEqual: boolean): number {
  const fold = !Number.isNaN(center);
  let lo = from;
  let step = 1;
  for (;;) {
    if (lo + step > to) break;
    const raw = x[base + dir * (lo + step - 1)]!;
    const y = fold ? Math.abs(raw - center) : raw;
    if (!(orEqual ? y <= v : y < v)) break;
    lo += step;
    step *= 2;
  }
  let hi = Math.min(to, lo + step - 1);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const raw = x[base + dir * mid]!;
    const y = fold ? Math.abs(raw - center) : raw;
    if (orEqual ? y <= v : y < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

class SortedPool implements RankPool {
  below = 0;
  atMost = 0;
  readonly total: number;
  constructor(private readonly sorted: Float64Array) {
    this.total = sorted.length;
  }
  count(v: number): void {
    this.below = gallop(this.sorted, 0, 1, NaN, this.below, this.total, v, false);
    this.atMost = gallop(this.sorted, 0, 1, NaN, Math.max(this.atMost, this.below), this.total, v, true);
  }
}

// |x - c| of the sorted draws: falling up to the median c and rising after it (x - c is monotone
// in x, also in floating point), so the draws below c, read down, and those at or above it, read
// up, are two ascending sequences (ParameterDraws merges them), each searched on its own.
class FoldedPool implements RankPool {
  private downBelow = 0;
  private downAtMost = 0;
  private upBelow = 0;
  private upAtMost = 0;
  below = 0;
  atMost = 0;
  readonly total: number;
  /** `split`: the first sorted draw at or above the center. */
  constructor(private readonly sorted: Float64Array, private readonly center: number, private readonly split: number) {
    this.total = sorted.length;
  }
  count(f: number): void {
    const { sorted: x, center: c, split: b } = this;
    const upLength = this.total - b;
    this.downBelow = gallop(x, b - 1, -1, c, this.downBelow, b, f, false);
    this.downAtMost = gallop(x, b - 1, -1, c, Math.max(this.downAtMost, this.downBelow), b, f, true);
    this.upBelow = gallop(x, b, 1, c, this.upBelow, upLength, f, false);
    this.upAtMost = gallop(x, b, 1, c, Math.max(this.upAtMost, this.upBelow), upLength, f, true);
    this.below = this.downBelow + this.upBelow;
    this.atMost = this.downAtMost + this.upAtMost;
  }
}

// The median of the folded draws |x - c| (quantileSorted of their sort at 0.5), walking their merge.
function* foldedMedian(sorted: Float64Array, center: number): Generator<void, number, void> {
  const s = sorted.length;
  if (s === 0) return NaN;
  const below = gallop(sorted, 0, 1, NaN, 0, s, center, false);
  // The merge of the two ascending sequences, as far as the middle.
  let i = below - 1;
  let j = below;
  const next = (): number => {
    const down = i >= 0 ? Math.abs(sorted[i]! - center) : Infinity;
    const up = j < s ? Math.abs(sorted[j]! - center) : Infinity;
    if (j >= s || (i >= 0 && down <= up)) {
      i--;
      return down;
    }
    j++;
    return up;
  };
  const index = (s - 1) * 0.5;
  const lo = Math.floor(index);
  const hi = Math.ceil(index);
  for (let k = 0; k < lo; k++) {
    next();
    if ((k + 1) % STEP_WORK === 0) yield;
  }
  const at: Record<number, number> = { [lo]: next() };
  if (hi > lo) at[hi] = next();
  return quantileSorted({ length: s, ...at }, 0.5);
}

/**
 * The split chains of a source (posterior's layout: first halves in chain order, then second
 * halves; an odd chain's middle draw left out; chains of one draw not split), one at a time in a
 * buffer of their length, reused.
 */
class SplitChains {
  readonly count: number;
  readonly length: number;
  private readonly raws: Float64Array;
  private readonly work: Float64Array;

  constructor(private readonly source: DrawSource, private readonly buffers: SummaryBuffers) {
    const n = source.iterations;
    this.length = n === 1 ? 1 : Math.floor(n / 2);
    this.count = n === 1 ? source.chains : 2 * source.chains;
    this.raws = buffers.take("raws", this.length);
    this.work = buffers.take("work", this.length);
  }

  // The radix sort's arrays, made once for all split chains (three arrays of a split chain's length).
  private get sortScratch(): SortScratch {
    return (this.scratch ??= this.buffers.sortScratch(this.length));
  }
  private scratch: SortScratch | undefined;

  /** Split chain j's draws (in a buffer that the next call reuses), read in stretches. */
  *raw(j: number): Generator<void, Float64Array, void> {
    const chains = this.source.chains;
    const n = this.source.iterations;
    const second = this.count > chains && j >= chains;
    return yield* readSteps(this.source, j % chains, second ? n - this.length : 0, this.raws);
  }

  /** f of split chain j's draws. */
  *map(j: number, f: (x: number) => number): Generator<void, Float64Array, void> {
    const x = yield* this.raw(j);
    const out = this.work;
    yield* inRanges(x.length, (from, to) => {
      for (let i = from; i < to; i++) out[i] = f(x[i]!);
    });
    return out;
  }

  /** f of the draws that splitting leaves out (each odd chain's middle), sorted: the pool of ranks is the rest. */
  middles(f: (x: number) => number): Float64Array {
    const n = this.source.iterations;
    if (n === 1 || n % 2 === 0) return new Float64Array(0);
    const mid = new Float64Array(this.source.chains);
    const one = new Float64Array(1);
    for (let c = 0; c < this.source.chains; c++) {
      this.source.read(c, this.length, one);
      mid[c] = f(one[0]!);
    }
    return mid.sort();
  }

  /**
   * The normal scores of `values` (one split chain's, or their folded form; no NaN) by their mean
   * ranks among all split chains' values: `pool` counts every draw's, less the `left` ones that
   * splitting drops. Written over the other buffer than `values`.
   */
  *scores(values: Float64Array, left: Float64Array, pool: RankPool): Generator<void, Float64Array, void> {
    const order = yield* ascending(values, this.sortScratch);
    const out = values === this.raws ? this.work : this.raws;
    const s = pool.total - left.length;
    let leftAt = 0; // left-out values below the current run's value
    let runs = 0;
    for (let start = 0; start < order.length; ) {
      if (++runs % RANK_STEP === 0) yield;
      const v = values[order[start]!]!;
      let end = start + 1;
      while (end < order.length && values[order[end]!] === v) end++;
      pool.count(v);
      const below = pool.below;
      const atMost = pool.atMost;
      while (leftAt < left.length && left[leftAt]! < v) leftAt++;
      let leftEqual = 0;
      while (leftAt + leftEqual < left.length && left[leftAt + leftEqual] === v) leftEqual++;
      // Ranks lo+1 .. hi (1-based) among the pool share their mean, as rankNormalizeOrdered gives them.
      const lo = below - leftAt;
      const hi = lo + (atMost - below) - leftEqual;
      const z = normalScore((lo + 1 + hi) / 2, s);
      for (let k = start; k < end; k++) out[order[k]!] = z;
      leftAt += leftEqual;
      start = end;
    }
    return out;
  }
}

// The positions of values (no NaN) in ascending order: the radix sort, or for a few values a
// comparison sort (the radix sort's 2048 counters a pass would cost more than the values).
function* ascending(values: Float64Array, scratch: SortScratch): Generator<void, Uint32Array, void> {
  const n = values.length;
  if (n >= 256) return yield* sortOrderSteps(values, scratch);
  // Insertion sort: any ascending order serves (equal values, -0 and +0 among them, are one run).
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    let k = i;
    for (; k > 0 && values[order[k - 1]!]! > v; k--) order[k] = order[k - 1]!;
    order[k] = i;
  }
  return order;
}
