export { thinQr, type ThinQr } from "./householder-qr.ts";
export { lowRankNormal, drawLowRankNormal, lowRankLogDensity, lowRankCovariance, type LowRankNormal } from "./low-rank-normal.ts";
export { emptyHistory, pushPair, curvatureOk, updateDiagonal, CURVATURE_BOUND, type PathHistory } from "./path-history.ts";
export { approximateDraws, approximateDrawsSteps, elboOf, concatDraws, type ApproximateDraws, type DrawAddress } from "./approximate-draws.ts";
export { singlePath, singlePathSteps, PATH_DEFAULTS, type PathSettings, type SinglePathResult } from "./single-path.ts";
export { psisWeights, resampleIndices, type ImportanceWeights } from "./psis-resample.ts";
export { poolDraws, psisResample, type PooledDraws } from "./pooled-draws.ts";
export { pathfinder, PathfinderError, type PathfinderOptions, type PathfinderResult } from "./multi-path.ts";
