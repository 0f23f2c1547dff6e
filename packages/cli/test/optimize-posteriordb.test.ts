// The mode of every shared posteriordb posterior that has one against rstan 2.21's optimizing()
// (Stan's L-BFGS without the Jacobian, run to tight tolerances from four starts; the fixtures and
// the script that made them are in fixtures/optimize/): each constrained value within 1e-4
// relative or 1e-6 absolute. Ours is L-BFGS with CmdStan's defaults finished by Newton's steps to
// a gradient norm below 1e-9. PPL_LONG=1 adds the slower posteriors (seconds each).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel } from "@ppl/ppl";
import { minimize, objectiveOf, optimizationDensity } from "@ppl/ppl/inference";
import { compileStan } from "@ppl/stan";

interface Mode { readonly lp: number; readonly return_code: number; readonly par: Readonly<Record<string, number>> }
const FIXTURES = JSON.parse(readFileSync(new URL("./fixtures/optimize/modes.json", import.meta.url), "utf8")) as Record<string, { default: Mode; tight: Mode | null }>;
const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const SLOW = new Set(["diamonds-diamonds", "garch-garch11", "hmm_example-hmm_example", "gp_pois_regr-gp_pois_regr"]);

/**
 * Posteriors whose constrained density has no mode: the supremum lies on a boundary, where the
 * unconstrained parameter runs off to infinity and where both optimizers stop is arbitrary.
 */
const NO_MODE: Readonly<Record<string, string>> = {
  "eight_schools-eight_schools_noncentered": "tau's half-Cauchy density without the Jacobian is largest at tau = 0",
};

async function ourMode(posterior: string): Promise<Record<string, number>> {
  const dir = `../shared/posteriordb/${posterior}`;
  const compiled = compileModel(compileStan(readFileSync(`${dir}/model.stan`, "utf8"), `${dir}/model.stan`), JSON.parse(readFileSync(`${dir}/data.json`, "utf8")), { allowExtraKeys: true });
  const obj = objectiveOf(await optimizationDensity(compiled, false));
  const start = new Float64Array(compiled.dim).map((_, i) => 0.1 * Math.sin(i + 1));
  const near = minimize(obj, start);
  expect(near.converged, `${posterior}: ${near.message}`).toBe(true);
  const tight = minimize(obj, near.x, { algorithm: "newton", tolObj: 0, tolRelObj: 0, tolRelGrad: 0, tolParam: 0, tolGrad: 1e-9, iter: 200 });
  const x = tight.f <= near.f ? tight.x : near.x;
  const values = compiled.generatedAt(x);
  return Object.fromEntries(compiled.constrainedNames().map((n, i) => [n, values[i]!]));
}

const cases = Object.keys(FIXTURES).filter((p) => !(p in NO_MODE) && (LONG || !SLOW.has(p)));

describe("ppl optimize's mode against rstan's optimizing()", () => {
  it.each(cases)("%s", async (posterior) => {
    const ref = FIXTURES[posterior]!.tight!;
    expect(ref, `${posterior}: the fixture has no tight mode`).not.toBeNull();
    const ours = await ourMode(posterior);
    for (const [name, value] of Object.entries(ref.par)) {
      if (!(name in ours)) continue;
      const err = Math.abs(ours[name]! - value);
      expect(err <= 1e-6 || err <= 1e-4 * Math.abs(value), `${posterior} ${name}: ${ours[name]} vs rstan ${value}`).toBe(true);
    }
    // Every parameter of the fixture is one of ours (transformed parameters too, by Stan's names).
    expect(Object.keys(ref.par).filter((n) => !(n in ours))).toEqual([]);
  });

  it.each(Object.keys(NO_MODE).filter((p) => p in FIXTURES))("%s has no mode: both optimizers run tau toward its boundary at 0", async (posterior) => {
    const ours = await ourMode(posterior);
    expect(ours["tau"]!).toBeLessThan(1e-3);
    expect(FIXTURES[posterior]!.default.par["tau"]!).toBeLessThan(1e-3);
  });
});
