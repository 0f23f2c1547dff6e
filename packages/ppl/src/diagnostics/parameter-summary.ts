// One parameter's row of a summary: what summarize computes and the warnings read.
/** All statistics of one parameter; NaN stands for posterior's NA. */
export interface ParameterSummary {
  readonly name: string;
  readonly mean: number;
  readonly sd: number;
  readonly median: number;
  readonly mad: number;
  readonly q5: number;
  readonly q50: number;
  readonly q95: number;
  readonly rhat: number;
  readonly rhat_basic: number;
  readonly ess_bulk: number;
  readonly ess_tail: number;
  readonly ess_basic: number;
  readonly mcse_mean: number;
  readonly mcse_sd: number;
  readonly mcse_q5: number;
  readonly mcse_q95: number;
}
