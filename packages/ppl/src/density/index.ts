export { modelDensity, type ModelDensity, type ModelDensityOptions } from "./model-density.ts";
export { gradientGraph, type GradientGraph, type GradientGraphOptions } from "./gradient-graph.ts";
