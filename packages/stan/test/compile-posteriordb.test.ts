import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, type CompiledModel, type Model } from "@ppl/ppl";
import { getBackend, grad } from "@ppl/tensor";
import { compileStan } from "../src/index.ts";

// The reference programs the compiler supports, each against its TypeScript port in examples/posteriordb.
const SUPPORTED = [
  "eight_schools-eight_schools_noncentered", "kidiq-kidscore_interaction", "earnings-logearn_interaction", "mesquite-logmesquite",
  "arK-arK", "garch-garch11", "diamonds-diamonds", "sblrc-blr", "low_dim_gauss_mix-low_dim_gauss_mix", "hmm_example-hmm_example",
  "gp_pois_regr-gp_pois_regr",
];

const root = new URL("../../../../shared/posteriordb/", import.meta.url);

// The log density and its gradient at q, by the compiled CPU backend (the reference interpreter is
// several times slower on the long graphs that loops traced as scalars make).
async function valueAndGradient(m: CompiledModel): Promise<(q: Float64Array) => { value: number; gradient: Float64Array }> {
  const [g] = grad(m.logDensity, [m.q]);
  const exe = (await getBackend("cpu")).compileSync!([m.logDensity, g!]);
  return (q) => {
    const [v, dq] = exe.runSync!({ ...m.dataBindings, q: { dtype: "f64", shape: [m.dim], data: q } });
    return { value: v!.data[0]!, gradient: Float64Array.from(dq!.data) };
  };
}

// A deterministic point of the unconstrained space, different for each k.
const point = (dim: number, k: number) => Float64Array.from({ length: dim }, (_, i) => 0.6 * Math.sin(1.7 * i + 2.3 * k + 0.4));

describe("a Stan program gives the log density and gradient of its TypeScript port", () => {
  it.each(SUPPORTED)("%s", async (name) => {
    const data = JSON.parse(readFileSync(new URL(`${name}/data.json`, root), "utf8")) as unknown;
    const stan = compileModel(compileStan(readFileSync(new URL(`${name}/model.stan`, root), "utf8"), `${name}.stan`), data, { allowExtraKeys: true });
    const port = (await import(`../../../examples/posteriordb/${name}.ts`)) as { default: Model };
    const ts = compileModel(port.default, data, { allowExtraKeys: true });
    expect(stan.dim).toBe(ts.dim);
    expect(new Set(stan.paramInfo.map((p) => p.name))).toEqual(new Set(ts.paramInfo.map((p) => p.name)));
    // The same parameter values on both sides: each parameter's unconstrained slice is copied by name
    // (the programs may declare their parameters in another order than the ports).
    const toTs = (q: Float64Array) => {
      const out = new Float64Array(ts.dim);
      for (const p of stan.paramInfo) {
        const t = ts.paramInfo.find((x) => x.name === p.name)!;
        expect(t.unconstrainedSize).toBe(p.unconstrainedSize);
        out.set(q.subarray(p.offset, p.offset + p.unconstrainedSize), t.offset);
      }
      return out;
    };
    // The densities may differ by a constant (a port's half-Cauchy prior is normalized on the
    // half line, the program's cauchy on the whole line): the differences between points agree.
    let offset: number | undefined;
    const [atStan, atTs] = [await valueAndGradient(stan), await valueAndGradient(ts)];
    for (let k = 0; k < 3; k++) {
      const q = point(stan.dim, k);
      const a = atStan(q);
      const b = atTs(toTs(q));
      expect(Number.isFinite(a.value)).toBe(true);
      offset ??= a.value - b.value;
      expect(a.value - b.value).toBeCloseTo(offset, 6);
      const ga = toTs(a.gradient);
      ga.forEach((g, i) => expect(g).toBeCloseTo(b.gradient[i]!, Math.max(1, 8 - Math.ceil(Math.log10(Math.abs(g) + 1)))));
    }
    // The offset is a normalizing constant: 0, or log 2 per half-distribution prior.
    expect(Math.abs(offset! / Math.LN2 - Math.round(offset! / Math.LN2))).toBeLessThan(1e-9);
  });
});
