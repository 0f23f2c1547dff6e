// A regression's log density and gradient over a data vector is one pass over the data on the
// compiled CPU backend: the gradient's sums share the value's loop and nothing is stored per
// observation (siblings.ts, sink.ts in the tensor package). bench/fused-density.ts times it.
import { describe, expect, it } from "vitest";
import { interpret } from "@ppl/tensor";
import { toposort } from "@ppl/tensor/internals";
import { bernoulliLogit, compileModel, data, halfNormal, model, modelDensity, normal, poissonLog, type CompiledModel } from "@ppl/ppl";
import { recordedDensity } from "@ppl/ppl/internals";

const N = 500;
const x = Array.from({ length: N }, (_, i) => Math.sin(i));

const models = {
  normal: model({
    name: "one_pass_normal",
    data: { N: data.int({ lower: 0 }), x: data.vector("N"), y: data.vector("N") },
    build(m, d) {
      const alpha = m.param("alpha", normal(0, 10));
      const beta = m.param("beta", normal(0, 5));
      const sigma = m.param("sigma", halfNormal(5));
      m.observe(d.y, normal(alpha.add(d.x.mul(beta)), sigma));
    },
  }),
  bernoulliLogit: model({
    name: "one_pass_bernoulli_logit",
    data: { N: data.int({ lower: 0 }), x: data.vector("N"), y: data.intVector("N", { lower: 0, upper: 1 }) },
    build(m, d) {
      const alpha = m.param("alpha", normal(0, 2.5));
      const beta = m.param("beta", normal(0, 2.5));
      m.observe(d.y, bernoulliLogit(alpha.add(d.x.mul(beta))));
    },
  }),
  poissonLog: model({
    name: "one_pass_poisson_log",
    data: { N: data.int({ lower: 0 }), x: data.vector("N"), y: data.intVector("N", { lower: 0 }) },
    build(m, d) {
      const alpha = m.param("alpha", normal(0, 2.5));
      const beta = m.param("beta", normal(0, 2.5));
      m.observe(d.y, poissonLog(alpha.add(d.x.mul(beta))));
    },
  }),
};
// Each model, the family of the fused node its observation becomes, and what one element of the loop
// computes: the arrays of N values it reads (x and y: the Poisson's Σ log y! and the support checks
// read y alone and are computed once, hoistData), and its exps and divisions, which tell the fused
// partials from the differentiated expansion (the normal divides by σ twice an element there,
// Bernoulli-logit takes a second exp for σ(−t), the Poisson reads a third array, log y!).
const cases: Record<keyof typeof models, { compile: () => CompiledModel; family: string; arrays: number; exps: number; divisions: number }> = {
  normal: { compile: () => compileModel(models.normal, { N, x, y: x.map((xi, i) => 1.5 + 2 * xi + Math.cos(7 * i)) }), family: "normal", arrays: 2, exps: 0, divisions: 0 },
  bernoulliLogit: {
    compile: () => compileModel(models.bernoulliLogit, { N, x, y: x.map((_, i) => (i % 3 === 0 ? 1 : 0)) }), family: "bernoulli_logit", arrays: 2, exps: 1, divisions: 1,
  },
  poissonLog: { compile: () => compileModel(models.poissonLog, { N, x, y: x.map((_, i) => i % 5) }), family: "poisson_log", arrays: 2, exps: 1, divisions: 0 },
};

// The body of the one loop over the N observations.
function loopBody(source: string): string {
  const start = source.search(new RegExp(`for \\(let \\w+ = 0; \\w+ < ${N}; `));
  return source.slice(start, source.indexOf("\n    }\n", start));
}

describe("a regression's log density and gradient on the compiled CPU backend", () => {
  for (const [name, { compile, arrays }] of Object.entries(cases)) {
    it(`${name}: one loop over the observations reading ${arrays} arrays, nothing stored per observation, the reference's value`, async () => {
      const cm = compile();
      const q = Float64Array.from({ length: cm.dim }, (_, i) => 0.3 - 0.4 * i);
      const { exe, logpGrad } = await recordedDensity(cm);
      const grad = new Float64Array(cm.dim);
      const lp = logpGrad(q, grad);
      expect(exe.source.match(new RegExp(`for \\(let \\w+ = 0; \\w+ < ${N}; `, "g"))).toHaveLength(1);
      expect(exe.source).not.toMatch(new RegExp(`= T\\[\\d+\\]; // .*\\[${N}\\]$`, "m"));
      expect(exe.source.match(new RegExp(`= IN\\[\\d+\\].*\\[${N}\\]$`, "gm"))).toHaveLength(arrays);
      const ref = await modelDensity(cm, { backend: "reference" });
      const lpRef = new Float64Array(1), gradRef = new Float64Array(cm.dim);
      ref.logpGrad(q, lpRef, gradRef);
      expect(lp).toBeCloseTo(lpRef[0]!, 9);
      grad.forEach((g, i) => expect(g).toBeCloseTo(gradRef[i]!, 9));
    });
  }
});

describe("long observations are summed by one fused node (lpdf_sum) with hand-written partials", () => {
  for (const [name, { compile, family, exps, divisions }] of Object.entries(cases)) {
    it(`${name}: the CPU density differentiates lpdf_sum(${family}), whose loop takes ${exps} exp(s) and ${divisions} division(s) an element, and its value is the expansion's`, async () => {
      const cm = compile();
      const fusedNodes = toposort([cm.fusedLogDensity]).filter((n) => n.op === "lpdf_sum");
      expect(fusedNodes.map((n) => n.attrs.family)).toEqual([family]);
      expect(toposort([cm.logDensity]).some((n) => n.op === "lpdf_sum")).toBe(false);
      const { exe } = await recordedDensity(cm);
      const body = loopBody(exe.source);
      expect(body.match(/Math\.exp\(/g) ?? []).toHaveLength(exps);
      expect(body.match(/ \/ /g) ?? []).toHaveLength(divisions);
      // The fused node's value (the reference kernel) against the expansion's, at a few points.
      for (const k of [0, 1, 2]) {
        const q = Float64Array.from({ length: cm.dim }, (_, i) => 0.4 * Math.sin(3 * k + i) - 0.1 * k);
        const at = { ...cm.dataBindings, q: { dtype: "f64" as const, shape: [cm.dim], data: q } };
        const [fused, expanded] = interpret([cm.fusedLogDensity, cm.logDensity], at).map((v) => v.data[0]!);
        expect(Math.abs(fused! - expanded!)).toBeLessThanOrEqual(1e-13 * Math.abs(expanded!));
      }
    });
  }

  it("a short observation keeps the expansion", () => {
    const cm = compileModel(models.normal, { N: 8, x: x.slice(0, 8), y: x.slice(0, 8) });
    expect(cm.fusedLogDensity).toBe(cm.logDensity);
  });
});
