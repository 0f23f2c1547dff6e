import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { checkGrad, type Bindings } from "@ppl/tensor";
import { compileModel, isModel, type CompiledModel, type Model } from "../src/index.ts";
import { choleskyNumbers, lowerTimes } from "../src/distributions/dense.ts";

const DIR = new URL("../../../../shared/posteriordb/", import.meta.url).pathname;
const names = readdirSync(DIR).filter((n) => !n.includes("."));

interface Reference {
  params: Record<string, { mean: number }>;
}

/** Reference means grouped by parameter: theta[1..J] becomes theta: [..]. */
function referenceMeans(ref: Reference): Record<string, number | number[]> {
  const out: Record<string, number | number[]> = {};
  for (const [k, v] of Object.entries(ref.params)) {
    const m = /^(\w+)\[(\d+)\]$/.exec(k);
    if (!m) out[k] = v.mean;
    else ((out[m[1]!] ??= []) as number[])[Number(m[2]) - 1] = v.mean;
  }
  return out;
}

/** Constrained values of the model's own parameters from the reference means (non-centred ones solved for). */
function initsFor(name: string, means: Record<string, number | number[]>, c: CompiledModel): Record<string, unknown> {
  const v = { ...means };
  if (name.startsWith("eight_schools")) {
    const mu = v.mu as number, tau = v.tau as number;
    v.theta_trans = (v.theta as number[]).map((t) => (t - mu) / tau);
    delete v.theta;
  }
  if (name.startsWith("gp_pois_regr")) {
    // f = L f_tilde with L the Cholesky factor of the kernel at the reference rho and alpha.
    const x = c.data.x!.data, n = x.length;
    const rho = v.rho as number, alpha = v.alpha as number;
    const K = Array.from({ length: n * n }, (_, f) => {
      const i = Math.floor(f / n), j = f % n;
      return alpha * alpha * Math.exp(-((x[i]! - x[j]!) ** 2) / (2 * rho * rho)) + (i === j ? 1e-10 : 0);
    });
    const L = choleskyNumbers(K, n);
    const f = v.f as number[];
    const ft = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      let s = f[i]!;
      for (let k = 0; k < i; k++) s -= L[i * n + k]! * ft[k]!;
      ft[i] = s / L[i * n + i]!;
    }
    expect(Array.from(lowerTimes(L, ft, n)).every((y, i) => Math.abs(y - f[i]!) < 1e-8)).toBe(true);
    v.f_tilde = ft;
    delete v.f;
  }
  return v;
}

async function load(name: string): Promise<{ model: Model; compiled: CompiledModel; ref: Reference }> {
  const mod = (await import(`../../../examples/posteriordb/${name}.ts`)) as { default: unknown };
  expect(isModel(mod.default)).toBe(true);
  const json = JSON.parse(readFileSync(`${DIR}${name}/data.json`, "utf8"));
  const ref = JSON.parse(readFileSync(`${DIR}${name}/reference.json`, "utf8")) as Reference;
  const model = mod.default as Model;
  return { model, compiled: compileModel(model, json), ref };
}

describe("the eleven posteriordb models", () => {
  test("all eleven are present", () => expect(names.length).toBe(11));
  for (const name of names) {
    test(`${name}: compiles; log density finite at the reference mean; draws carry the reference names and values`, async () => {
      const { compiled: c, ref } = await load(name);
      const means = referenceMeans(ref);
      const q = c.unconstrain(initsFor(name, means, c));
      expect(q.length).toBe(c.dim);
      const lp = c.logDensityAt(q);
      expect(Number.isFinite(lp), `log density ${lp}`).toBe(true);
      // Every reference parameter is reported under the same Stan-style name, and comes back from q.
      const cn = c.constrainedNames();
      const values = c.generatedAt(q);
      for (const [k, v] of Object.entries(ref.params)) {
        const i = cn.indexOf(k);
        expect(i, `${k} among ${cn.join(", ")}`).toBeGreaterThanOrEqual(0);
        expect(Math.abs(values[i]! - v.mean)).toBeLessThan(1e-8 * (1 + Math.abs(v.mean)));
      }
      expect(values.length).toBe(cn.length);
    });
  }
});

describe("model log-density gradients against finite differences at the reference mean", () => {
  for (const name of ["eight_schools-eight_schools_noncentered", "garch-garch11", "hmm_example-hmm_example", "gp_pois_regr-gp_pois_regr", "low_dim_gauss_mix-low_dim_gauss_mix", "arK-arK"]) {
    test(name, async () => {
      const { compiled: c, ref } = await load(name);
      const q = c.unconstrain(initsFor(name, referenceMeans(ref), c));
      const bindings: Bindings = { ...c.dataBindings, q };
      const r = checkGrad(c.logDensity, [c.q], bindings, { rtol: 1e-5, relStep: 1e-5 });
      expect(r.ok, r.message).toBe(true);
    });
  }
});
