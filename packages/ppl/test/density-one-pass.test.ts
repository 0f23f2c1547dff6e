// A regression's log density and gradient over a data vector is one pass over the data on the
// compiled CPU backend: the gradient's sums share the value's loop and nothing is stored per
// observation (siblings.ts, sink.ts in the tensor package). bench/fused-density.ts times it.
import { describe, expect, it } from "vitest";
import type { Backend, Node } from "@ppl/tensor";
import { compiledBackend, type CompiledExecutable } from "@ppl/tensor/internals";
import { bernoulliLogit, compileModel, data, halfNormal, model, modelDensity, normal, poissonLog, type CompiledModel } from "@ppl/ppl";

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
// Each model, and the arrays of N values its loop reads: x and y, and the Poisson's log y! (computed
// once, hoistData); y ≥ 0 and the like are computed in the loop from y (no stored copies to read).
const cases: Record<keyof typeof models, { compile: () => CompiledModel; arrays: number }> = {
  normal: { compile: () => compileModel(models.normal, { N, x, y: x.map((xi, i) => 1.5 + 2 * xi + Math.cos(7 * i)) }), arrays: 2 },
  bernoulliLogit: { compile: () => compileModel(models.bernoulliLogit, { N, x, y: x.map((_, i) => (i % 3 === 0 ? 1 : 0)) }), arrays: 2 },
  poissonLog: { compile: () => compileModel(models.poissonLog, { N, x, y: x.map((_, i) => i % 5) }), arrays: 3 },
};

// The compiled [lp, gradient] executable modelDensity evaluates, and its value and gradient at q.
async function lpGrad(cm: CompiledModel, q: Float64Array): Promise<{ exe: CompiledExecutable; lp: number; grad: Float64Array }> {
  const cpu = compiledBackend();
  const made: CompiledExecutable[] = [];
  const recording: Backend = {
    name: cpu.name,
    device: cpu.device,
    compile: (outputs: readonly Node[]) => cpu.compile(outputs),
    compileSync: (outputs: readonly Node[]) => {
      const exe = cpu.compileSync(outputs);
      made.push(exe);
      return exe;
    },
  };
  const density = await modelDensity(cm, { backend: recording });
  const lp = new Float64Array(1), grad = new Float64Array(cm.dim);
  density.logpGrad(q, lp, grad);
  const exe = made.filter((e) => e.outputs.length === 2 && e.outputs[1]!.size === cm.dim).at(-1)!;
  return { exe, lp: lp[0]!, grad };
}

describe("a regression's log density and gradient on the compiled CPU backend", () => {
  for (const [name, { compile, arrays }] of Object.entries(cases)) {
    it(`${name}: one loop over the observations reading ${arrays} arrays, nothing stored per observation, the reference's value`, async () => {
      const cm = compile();
      const q = Float64Array.from({ length: cm.dim }, (_, i) => 0.3 - 0.4 * i);
      const { exe, lp, grad } = await lpGrad(cm, q);
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
