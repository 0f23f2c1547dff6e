// In-process checks of what `ppl export` and `--variables` read: the header's data layout from a
// compiled model (observe terms, their pointwise and event shapes, the integer fields), read back
// as written; the log-likelihood cut per observe term, a multivariate one by its events; and the
// variable selection's rules as properties over random names.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { constant, sum } from "@ppl/tensor";
import { compileModel, data, dataLayoutKeys, model, multivariateNormal, normal, poisson, readDataLayout, runGroups } from "@ppl/ppl";
import { selectVariables } from "../src/variable-filter.ts";

const mixed = model({
  name: "mixed",
  data: { N: data.int(), Y: data.matrix("N", 2), k: data.intVector("N", { lower: 0 }), x: data.vector("N") },
  build(m, d) {
    const mu = m.param("mu", normal(0, 1), { shape: [2] });
    m.observe(d.Y, multivariateNormal(mu, constant([1, 0, 0, 1], [2, 2])));
    m.observe(d.k, poisson(sum(mu).exp()));
    m.observe(d.x.mul(2), normal(0, 1));
  },
});
const DATA = { N: 3, Y: [[0, 1], [1, 2], [2, 3]], k: [1, 0, 2], x: [0.5, 1, 1.5] };

describe("the data layout in the CSV header", () => {
  it("records each observe term (field or expression, pointwise | event shape) and the integer fields, and reads them back", () => {
    const compiled = compileModel(mixed, DATA);
    const keys = dataLayoutKeys(mixed, compiled);
    expect(keys.observed).toBe("Y[3|2] k[3] obs3~[3]");
    expect(keys.int_data).toBe("N,k");
    // An expression is observed, so the observed values' hash is not defined (loo --compare reads data_hash).
    expect(keys.observed_hash).toBeUndefined();
    const layout = readDataLayout({ ...keys });
    expect(layout.observed).toEqual([
      { name: "Y", field: true, pointwise: [3], event: [2] },
      { name: "k", field: true, pointwise: [3], event: [] },
      { name: "obs3", field: false, pointwise: [3], event: [] },
    ]);
    expect([...layout.intData!]).toEqual(["N", "k"]);
    // A value this tool did not write is no layout: the export falls back to the columns.
    expect(readDataLayout({ observed: "y(8)" }).observed).toBeUndefined();
  });

  it("the observed values' hash depends on the observed values only", () => {
    const only = model({ name: "only", data: { N: data.int(), y: data.vector("N"), s: data.real() }, build(m, d) { m.observe(d.y, normal(m.param("mu", normal(0, 1)), 1)); } });
    const hash = (json: object) => dataLayoutKeys(only, compileModel(only, json)).observed_hash;
    expect(hash({ N: 2, y: [1, 2], s: 1 })).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hash({ N: 2, y: [1, 2], s: 1 })).toBe(hash({ N: 2, y: [1, 2], s: 5 }));
    expect(hash({ N: 2, y: [1, 2], s: 1 })).not.toBe(hash({ N: 2, y: [1, 3], s: 1 }));
  });

  it("log_lik is cut per term, named after the observed variable; a multivariate term has one entry per event", () => {
    const chains = 2;
    const draws = 3;
    // log_lik[1..9]: Y's 3 events, k's 3 elements, obs3's 3; values chain*100 + draw*10 + entry.
    const parameters: Record<string, Float64Array[]> = {};
    for (let j = 1; j <= 9; j++) parameters[`log_lik[${j}]`] = Array.from({ length: chains }, (_, c) => Float64Array.from({ length: draws }, (_, d) => c * 100 + d * 10 + j));
    const layout = readDataLayout({ observed: "Y[3|2] k[3] obs3~[3]", int_data: "N,k" });
    const groups = runGroups({ parameters, columns: { ...parameters }, drawsPerChain: draws }, [], false, layout);
    const ll = groups.find((g) => g.name === "log_likelihood")!;
    expect(ll.variables.map((v) => [v.name, v.dims, v.shape])).toEqual([
      ["Y", ["chain", "draw", "Y_dim_0"], [2, 3, 3]],
      ["k", ["chain", "draw", "k_dim_0"], [2, 3, 3]],
      ["obs3", ["chain", "draw", "obs3_dim_0"], [2, 3, 3]],
    ]);
    // k's entry 2 (log_lik[5]) at chain 1, draw 2.
    expect(ll.variables[1]!.values[(1 * draws + 2) * 3 + 1]).toBe(100 + 20 + 5);
  });
});

// Names as a run has them: scalars and vectors of random bases.
const runNames = fc
  .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z_]{0,5}$/), fc.integer({ min: 0, max: 4 })), { minLength: 1, maxLength: 6, selector: ([b]) => b })
  .map((vars) => vars.flatMap(([base, n]) => (n === 0 ? [base] : Array.from({ length: n }, (_, i) => `${base}[${i + 1}]`))));

describe("--variables, by Stan's rules", () => {
  it("a base name selects every element of its variable, an element name (bracketed or dotted) that element, in the order asked", () => {
    fc.assert(
      fc.property(runNames, fc.nat(), fc.nat(), (names, i, j) => {
        const base = names[i % names.length]!.replace(/\[.*$/, "");
        const element = names[j % names.length]!;
        const dotted = element.replace(/\[(\d+)\]$/, ".$1");
        const picked = selectVariables(names, [dotted, base], false).names;
        const ofBase = names.filter((n) => n === base || n.startsWith(`${base}[`));
        expect(picked).toEqual([...new Set([element, ...ofBase])]);
      }),
      { seed: 47, numRuns: 200 },
    );
  });

  it("by default hides exactly the log_lik and <name>_rep families, unless nothing else is left", () => {
    fc.assert(
      fc.property(runNames, fc.integer({ min: 0, max: 5 }), (names, n) => {
        const extra = [...Array.from({ length: n }, (_, i) => `y_rep[${i + 1}]`), ...Array.from({ length: n }, (_, i) => `log_lik[${i + 1}]`)];
        const clean = names.filter((x) => !/^(y_rep|log_lik)(\[|$)/.test(x));
        const all = [...clean, ...extra];
        const sel = selectVariables(all, undefined, true);
        const perObservation = (x: string) => /^(log_lik|[a-z_]+_rep)(\[|$)/.test(x);
        const expected = all.filter((x) => !perObservation(x));
        expect(sel.names).toEqual(expected.length > 0 ? expected : all);
      }),
      { seed: 7, numRuns: 200 },
    );
  });
});
