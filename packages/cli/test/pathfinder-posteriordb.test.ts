// Pathfinder (4 paths, PSIS resampling, CmdStan's defaults, seed 45) on the shared posteriordb
// posteriors: every parameter's mean within 0.5 reference sd of posteriordb's NUTS reference.
// kidiq and earnings run by default (about a second each); PPL_LONG=1 adds the others (diamonds
// takes minutes: L-BFGS needs most of its 1000 iterations on its correlated posterior). Three
// posteriors do not meet the rule; for them the parameters listed stay outside 0.5 sd and every
// other parameter must meet it (docs/pathfinder.md says why).
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel } from "@ppl/ppl";
import { objectiveOf, optimizationDensity, pathfinder } from "@ppl/ppl/inference";
import { compileStan } from "@ppl/stan";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const ROOT = "../shared/posteriordb";
const FAST = new Set(["kidiq-kidscore_interaction", "earnings-logearn_interaction"]);

/** Posteriors where Pathfinder's draws miss the reference mean by more than 0.5 sd, the parameters that do, and why. */
const KNOWN_MISSES: Readonly<Record<string, { readonly params: readonly string[]; readonly why: string }>> = {
  "eight_schools-eight_schools_noncentered": {
    params: ["mu"],
    why: "tau's funnel: the best normal approximations are found at the first iterates, too narrow in mu (sd 1.9 against 3.3); Pareto k 0.67 does not flag it",
  },
  "gp_pois_regr-gp_pois_regr": {
    params: ["alpha"],
    why: "the GP's magnitude alpha has a skewed, heavy-tailed marginal a normal on log alpha cannot follow (sd 0.34 against 0.79); Pareto k 1.29 flags it",
  },
  "diamonds-diamonds": {
    params: ["b[5]", "b[12]"],
    why: "a strongly correlated 26-dimensional posterior: L-BFGS runs 640-1000 iterations and the rank-10 approximation misses two coefficients by 0.6-0.7 sd; Pareto k 1.19 flags it",
  },
};

interface Reference { readonly [name: string]: { readonly mean: number; readonly sd: number } }

async function pathfinderMeans(posterior: string): Promise<{ z: Map<string, number>; paretoK: number }> {
  const dir = `${ROOT}/${posterior}`;
  const compiled = compileModel(compileStan(readFileSync(`${dir}/model.stan`, "utf8"), `${dir}/model.stan`), JSON.parse(readFileSync(`${dir}/data.json`, "utf8")), { allowExtraKeys: true });
  const r = pathfinder(objectiveOf(await optimizationDensity(compiled, true)), { seed: 45 });
  const names = compiled.constrainedNames();
  const rows = r.draws.x.map((x) => compiled.generatedAt(x));
  const reference = (JSON.parse(readFileSync(`${dir}/reference.json`, "utf8")) as { params: Reference }).params;
  const z = new Map<string, number>();
  for (const [name, ref] of Object.entries(reference)) {
    const j = names.indexOf(name);
    expect(j, `${posterior}: ${name} is one of the model's names`).toBeGreaterThanOrEqual(0);
    const mean = rows.reduce((t, row) => t + row[j]!, 0) / rows.length;
    z.set(name, Math.abs(mean - ref.mean) / ref.sd);
  }
  return { z, paretoK: r.paretoK };
}

const posteriors = readdirSync(ROOT).filter((p) => p.includes("-")).filter((p) => LONG || FAST.has(p));

describe("pathfinder on posteriordb: means within 0.5 reference sd", () => {
  it.each(posteriors)("%s", async (posterior) => {
    const { z } = await pathfinderMeans(posterior);
    const miss = KNOWN_MISSES[posterior]?.params ?? [];
    for (const [name, v] of z) {
      if (miss.includes(name)) expect(v, `${posterior} ${name}: listed as a miss (${KNOWN_MISSES[posterior]!.why}); it now passes, take it off the list`).toBeGreaterThan(0.5);
      else expect(v, `${posterior} ${name}: |mean − reference| / sd`).toBeLessThanOrEqual(0.5);
    }
  }, 600_000);
});
