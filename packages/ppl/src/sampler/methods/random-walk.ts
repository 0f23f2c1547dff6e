/**
 * Random-walk Metropolis, written against the inference layer's surface alone (layer.ts): the
 * proposal q' = q + ε·M⁻¹p with p ~ N(0, M) drawn as a momentum is, so that its covariance is ε²
 * times the inverse metric, and the Metropolis test of lp' − lp with the Accept stream. It asks
 * for one density evaluation a transition (the batch computes the gradient too, unused). It has
 * no adaptation: warmup runs its transitions at the run's step size.
 */
import { drawMomentum, Purpose, restoreRow, rowCopy, saveRow, streamUniform, type ChainContext, type RowCopy, type SamplingMethod } from "./layer.ts";

/** One chain's random-walk state: its proposal's storage, the point it started from, the last statistics. */
export interface RandomWalkState {
  readonly chain: ChainContext;
  readonly p: Float64Array;
  readonly step: Float64Array;
  readonly normals: Float64Array;
  readonly start: RowCopy;
  iteration: number;
  acceptStat: number;
  energy: number;
}

/** Random-walk Metropolis with proposal covariance stepSize² · M⁻¹. */
export const randomWalk: SamplingMethod<RandomWalkState> = {
  name: "random-walk",
  adaptation: null,
  init(chain) {
    const dim = chain.q.length;
    return { chain, p: new Float64Array(dim), step: new Float64Array(dim), normals: new Float64Array(dim), start: rowCopy(dim), iteration: 0, acceptStat: 0, energy: 0 };
  },
  begin(s, iteration, stepSize) {
    const { chain, p, step } = s;
    s.iteration = iteration;
    saveRow(chain, s.start);
    drawMomentum(chain, iteration, Purpose.Momentum, 0, s.normals, p);
    chain.metric.velocity(p, step);
    for (let i = 0; i < step.length; i++) chain.q[i] = s.start.q[i]! + stepSize * step[i]!;
    return true;
  },
  advance(s) {
    const { chain, start } = s;
    const lp = chain.batch.lp[chain.row]!;
    // NaN (a point outside the support) is rejected.
    s.acceptStat = lp > start.lp ? 1 : lp - start.lp > -Infinity ? Math.exp(lp - start.lp) : 0;
    const u = streamUniform(chain.key, chain.id, s.iteration, Purpose.Accept, 0, 0, 0);
    if (!(u < s.acceptStat)) restoreRow(chain, start);
    s.energy = -chain.batch.lp[chain.row]!;
    return false;
  },
  info: (s) => ({ acceptStat: s.acceptStat, treeDepth: 0, nLeapfrog: 1, divergent: false, energy: s.energy }),
};
