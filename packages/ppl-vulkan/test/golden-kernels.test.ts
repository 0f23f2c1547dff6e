// Golden kernels: the GLSL the GPU sampler generates for two bundled models, as files under
// __snapshots__/, so that a change to the code generator or the NUTS shaders shows in review.
// Rendering needs no device; the limits are an H200's as listDevices() reported them. Each NUTS
// kernel is also compiled to SPIR-V (glslc, no device needed), so that a golden is a valid shader.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel } from "@ppl/ppl";
import { compileGlsl } from "@ppl/vulkan";
import { goldenSource, REFERENCE_LIMITS } from "@ppl/vulkan/internals";
import eightSchools from "../../../examples/eight_schools.ts";
import hierarchical from "../../../examples/hierarchical.ts";
import logistic from "../../../examples/logistic_regression.ts";
import { batchedGradientPlan } from "../src/batched-gradient.ts";
import { chooseControllerMode, controllerProgram } from "../src/controller-program.ts";
import { nutsProgram, SHADER_DIR } from "../src/nuts-program.ts";

const load = (name: string) => JSON.parse(readFileSync(new URL(`../../../examples/${name}.json`, import.meta.url), "utf8"));
const es = compileModel(eightSchools, load("eight_schools"));
const lr = compileModel(logistic, load("logistic_regression"));
const hier = compileModel(hierarchical, load("hierarchical"));
const snapshot = (name: string) => `./__snapshots__/${name}.glsl`;
// The hand-written NUTS files appear in the goldens as one line each, as the prelude does.
const NUTS_FILES = ["common.glsl", "controller.glsl", "transition.glsl"].map((f) => ({ name: `shaders/nuts/${f}`, text: readFileSync(`${SHADER_DIR}${f}`, "utf8") }));
const golden = (source: string) => goldenSource(source, NUTS_FILES);

describe("golden GPU sampler kernels", () => {
  it("eight schools: the fused NUTS transition, a thread per chain (f32)", async () => {
    const p = nutsProgram(es.logDensity, es.q, { chains: 4, maxDepth: 10, dtype: "f32", shape: "thread" });
    await expect(golden(p.source)).toMatchFileSnapshot(snapshot("nuts-eight-schools-thread-f32"));
    await compileGlsl(p.source, { optimize: false });
  });

  it("eight schools: the fused NUTS transition, a workgroup per chain, dense metric (f64, H200 limits: intermediates in shared memory, subgroup sums)", async () => {
    const p = nutsProgram(es.logDensity, es.q, { chains: 4, maxDepth: 10, dtype: "f64", shape: "workgroup", workgroup: 32, metric: "dense", limits: REFERENCE_LIMITS.h200 });
    await expect(golden(p.source)).toMatchFileSnapshot(snapshot("nuts-eight-schools-workgroup-dense-f64"));
    await compileGlsl(p.source, { optimize: false });
  });

  it("logistic regression: the device shape's controller (f32)", async () => {
    const source = controllerProgram(lr.dim, { chains: 1024, maxDepth: 10, dtype: "f32", mode: chooseControllerMode(lr.dim, 10, "cpu") });
    await expect(golden(source)).toMatchFileSnapshot(snapshot("controller-logistic-f32"));
    await compileGlsl(source, { optimize: false });
  });

  it("logistic regression: the device shape's batched gradient of 1024 chains (f32, H200 limits)", async () => {
    const plan = batchedGradientPlan(lr, 1024, "f32", REFERENCE_LIMITS.h200);
    const source = plan.kernels.map((k) => k.source).join("\n// ----\n");
    await expect(golden(source)).toMatchFileSnapshot(snapshot("batched-gradient-logistic-f32"));
  });

  it("hierarchical intercepts: the batched gradient of 4 chains is 2 dispatches (H200 limits): the group sums beside the scatter, then the assembly", () => {
    const plan = batchedGradientPlan(hier, 4, "f32", REFERENCE_LIMITS.h200);
    // The kernels of a gradient: those reading the positions (a param) or what such a kernel wrote;
    // the rest (the group index's segment layout) run once, at preparation.
    const step: (typeof plan.kernels)[number][] = [];
    for (const k of plan.kernels) {
      const reads = k.bindings.filter((b) => !("kind" in b)) as { op: string }[];
      if (reads.some((b) => b.op === "param" || step.some((s) => s.nodes.includes(b as never)))) step.push(k);
    }
    expect(step.length).toBe(2);
    expect(step[0]!.source).toContain("segment sums");
    expect(step[0]!.source).toMatch(/part \d+: reduce_sum \[4\]/);
  });
});
