/**
 * A threaded run's pieces that are plain functions: how its chains are split into groups, how the
 * groups' results make one result, and how a worker's error comes back as the sampler's error.
 */
import { AdaptationError, InitializationError, SamplerOptionError, StepSizeError } from "../errors.ts";
import { Metric } from "../metric.ts";
import type { ChainAdaptationResult, ChainStats, SampleResult } from "../result.ts";
import type { ResolvedSampleSettings } from "../settings.ts";
import type { ThreadError } from "./protocol.ts";

/** A range of chains done by some thread. */
export interface RangeResult {
  readonly first: number;
  readonly thread: number;
  readonly result: SampleResult;
}

/** Rows first … first+count−1 in `parts` contiguous groups as equal as can be (the first ones larger). */
export function splitRows(first: number, count: number, parts: number): { first: number; count: number }[] {
  const out: { first: number; count: number }[] = [];
  let at = first;
  for (let k = 0; k < parts; k++) {
    const n = Math.floor(count / parts) + (k < count % parts ? 1 : 0);
    if (n > 0) out.push({ first: at, count: n });
    at += n;
  }
  return out;
}

/** One result for the whole run from the ranges' results; chains never started have no draws. */
export function mergeRanges(s: ResolvedSampleSettings, dim: number, ranges: readonly RangeResult[], wallSeconds: number, aborted: boolean): SampleResult {
  // Not new Array(n): map skips the holes of a sparse array, and chains never started are holes here.
  const perChain = Array.from({ length: s.chains }, (): { result: SampleResult; row: number; thread: number } | undefined => undefined);
  for (const r of ranges) for (let row = 0; row < r.result.settings.chains; row++) perChain[r.first + row] = { result: r.result, row, thread: r.thread };
  let started = true;
  let drawsDone = s.draws;
  let warmupDone = s.warmup;
  for (const p of perChain) {
    if (!p) started = false;
    drawsDone = Math.min(drawsDone, p ? p.result.drawsDone : 0);
    warmupDone = Math.min(warmupDone, p ? p.result.warmupDone : 0);
  }
  const trim = (a: Float64Array, n: number): Float64Array => (a.length === n ? a : a.slice(0, n));
  const empty = (): ChainStats => ({
    lp: new Float64Array(0), acceptStat: new Float64Array(0), stepSize: new Float64Array(0), treeDepth: new Float64Array(0),
    nLeapfrog: new Float64Array(0), divergent: new Float64Array(0), energy: new Float64Array(0),
  });
  const unit = new Metric(s.metric, dim);
  let warmupTime = 0;
  let samplingTime = 0;
  for (const r of ranges) {
    warmupTime += r.result.timing.warmupSeconds;
    samplingTime += r.result.timing.samplingSeconds;
  }
  const warmupShare = warmupTime + samplingTime > 0 ? warmupTime / (warmupTime + samplingTime) : 0;
  return {
    dim,
    settings: s,
    draws: perChain.map((p) => (p ? trim(p.result.draws[p.row]!, drawsDone * dim) : new Float64Array(0))),
    stats: perChain.map((p) => {
      if (!p) return empty();
      const st = p.result.stats[p.row]!;
      return {
        lp: trim(st.lp, drawsDone), acceptStat: trim(st.acceptStat, drawsDone), stepSize: trim(st.stepSize, drawsDone),
        treeDepth: trim(st.treeDepth, drawsDone), nLeapfrog: trim(st.nLeapfrog, drawsDone), divergent: trim(st.divergent, drawsDone),
        energy: trim(st.energy, drawsDone),
      };
    }),
    adaptation: perChain.map(
      (p): ChainAdaptationResult =>
        p ? p.result.adaptation[p.row]! : { stepSize: s.stepSize, metric: s.metric, invMetric: Float64Array.from(unit.inverse) },
    ),
    warmupDone,
    drawsDone,
    aborted: aborted || !started || ranges.some((r) => r.result.aborted),
    gradientEvaluations: perChain.map((p) => (p ? p.result.gradientEvaluations[p.row]! : 0)),
    // Each chain's history moved with it (ChainState.stuck): the range that ended it has all of it.
    reinitialisations: ranges
      .flatMap((r) => r.result.reinitialisations.map((x) => ({ ...x, chain: r.first + x.chain })))
      .sort((a, b) => a.iteration - b.iteration || a.chain - b.chain),
    timing: { warmupSeconds: wallSeconds * warmupShare, samplingSeconds: wallSeconds * (1 - warmupShare) },
    threads: { used: new Set(ranges.map((r) => r.thread)).size, chainThread: perChain.map((p) => (p ? p.thread : -1)) },
  };
}

/** The error a worker reported, as the class the single-threaded sampler would have thrown. */
export function fromThreadError(t: ThreadError): Error {
  let e: Error;
  if (t.chain !== undefined && t.name === "InitializationError") e = new InitializationError(t.chain, "");
  else if (t.chain !== undefined && t.name === "StepSizeError") e = new StepSizeError(t.chain, "");
  else if (t.chain !== undefined && t.name === "AdaptationError") e = new AdaptationError(t.chain, "");
  else if (t.name === "SamplerOptionError") e = new SamplerOptionError("");
  else {
    e = new Error("");
    e.name = t.name;
  }
  e.message = t.message;
  if (t.stack !== undefined) e.stack = t.stack;
  return e;
}
