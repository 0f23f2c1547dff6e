export { modelDensity, type ModelDensity, type ModelDensityOptions } from "./model-density.ts";
