import { describe, expect, it } from "vitest";
import { compileModel, data as spec, halfNormal, model, modelDensity, normal, sample, type SampleResult } from "@ppl/ppl";
import { add, cast, gather, mul } from "@ppl/tensor";
import { usableDevices } from "@ppl/vulkan";
import { prepareGpuNuts, type ControllerMode, type ExecutionShape } from "../src/index.ts";
import { readFileSync } from "node:fs";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const data = JSON.parse(
  readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8"),
);
const device = usableDevices()[0];

// Every execution shape, and both ways the device shape's controller maps chains onto threads.
const SHAPES: [string, ExecutionShape, ControllerMode | undefined][] = [
  ["thread per chain", "thread", undefined],
  ["workgroup per chain", "workgroup", undefined],
  ["whole device, a thread per chain in the controller", "device", { kind: "thread" }],
  ["whole device, a workgroup per chain in the controller", "device", { kind: "workgroup", workgroup: 32 }],
];

/** Every chain's leapfrog counts equal, and its draws (and, if asked, accept statistics) to `digits`. */
function expectSameTransitions(res: SampleResult, cpu: SampleResult, digits: number, opts: { acceptStat?: boolean } = {}): void {
  for (let c = 0; c < cpu.draws.length; c++) {
    expect(Array.from(res.stats[c]!.nLeapfrog)).toEqual(Array.from(cpu.stats[c]!.nLeapfrog));
    res.draws[c]!.forEach((v, i) => expect(v).toBeCloseTo(cpu.draws[c]![i]!, digits));
    if (opts.acceptStat) res.stats[c]!.acceptStat.forEach((v, i) => expect(v).toBeCloseTo(cpu.stats[c]!.acceptStat[i]!, digits));
  }
}

// The same NUTS transitions, from the same states and Philox keys, on the CPU sampler and in the
// fused GPU kernel: f64 must agree to rounding, f32 within f32 tolerance on most draws.
describe.runIf(device !== undefined)("GPU NUTS in each execution shape against the CPU sampler", () => {
  const compiled = compileModel(eightSchools, data);
  const opts = { chains: 4, warmup: 0, draws: 6, seed: 11, stepSize: 0.25, maxDepth: 10 };

  it.each(SHAPES)("f64, %s: same next states, tree depths and leapfrog counts", async (_, shape, controller) => {
    const cpu = sample(await modelDensity(compiled), opts);
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", iterationsPerSubmit: 3, shape, controller });
    expect(gpu.shape).toBe(shape);
    // The device shape's controller computes the gradient's assembly itself (its epilogue).
    if (shape === "device") expect(gpu.source).toContain("#define PPL_EPILOGUE");
    try {
      const res = sample(await modelDensity(compiled), { ...opts, transitionRunner: gpu });
      for (let c = 0; c < 4; c++) expect(Array.from(res.stats[c]!.treeDepth)).toEqual(Array.from(cpu.stats[c]!.treeDepth));
      expectSameTransitions(res, cpu, 8, { acceptStat: true });
    } finally {
      gpu.dispose();
    }
  });

  // The threshold is a run setting on both sides (nuts-layout.ts puts it in buffer 3): a small one
  // makes many transitions divergent, and the GPU must flag exactly the CPU sampler's.
  it.each([SHAPES[0]!, SHAPES[2]!])("f64, %s: the divergence threshold maxDeltaH is honoured as the CPU sampler honours it", async (_, shape, controller) => {
    const tight = { ...opts, maxDeltaH: 0.05 };
    const cpu = sample(await modelDensity(compiled), tight);
    const divergent = cpu.stats.reduce((a, st) => a + st.divergent.reduce((x, y) => x + y, 0), 0);
    expect(divergent).toBeGreaterThan(0);
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", iterationsPerSubmit: 3, shape, controller });
    try {
      const res = sample(await modelDensity(compiled), { ...tight, transitionRunner: gpu });
      for (let c = 0; c < 4; c++) expect(Array.from(res.stats[c]!.divergent)).toEqual(Array.from(cpu.stats[c]!.divergent));
      expectSameTransitions(res, cpu, 8);
    } finally {
      gpu.dispose();
    }
  });

  it("f64, whole device, a thread per chain in controller workgroups of 2 threads: same next states", async () => {
    const cpu = sample(await modelDensity(compiled), opts);
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", iterationsPerSubmit: 3, shape: "device", controller: { kind: "thread", group: 2 } });
    try {
      const res = sample(await modelDensity(compiled), { ...opts, transitionRunner: gpu });
      expect(gpu.source).toContain("layout(local_size_x = 2) in;");
      expectSameTransitions(res, cpu, 8);
    } finally {
      gpu.dispose();
    }
  });

  // On a GPU a fused kernel runs a block's iterations in one dispatch, every chain going on by
  // itself; lavapipe defaults to a dispatch per iteration (its loop limit), so this asks for it.
  it.each(["thread", "workgroup"] as const)("f64, %s per chain, a block's iterations in one dispatch: same next states as the CPU sampler", async (shape) => {
    const cpu = sample(await modelDensity(compiled), opts);
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", iterationsPerSubmit: 3, shape, iterationsPerDispatch: "block" });
    try {
      const res = sample(await modelDensity(compiled), { ...opts, transitionRunner: gpu });
      expect(gpu.counters.submits).toBe(2);
      expectSameTransitions(res, cpu, 8, { acceptStat: true });
    } finally {
      gpu.dispose();
    }
  });

  it.each(SHAPES)("f64, %s: warmup runs in blocks with the step size adapted on the device, as the CPU sampler adapts it", async (_, shape, controller) => {
    // 40 warmup iterations: Stan's short-warmup windows close one slow window at iteration 35, so
    // the device runs iterations 0–35 and 36–39 as two blocks, then the 10 draws as a third.
    const warm = { chains: 4, warmup: 40, draws: 10, seed: 11, maxDepth: 10 };
    const cpu = sample(await modelDensity(compiled), warm);
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", shape, controller });
    try {
      const res = sample(gpu.hostDensity(await modelDensity(compiled)), { ...warm, transitionRunner: gpu });
      if (shape !== "device") expect(gpu.counters.submits).toBe(3);
      // The device shape records a command sequence once per power of two of steps and reuses it.
      if (shape === "device") {
        expect(gpu.counters.sequences).toBeLessThan(gpu.counters.submits);
        expect(gpu.counters.sequences).toBeLessThanOrEqual(11);
      }
      // The longest single wait is one of the waits, and names the steps it ran.
      expect(gpu.counters.longestWaitSeconds).toBeGreaterThan(0);
      expect(gpu.counters.longestWaitSeconds).toBeLessThanOrEqual(gpu.counters.waitSeconds);
      // Device shape: a power-of-two part of a submission, or 0 for a batched logpGrad (the step-size search).
      if (shape === "device") expect(gpu.counters.longestWaitSteps === 0 || Number.isInteger(Math.log2(gpu.counters.longestWaitSteps))).toBe(true);
      else expect([36, 4, 10]).toContain(gpu.counters.longestWaitSteps);
      // Rounding differences grow along NUTS trajectories, so the tolerance is 1e-6, not 1e-8.
      for (let c = 0; c < 4; c++) expect(res.adaptation[c]!.stepSize / cpu.adaptation[c]!.stepSize).toBeCloseTo(1, 6);
      expectSameTransitions(res, cpu, 6);
    } finally {
      gpu.dispose();
    }
  });

  it.each(["thread", "workgroup"] as const)("f64, %s per chain, step-size searches on the device: warmup adapts as the CPU sampler's, the host density never evaluated", async (shape) => {
    const warm = { chains: 4, warmup: 40, draws: 10, seed: 11, maxDepth: 10 };
    const cpu = sample(await modelDensity(compiled), warm);
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", shape, stepSizeSearch: "device" });
    try {
      const host = await modelDensity(compiled);
      const res = sample(gpu.hostDensity(host), { ...warm, transitionRunner: gpu });
      expect(host.evaluations).toBe(0);
      // The searches' waits: one a trial step, with no steps of a block.
      expect(gpu.counters.submits).toBe(3);
      for (let c = 0; c < 4; c++) expect(res.adaptation[c]!.stepSize / cpu.adaptation[c]!.stepSize).toBeCloseTo(1, 6);
      expectSameTransitions(res, cpu, 6);
    } finally {
      gpu.dispose();
    }
  });

  it.each(SHAPES)("f64, %s, dense metric: same next states as the CPU sampler", async (_, shape, controller) => {
    // An SPD inverse metric with off-diagonal terms: M⁻¹ = B·Bᵀ + 0.5·I, B fixed.
    const D = compiled.dim;
    const b = Float64Array.from({ length: D * D }, (_, i) => 0.3 * Math.sin(0.7 * i + 1));
    const invMetric = new Float64Array(D * D);
    for (let i = 0; i < D; i++) {
      for (let j = 0; j < D; j++) {
        let acc = i === j ? 0.5 : 0;
        for (let k = 0; k < D; k++) acc += b[i * D + k]! * b[j * D + k]!;
        invMetric[i * D + j] = acc;
      }
    }
    const dense = { ...opts, metric: "dense" as const, invMetric };
    const cpu = sample(await modelDensity(compiled), dense);
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", iterationsPerSubmit: 3, shape, controller, metric: "dense" });
    try {
      const res = sample(await modelDensity(compiled), { ...dense, transitionRunner: gpu });
      expectSameTransitions(res, cpu, 8);
    } finally {
      gpu.dispose();
    }
  });

  it.each([["device", undefined], ["thread", "device"], ["workgroup", "device"]] as const)("%s shape, step-size search %s: the host's batched evaluations run on the device and equal the CPU density's (f64)", async (shape, stepSizeSearch) => {
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", shape, ...(stepSizeSearch ? { stepSizeSearch } : {}) });
    try {
      const host = await modelDensity(compiled);
      const moved = gpu.hostDensity(host);
      expect(moved).not.toBe(host);
      const D = compiled.dim;
      const q = Float64Array.from({ length: 4 * D }, (_, i) => Math.sin(1.7 * i + 0.3) * 1.5);
      const [lpA, lpB] = [new Float64Array(4), new Float64Array(4)];
      const [gA, gB] = [new Float64Array(4 * D), new Float64Array(4 * D)];
      const before = host.evaluations;
      moved.logpGrad(q, lpA, gA);
      expect(host.evaluations).toBe(before);
      host.logpGrad(q, lpB, gB);
      lpA.forEach((v, c) => expect(v).toBeCloseTo(lpB[c]!, 10));
      gA.forEach((v, i) => expect(v).toBeCloseTo(gB[i]!, 10));
      // Thread and workgroup shapes build no batched kernels for a small run (chooseStepSizeSearch):
      // the host density stays as it is.
      const fused = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", shape: "thread" });
      expect(fused.hostDensity(host)).toBe(host);
      fused.dispose();
    } finally {
      gpu.dispose();
    }
  });

  it("f32: most draws agree with the f64 CPU sampler within f32 tolerance", async () => {
    const cpu = sample(await modelDensity(compiled), opts);
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f32" });
    try {
      const res = sample(await modelDensity(compiled), { ...opts, transitionRunner: gpu });
      let close = 0, total = 0;
      for (let c = 0; c < 4; c++) {
        for (let d = 0; d < opts.draws; d++) {
          total++;
          const a = res.draws[c]!.subarray(d * compiled.dim, (d + 1) * compiled.dim);
          const b = cpu.draws[c]!.subarray(d * compiled.dim, (d + 1) * compiled.dim);
          if (a.every((v, i) => Math.abs(v - b[i]!) <= 1e-3 * (1 + Math.abs(b[i]!)))) close++;
        }
      }
      expect(close / total).toBeGreaterThanOrEqual(0.75);
    } finally {
      gpu.dispose();
    }
  });
});

// A regression with N = 434 observations: the workgroup shape computes its sums cooperatively
// (strided partial sums and a shared-memory tree), so its transitions must still match the CPU's.
describe.runIf(device !== undefined)("GPU NUTS, workgroup per chain, with cooperative reductions", () => {
  it.each(SHAPES)("f64, %s: kidiq regression transitions equal the CPU sampler's", async (_, shape, controller) => {
    const { default: kidiq } = await import("../../../examples/posteriordb/kidiq-kidscore_interaction.ts");
    const kidData = JSON.parse(
      readFileSync(new URL("../../../../shared/posteriordb/kidiq-kidscore_interaction/data.json", import.meta.url), "utf8"),
    );
    const compiled = compileModel(kidiq, kidData);
    const opts = { chains: 2, warmup: 0, draws: 4, seed: 5, stepSize: 0.05, maxDepth: 6, init: compiled.unconstrain({ beta: [26, 0.1, 0.5, 0.1], sigma: 18 }) };
    const cpu = sample(await modelDensity(compiled), opts);
    const gpu = await prepareGpuNuts(compiled, { chains: 2, maxDepth: 6, dtype: "f64", shape, controller });
    try {
      // Workgroup: cooperative sums; thread: intermediates spilled to scratch, in shared memory as
      // two chains' slices fit there; device: a controller beside batched kernels.
      expect(gpu.source).toContain({ workgroup: "ppl_red0", thread: "shared double ppl_tscratch[", device: "// ---- batched gradient" }[shape]);
      const res = sample(await modelDensity(compiled), { ...opts, transitionRunner: gpu });
      expectSameTransitions(res, cpu, 6);
    } finally {
      gpu.dispose();
    }
  });
});

// A hierarchical regression over 5000 rows in 10 groups: lavapipe splits its sums over the rows
// into several workgroups each, whose partials the device shape's controller adds up itself (its
// epilogue's prepare, a chain at a time) where it computes the gradient's assembly. The kernel of
// lp and the gradient is not the plan's last (the group index's segment layout comes after it).
describe.runIf(device !== undefined)("GPU NUTS, whole device, a hierarchical regression with split sums", () => {
  const hier = model({
    name: "hier_test",
    data: { N: spec.int({ lower: 1 }), J: spec.int({ lower: 1 }), g: spec.intVector("N", { lower: 0 }), x: spec.vector("N"), y: spec.vector("N") },
    build(m, d) {
      const mu = m.param("mu", normal(0, 5));
      const b = m.param("b", normal(0, 5));
      const sigmaA = m.param("sigma_a", halfNormal(2));
      const sigmaY = m.param("sigma_y", halfNormal(2));
      const aRaw = m.param("a_raw", normal(0, 1), { shape: [d.J] });
      m.observe(d.y, normal(add(gather(add(mu, mul(sigmaA, aRaw)), cast(d.g, "i32")), mul(b, d.x)), sigmaY));
    },
  });
  const N = 5000, J = 10;
  const wave = (i: number) => Math.sin(i * 0.7);
  const compiled = compileModel(hier, {
    N, J, g: Array.from({ length: N }, (_, n) => (n * 7) % J), x: Array.from({ length: N }, (_, n) => wave(n)), y: Array.from({ length: N }, (_, n) => 1 + 0.5 * wave(3 * n) + wave((n * 7) % J)),
  });
  // A thread a gradient element (14 parameters), as the controller takes its epilogue; and a
  // workgroup of 8 made to take it at two elements a thread (ControllerMode's epilogue).
  const controllers: [string, ControllerMode][] = [
    ["a thread per chain", { kind: "thread" }],
    ["a workgroup of 32 per chain", { kind: "workgroup", workgroup: 32 }],
    ["a workgroup of 8 per chain, two elements a thread", { kind: "workgroup", workgroup: 8, epilogue: true }],
  ];
  it.each(controllers)("f64, whole device, %s in the controller: transitions equal the CPU sampler's", async (_, controller) => {
    const shape = "device";
    const opts = { chains: 2, warmup: 0, draws: 3, seed: 3, stepSize: 0.02, maxDepth: 5 };
    const cpu = sample(await modelDensity(compiled), opts);
    const gpu = await prepareGpuNuts(compiled, { chains: 2, maxDepth: 5, dtype: "f64", shape, controller });
    try {
      expect(gpu.source).toContain("their partials added by the readers");
      expect(gpu.source).toContain("#define PPL_EPILOGUE");
      expect(gpu.source).toMatch(/ppl_prepared\d+\[0\] = subgroupAdd/);
      // A workgroup per chain adds a chain's partials across a subgroup's lanes; a thread per chain alone.
      expect(gpu.source.includes("#define PPL_CHAIN_PER_SUBGROUP")).toBe(controller?.kind === "workgroup");
      const res = sample(await modelDensity(compiled), { ...opts, transitionRunner: gpu });
      expectSameTransitions(res, cpu, 6);
    } finally {
      gpu.dispose();
    }
  });
});

// gp_pois_regr: a Cholesky factorisation, two triangular solves and their gradients inside the
// log density, in f64 as its posterior needs (packages/ppl/src/posteriordb/settings.ts). Its full
// run takes hours on lavapipe; these transitions check the GPU path on it in every shape.
describe.runIf(device !== undefined)("GPU NUTS on a latent Gaussian process (Cholesky in the density)", () => {
  it.each(SHAPES)("f64, %s: gp_pois_regr transitions equal the CPU sampler's", async (_, shape, controller) => {
    const { default: gp } = await import("../../../examples/posteriordb/gp_pois_regr-gp_pois_regr.ts");
    const gpData = JSON.parse(
      readFileSync(new URL("../../../../shared/posteriordb/gp_pois_regr-gp_pois_regr/data.json", import.meta.url), "utf8"),
    );
    const compiled = compileModel(gp, gpData);
    const opts = { chains: 4, warmup: 0, draws: 6, seed: 11, stepSize: 0.05, maxDepth: 10 };
    const cpu = sample(await modelDensity(compiled), opts);
    const gpu = await prepareGpuNuts(compiled, { chains: 4, maxDepth: 10, dtype: "f64", iterationsPerSubmit: 3, shape, controller });
    try {
      // Its gradient's last kernel does more than assemble lp and the gradient: the controller reads them.
      if (shape === "device") expect(gpu.source).not.toContain("#define PPL_EPILOGUE");
      const res = sample(await modelDensity(compiled), { ...opts, transitionRunner: gpu });
      expectSameTransitions(res, cpu, 8);
    } finally {
      gpu.dispose();
    }
  });
});
