export { DrawValues } from "./draw-values.ts";
export {
  generatedEvaluator, predictiveNames, PREDICTIVE_SUFFIX, type GeneratedEvaluator, type GeneratedEvaluatorOptions,
} from "./generated.ts";
export { priorSampler, type PriorSampler } from "./prior.ts";
