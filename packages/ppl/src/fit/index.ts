export { sample } from "./sample.ts";
export { sampleModel, type FitOptions } from "./sample-model.ts";
export { Fit, type VariableDraws, type FitParts } from "./fit.ts";
export { FitError } from "./fit-error.ts";
