export { advi, approximationDraw, approximationMean, familyOf, ADVI_DEFAULTS, type AdviOptions, type AdviResult, type ElboCheck } from "./advi.ts";
export { adaptEta, ETA_SEQUENCE, type EtaAdaptation, type EtaAdaptationOptions, type EtaSearch } from "./adapt-eta.ts";
export { elboGradient, elboGradientSteps, estimateElbo, estimateElboSteps, VariationalError, type ElboContext } from "./elbo.ts";
export { NormalTape, type TapeReader } from "./normal-tape.ts";
export { standardEntropy, standardNormal, type FamilyName, type GaussianFamily } from "./family.ts";
export { meanfield } from "./meanfield.ts";
export { fullrank, fullrankCovariance } from "./fullrank.ts";
export { checkRelativeChange, relativeChangeState, type RelativeChange, type RelativeChangeState } from "./relative-tolerance.ts";
export { ascend, lastStep, stepSizeState, type StepSizeState } from "./step-size.ts";
