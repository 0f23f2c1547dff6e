// The device shape's controller built with cycle counters (profileController): the draws are those
// of the plain build bit for bit, and every call reports its parts' cycles, so that a profile
// says where a step's controller time goes.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample, type SampleResult } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import { CONTROLLER_PROFILE_PARTS, controllerProgram } from "../src/controller-program.ts";
import { prepareGpuNuts } from "../src/index.ts";
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
});

describe.runIf(device?.features.shaderSubgroupClock === true)("a profiled controller on the device", () => {
  it("samples the same draws as the plain one and counts every part of its calls", async () => {
    const density = await modelDensity(model);
    const runs: { res: SampleResult; profile: ReturnType<NonNullable<Awaited<ReturnType<typeof prepareGpuNuts>>["controllerProfile"]>> | undefined; steps: number }[] = [];
    for (const profileController of [false, true]) {
      const gpu = await prepareGpuNuts(model, { chains: settings.chains, maxDepth: 6, dtype: "f32", iterationsPerSubmit: 5, shape: "device", profileController });
      try {
        const res = sample(gpu.hostDensity(density), { ...settings, transitionRunner: gpu.factory });
        runs.push({ res, profile: gpu.controllerProfile?.(), steps: gpu.counters.steps });
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
});
