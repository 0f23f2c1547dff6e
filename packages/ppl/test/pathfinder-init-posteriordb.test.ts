// NUTS started from Pathfinder (`ppl sample --init pathfinder`): each posteriordb posterior of the
// suite sampled on the CPU with its usual settings (4 chains × 1000 draws after 1000 warmup, the
// suite's seed), each chain from a resampled draw of multi-path Pathfinder run with that seed,
// must pass the pass rule as it does from random initial points. Minutes (the suite twice over in
// Pathfinder and sampling): PPL_LONG=1 only; the default run checks the wiring on eight schools.
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity } from "../src/index.ts";
import { objectiveOf, pathfinder } from "../src/inference.ts";
import { DEFAULT_SEED, failureLines, loadModel, loadPosterior, runPosterior } from "../src/posteriordb/index.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const SUITE = [
  "eight_schools-eight_schools_noncentered", "kidiq-kidscore_interaction", "sblrc-blr", "mesquite-logmesquite", "arK-arK", "garch-garch11",
  "low_dim_gauss_mix-low_dim_gauss_mix", "hmm_example-hmm_example", "earnings-logearn_interaction", "gp_pois_regr-gp_pois_regr", "diamonds-diamonds",
];

async function pathfinderInits(name: string): Promise<Float64Array[]> {
  const compiled = compileModel(await loadModel(name), loadPosterior(name).data);
  const r = pathfinder(objectiveOf(await modelDensity(compiled, { backend: "cpu" })), { seed: DEFAULT_SEED, numResampled: 4 });
  return r.draws.x;
}

describe("NUTS from Pathfinder's draws on posteriordb", () => {
  it.each(LONG ? SUITE : ["eight_schools-eight_schools_noncentered"])("%s passes the rule", async (name) => {
    const init = await pathfinderInits(name);
    expect(init.length).toBe(4);
    const r = await runPosterior(name, { init });
    expect(failureLines(r), `${name}: worst |z| ${r.worstZ.value.toFixed(2)} (${r.worstZ.name})`).toEqual([]);
    expect(r.pass).toBe(true);
  }, 1_200_000);
});
