export { philox4x32, mulhi32, mullo32 } from "./philox.ts";
export { uniformFromWords, boxMullerCos, boxMullerSin, exponentialFromUniform } from "./variates.ts";
export {
  Purpose,
  seedKey,
  streamBlock,
  streamUniform,
  streamUniforms,
  streamNormals,
  streamExponentials,
} from "./streams.ts";
export type { SeedKey } from "./streams.ts";
export { StreamRng, streamRng, philoxRng, type Rng } from "./rng.ts";
