/**
 * Eight schools, ten 4 × (1000 + 1000) runs in one process, for a CPU profile of the sampler:
 *   node --cpu-prof --cpu-prof-dir=prof --import tsx bench/profile-eight-schools.ts
 * (the profile's self time per function is summarized in bench/RESULTS.md).
 */
import { compileModel, modelDensity, sample } from "../packages/ppl/src/index.ts";
import eightSchools from "../examples/eight_schools.ts";

const data = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const density = await modelDensity(compileModel(eightSchools, data), { backend: "cpu" });
let seconds = 0;
for (let r = 0; r < 10; r++) {
  const res = sample(density, { chains: 4, warmup: 1000, draws: 1000, seed: r });
  seconds += res.timing.warmupSeconds + res.timing.samplingSeconds;
}
console.log(`sampler seconds, 10 runs: ${seconds.toFixed(3)}`);
