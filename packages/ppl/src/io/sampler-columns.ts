import type { DrawInfo } from "../sampler/result.ts";

/** The sampler's own columns, in Stan's order, ahead of the parameters. */
export const SAMPLER_COLUMNS = [
  "lp__",
  "accept_stat__",
  "stepsize__",
  "treedepth__",
  "n_leapfrog__",
  "divergent__",
  "energy__",
] as const;

/** One of Stan's sampler columns. */
export type SamplerColumn = (typeof SAMPLER_COLUMNS)[number];

// Where each column's value comes from in a draw: the one mapping between the two.
const VALUE_OF: Readonly<Record<SamplerColumn, (d: DrawInfo) => number>> = {
  lp__: (d) => d.lp,
  accept_stat__: (d) => d.acceptStat,
  stepsize__: (d) => d.stepSize,
  treedepth__: (d) => d.treeDepth,
  n_leapfrog__: (d) => d.nLeapfrog,
  divergent__: (d) => (d.divergent ? 1 : 0),
  energy__: (d) => d.energy,
};

/** Writes a draw's sampler values into `out[0 … SAMPLER_COLUMNS.length)`, in SAMPLER_COLUMNS order. */
export function samplerValues(d: DrawInfo, out: Float64Array): void {
  SAMPLER_COLUMNS.forEach((c, i) => {
    out[i] = VALUE_OF[c](d);
  });
}
