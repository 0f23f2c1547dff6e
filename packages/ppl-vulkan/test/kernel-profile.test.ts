// The NUTS kernels built with cycle counters (`profile`): the device shape's controller and the
// fused transition of the thread and workgroup shapes. The draws are those of the plain build bit
// for bit, and every call (a controller call, a fused leapfrog) reports its parts' cycles, so that
// a profile says where a step's time goes.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample, type SampleResult } from "@ppl/ppl";
import { compileGlsl, usableDevices, VulkanManager } from "@ppl/vulkan";
import { CONTROLLER_PROFILE_PARTS, controllerProgram } from "../src/controller-program.ts";
import { FUSED_PROFILE_PARTS, nutsProgram } from "../src/nuts-program.ts";
import { prepareGpuNuts } from "../src/index.ts";
import { profileSource, readProfile } from "../src/profile.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const data = JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")) as never;
const model = compileModel(eightSchools, data);
const settings = { chains: 3, warmup: 20, draws: 10, seed: 5, maxDepth: 6 } as const;
const device = usableDevices()[0];

describe("the controller's profiling build", () => {
  it("reads the cycle counter only when asked, into the buffer after the controller's own", () => {
    const opts = { chains: 3, maxDepth: 6, dtype: "f32" as const, mode: { kind: "workgroup" as const, workgroup: 32 } };
    const plain = controllerProgram(10, opts);
    const profiled = controllerProgram(10, { ...opts, profile: true });
    expect(plain).not.toContain("#define PPL_PROFILE");
    expect(plain).not.toContain("GL_ARB_shader_clock");
    expect(profiled.split("\n")[1]).toBe("#extension GL_ARB_shader_clock : require");
    expect(profiled).toContain("binding = 15) buffer ProfBuf");
    expect(profiled).toContain(`#define PROF_PARTS ${CONTROLLER_PROFILE_PARTS.length}`);
  });

  it("the fused transition's profile buffer is bound after the data", () => {
    const opts = { chains: 3, maxDepth: 6, dtype: "f32" as const, shape: "workgroup" as const, workgroup: 32 };
    const plain = nutsProgram(model.logDensity, model.q, opts);
    const profiled = nutsProgram(model.logDensity, model.q, { ...opts, profile: true });
    expect(plain.source).not.toContain("#define PPL_PROFILE");
    expect(profiled.source.split("\n")[1]).toBe("#extension GL_ARB_shader_clock : require");
    // Buffers 0–7, the scratch, then the data.
    expect(profiled.source).toContain(`binding = ${8 + 1 + profiled.data.length}) buffer ProfBuf`);
    expect(profiled.source).toContain(`#define PROF_PARTS ${FUSED_PROFILE_PARTS.length}`);
  });
});

// A call's count of a part is signed: a driver may order a mark's counter read before the one of
// the mark ahead of it, and a short part then comes out negative (on an H100 the fused transition's
// "sample" did in almost every leapfrog, and unsigned sums reported 2^32 cycles a call).
describe.runIf(device !== undefined)("the profile buffer's sums", () => {
  it("add each call's count sign-extended, carries included, and read back signed", async () => {
    const common = readFileSync(new URL("../../../shaders/nuts/common.glsl", import.meta.url), "utf8");
    const flush = common.split("\n").find((l) => l.startsWith("#define PROF_FLUSH(c)"))!;
    const parts = ["a", "b", "c"];
    const { lines } = profileSource(parts, 0);
    // Three calls of chain 0, each flushing the counts the push of its call gives.
    const counts = [[5000, -100, 4_000_000_000], [7, -3, 4_000_000_000], [1, 2, 4_000_000_000]];
    const source = [
      "#version 450", ...lines, "layout(local_size_x = 1) in;", "#define LEADER true",
      "uint prof_cycles[PROF_PARTS]; uint prof_calls[PROF_PARTS];", flush,
      `const int COUNTS[${counts.length * 3}] = int[](${counts.flat().map((v) => `int(${v >>> 0}u)`).join(", ")});`,
      "void main() {",
      `  for (int call = 0; call < ${counts.length}; call++) {`,
      "    for (int k = 0; k < PROF_PARTS; k++) { prof_cycles[k] = uint(COUNTS[call * PROF_PARTS + k]); prof_calls[k] = 1u; }",
      "    PROF_FLUSH(0);",
      "  }",
      "}",
    ].join("\n");
    const manager = new VulkanManager();
    try {
      const words = manager.bufferFrom(new Uint32Array(parts.length * 3));
      const algorithm = manager.algorithm(await compileGlsl(source, { optimize: false }), { buffers: 1 });
      manager.sequence().dispatch(algorithm, [words], 1).submitSync();
      const profile = readProfile(new Uint32Array(words.read()), 1, parts);
      expect(profile.calls).toBe(3);
      // Part c's unsigned counts (over 2^31 each, read as negative int) carry into the high word:
      // each is 4e9 − 2^32 as a signed count.
      expect(profile.parts.map((p) => p.cyclesPerCall * 3)).toEqual([5008, -101, 3 * (4_000_000_000 - 2 ** 32)]);
    } finally {
      manager.destroy();
    }
  });
});

describe.runIf(device?.features.shaderSubgroupClock === true)("a profiled controller on the device", () => {
  it("samples the same draws as the plain one and counts every part of its calls", async () => {
    const density = await modelDensity(model);
    const runs: { res: SampleResult; profile: ReturnType<NonNullable<Awaited<ReturnType<typeof prepareGpuNuts>>["profile"]>> | undefined; steps: number }[] = [];
    for (const profile of [false, true]) {
      const gpu = await prepareGpuNuts(model, { chains: settings.chains, maxDepth: 6, dtype: "f32", iterationsPerSubmit: 5, shape: "device", profile });
      try {
        const res = sample(gpu.hostDensity(density), { ...settings, transitionRunner: gpu });
        runs.push({ res, profile: gpu.profile?.(), steps: gpu.counters.steps });
      } finally {
        gpu.dispose();
      }
    }
    expect(runs[0]!.profile).toBeUndefined();
    expect(runs[1]!.res.draws.map((d) => Array.from(d))).toEqual(runs[0]!.res.draws.map((d) => Array.from(d)));
    const profile = runs[1]!.profile!;
    // Every chain's call that found work, at most one a chain a step.
    expect(profile.calls).toBeGreaterThan(0);
    expect(profile.calls).toBeLessThanOrEqual(settings.chains * runs[1]!.steps);
    expect(profile.parts.map((p) => p.part)).toEqual([...CONTROLLER_PROFILE_PARTS]);
    const part = (name: string) => profile.parts.find((p) => p.part === name)!;
    expect(part("load").share).toBe(1);
    expect(part("save").share).toBe(1);
    // Each transition begins once and ends in a merge; most calls end a leaf and drift.
    for (const name of ["kick", "energy", "sample", "checkpoints", "checks", "merge", "transition", "drift"]) expect(part(name).share).toBeGreaterThan(0);
    expect(part("kick").share).toBeGreaterThan(part("transition").share);
    // A divergent leaf ends after its energy; every other leaf goes on to the checkpoints.
    expect(part("energy").share).toBeGreaterThanOrEqual(part("checkpoints").share);
    for (const p of profile.parts) expect(p.cyclesPerCall).toBeGreaterThan(0);
  });

  for (const shape of ["workgroup", "thread"] as const) {
    it(`a profiled fused transition (${shape} per chain) samples the same draws and counts every leapfrog`, async () => {
      const density = await modelDensity(model);
      // No warmup, so that the draws' leapfrogs are all the kernel's (a warmup's step-size searches evaluate on the host).
      const run = { ...settings, warmup: 0, draws: 15 };
      const runs: { res: SampleResult; profile: ReturnType<NonNullable<Awaited<ReturnType<typeof prepareGpuNuts>>["profile"]>> | undefined }[] = [];
      for (const profile of [false, true]) {
        // One iteration a dispatch: lavapipe ends a shader's loops after 65,535 iterations.
        const gpu = await prepareGpuNuts(model, { chains: run.chains, maxDepth: 6, dtype: "f32", iterationsPerSubmit: 5, shape, workgroup: 32, iterationsPerDispatch: 1, profile });
        try {
          runs.push({ res: sample(gpu.hostDensity(density), { ...run, transitionRunner: gpu }), profile: gpu.profile?.() });
        } finally {
          gpu.dispose();
        }
      }
      expect(runs[0]!.profile).toBeUndefined();
      expect(runs[1]!.res.draws.map((d) => Array.from(d))).toEqual(runs[0]!.res.draws.map((d) => Array.from(d)));
      const profile = runs[1]!.profile!;
      // A call is a leapfrog: as many as the transitions took.
      const leapfrogs = runs[1]!.res.stats.reduce((a, st) => a + st.nLeapfrog.reduce((x, y) => x + y, 0), 0);
      expect(profile.calls).toBe(leapfrogs);
      expect(profile.parts.map((p) => p.part)).toEqual([...FUSED_PROFILE_PARTS]);
      const part = (name: string) => profile.parts.find((p) => p.part === name)!;
      for (const name of ["logp", "drift", "kick", "energy"]) expect(part(name).share).toBe(1);
      // Every subtree ends in a merge or early; every transition begins once.
      for (const name of ["sample", "checkpoints", "checks", "merge", "transition", "load"]) expect(part(name).share).toBeGreaterThan(0);
      expect(part("merge").share).toBeLessThan(1);
      for (const p of profile.parts.filter((q) => q.share > 0)) expect(p.cyclesPerCall).toBeGreaterThan(0);
    });
  }
});
