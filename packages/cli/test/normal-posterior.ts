// The approximation commands' shared fixture: μ ~ normal(0, 10), y_i ~ normal(μ, 2) with eight
// observations, a normal posterior with precision 1/100 + n/4 whose mean and sd are exact, as a
// model file (with a deterministic `twice` = 2μ) and a data file in a temporary directory.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PPL_INDEX } from "./helpers.ts";

/** Writes `<name>.ts` into `dir`, a model module importing the names it uses from @ppl/ppl and default-exporting `body`; returns its path. */
export function writeModelFile(dir: string, name: string, body: string, names = "data, gamma, model, normal, uniform"): string {
  const p = join(dir, `${name}.ts`);
  writeFileSync(p, `import { ${names} } from ${JSON.stringify(PPL_INDEX)};\nexport default ${body};\n`);
  return p;
}

/** The observations. */
export const Y = [1.2, 0.4, 2.9, 1.7, 0.8, 2.2, 1.1, 1.9];
/** The data as an object. */
export const NORMAL_DATA_VALUES = { N: Y.length, y: Y };
const PRECISION = 1 / 100 + Y.length / 4;
/** The exact posterior mean and sd of μ. */
export const POST_MEAN = Y.reduce((a, b) => a + b, 0) / 4 / PRECISION;
export const POST_SD = 1 / Math.sqrt(PRECISION);

/** The normal model and its data written into `dir`: their paths. */
export function normalPosterior(dir: string): { model: string; data: string } {
  const model = writeModelFile(dir, "normal", `model({ name: "n", data: { N: data.int(), y: data.vector("N") }, build(m, d) {
  const mu = m.param("mu", normal(0, 10));
  m.observe(d.y, normal(mu, 2));
  m.deterministic("twice", mu.mul(2));
} })`);
  const data = join(dir, "normal.json");
  writeFileSync(data, JSON.stringify(NORMAL_DATA_VALUES));
  return { model, data };
}
