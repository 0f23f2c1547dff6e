import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, type CompiledModel, type Model } from "@ppl/ppl";
import { getBackend, grad } from "@ppl/tensor";
import { compileStan } from "../src/index.ts";

// The ODE posteriors: each Stan program against its TypeScript port in examples/posteriordb, at
// posterior draws of the reference (where the solves are those sampling meets).
const root = new URL("../../../../shared/posteriordb-ode/", import.meta.url);

type AtQ = (q: Float64Array) => { value: number; gradient: Float64Array };

// The log density and its gradient by the compiled CPU backend, compiled once per model.
const compiled = new WeakMap<CompiledModel, AtQ>();
async function densityAndGradient(m: CompiledModel, q: Float64Array): Promise<{ value: number; gradient: Float64Array }> {
  if (!compiled.has(m)) {
    const [g] = grad(m.logDensity, [m.q]);
    const exe = (await getBackend("cpu")).compileSync!([m.logDensity, g!]);
    compiled.set(m, (x) => {
      const [v, dq] = exe.runSync!({ ...m.dataBindings, q: { dtype: "f64", shape: [m.dim], data: x } });
      return { value: v!.data[0]!, gradient: Float64Array.from(dq!.data) };
    });
  }
  return compiled.get(m)!(q);
}

const ports = new Map<string, CompiledModel>();
async function portOf(name: string, data: unknown): Promise<CompiledModel> {
  if (!ports.has(name)) ports.set(name, compileModel(((await import(`../../../examples/posteriordb/${name}.ts`)) as { default: Model }).default, data, { allowExtraKeys: true }));
  return ports.get(name)!;
}

// The k-th reference draw of chain 1 by parameter, in Stan's init format.
function draw(name: string, m: CompiledModel, k: number): Record<string, unknown> {
  const chains = JSON.parse(readFileSync(new URL(`${name}/reference_draws.json`, root), "utf8")) as Record<string, number[]>[];
  const d = chains[0]!;
  return Object.fromEntries(m.paramInfo.map((p) => {
    const keys = Object.keys(d).filter((x) => x === p.name || x.startsWith(`${p.name}[`));
    return [p.name, p.shape.length === 0 ? d[keys[0]!]![k] : keys.map((x) => d[x]![k])];
  }));
}

async function compare(name: string, source: string, digits: { value: number; gradient: number }): Promise<number> {
  const data = JSON.parse(readFileSync(new URL(`${name}/data.json`, root), "utf8")) as unknown;
  const stan = compileModel(compileStan(source, `${name}.stan`), data, { allowExtraKeys: true });
  const port = await portOf(name, data);
  expect(stan.paramInfo.map((p) => [p.name, p.unconstrainedSize])).toEqual(port.paramInfo.map((p) => [p.name, p.unconstrainedSize]));
  let offset: number | undefined;
  for (const k of [0, 400, 800]) {
    const values = draw(name, stan, k);
    const [a, b] = [await densityAndGradient(stan, stan.unconstrain(values)), await densityAndGradient(port, port.unconstrain(values))];
    offset ??= a.value - b.value;
    expect(a.value - b.value).toBeCloseTo(offset, digits.value);
    a.gradient.forEach((g, i) => expect(g).toBeCloseTo(b.gradient[i]!, digits.gradient));
  }
  return offset!;
}

describe("Stan's ODE solvers run on odeRK45", () => {
  it("one_comp_mm_elim_abs (integrate_ode_bdf): the port's density and gradient, up to the half-Cauchy priors' constant", async () => {
    const name = "one_comp_mm_elim_abs-one_comp_mm_elim_abs";
    const source = readFileSync(new URL(`${name}/model.stan`, root), "utf8");
    // Both solve to 1e-6 or tighter: the states agree to about 1e-6 of their size.
    const offset = await compare(name, source, { value: 5, gradient: 4 });
    // The program's cauchy priors on the whole line, the port's half-Cauchy on the half line: 4 log 2.
    expect(offset).toBeCloseTo(-4 * Math.LN2, 5);
  });

  it("Lotka-Volterra (integrate_ode_rk45) at the port's tolerances: its density and gradient", async () => {
    const name = "hudson_lynx_hare-lotka_volterra";
    const source = readFileSync(new URL(`${name}/model.stan`, root), "utf8");
    // The program asks for rtol 1e-5, atol 1e-3, 500 steps; the port solves at 1e-6, 1e-5, 100.
    // With the port's tolerances both compute the same solve: equal to rounding.
    const same = source.replace("1e-5, 1e-3, 5e2", "1e-6, 1e-5, 100");
    expect(same).not.toBe(source);
    const offset = await compare(name, same, { value: 8, gradient: 6 });
    expect(offset).toBeCloseTo(0, 8);
    // At its own tolerances the density moves by the solver's error only: a relative error of
    // 1e-5 in z moves each of the 40 lognormal terms by |log y - log z| / σ² · 1e-5 < 1e-3.
    await compare(name, source, { value: 1, gradient: 0 });
  });
});

describe("the variadic ODE interface", () => {
  it("ode_rk45_tol with a parameter and data among its arguments: exponential decay against its closed form", () => {
    const text = `functions {
  vector decay(real t, vector y, real k, vector scale) { return -k * y .* scale; }
}
data { int N; array[N] real ts; vector[2] scale; }
parameters { real<lower=0> k; }
transformed parameters {
  array[N] vector[2] y = ode_rk45_tol(decay, [1, 2]', 0, ts, 1e-8, 1e-8, 1000, k, scale);
}`;
    const m = compileModel(compileStan(text, "decay.stan"), { N: 3, ts: [0.5, 1, 2], scale: [1, 0.5] });
    const k = 0.7;
    const got = m.generatedAt([Math.log(k)]);
    const names = m.constrainedNames();
    [0.5, 1, 2].forEach((t, n) => {
      expect(got[names.indexOf(`y[${n + 1},1]`)]).toBeCloseTo(Math.exp(-k * t), 7);
      expect(got[names.indexOf(`y[${n + 1},2]`)]).toBeCloseTo(2 * Math.exp(-k * 0.5 * t), 7);
    });
  });
});
