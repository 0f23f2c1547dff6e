import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import { readFileSync } from "node:fs";
import garch from "../../../examples/posteriordb/garch-garch11.ts";
import { prepareGpuNuts } from "../src/index.ts";
import { threadScratchPlacement, THREAD_LOCAL_SIZE } from "../src/logp-function.ts";

const device = usableDevices()[0];

// A thread per chain keeps intermediates too large for registers (a scan's stacked carries) in a
// scratch slice per thread: in shared memory when the slices fit, else in global memory.
describe("threadScratchPlacement", () => {
  it("keeps the usual workgroup without scratch, and puts slices on chip when 64 of them fit", () => {
    expect(threadScratchPlacement(0, 4, 49152)).toEqual({ localSize: THREAD_LOCAL_SIZE, onChip: false });
    expect(threadScratchPlacement(768, 1024, 49152)).toEqual({ localSize: 64, onChip: true });
  });

  it("with fewer than 64 chains, takes the fewest threads that hold them so that larger slices fit", () => {
    // hmm_example: 396 floats a chain; 64 slices need 101 KB, 4 chains' slices 6.3 KB.
    expect(threadScratchPlacement(1584, 4, 49152)).toEqual({ localSize: 4, onChip: true });
    expect(threadScratchPlacement(1584, 5, 49152)).toEqual({ localSize: 8, onChip: true });
    expect(threadScratchPlacement(1584, 1000, 49152)).toEqual({ localSize: 64, onChip: false });
    expect(threadScratchPlacement(40_000, 2, 49152)).toEqual({ localSize: 64, onChip: false });
  });
});

describe.runIf(device !== undefined)("GPU NUTS, thread per chain, a scan's stacked carries in shared memory", () => {
  it("f64: garch's transitions equal the CPU sampler's", async () => {
    const full = JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/garch-garch11/data.json", import.meta.url), "utf8"));
    // 100 steps: the 99 stacked carries exceed what stays in registers; a short tree keeps each
    // transition within llvmpipe's 65,535 loop iterations per invocation.
    const compiled = compileModel(garch, { T: 100, y: full.y.slice(0, 100), sigma1: full.sigma1 });
    const opts = { chains: 2, warmup: 0, draws: 5, seed: 3, stepSize: 0.05, maxDepth: 4, init: compiled.unconstrain({ mu: 5, alpha0: 0.5, alpha1: 0.3, beta1: 0.4 }) };
    const cpu = sample(await modelDensity(compiled), opts);
    const gpu = await prepareGpuNuts(compiled, { chains: 2, maxDepth: 4, dtype: "f64", shape: "thread" });
    try {
      expect(gpu.source).toMatch(/shared double ppl_tscratch\[\d+\];/);
      expect(gpu.source).not.toContain("PPL_SCRATCH_BASE");
      const res = sample(await modelDensity(compiled), { ...opts, transitionRunner: gpu });
      for (let c = 0; c < 2; c++) {
        expect(Array.from(res.stats[c]!.nLeapfrog)).toEqual(Array.from(cpu.stats[c]!.nLeapfrog));
        res.draws[c]!.forEach((v, i) => expect(v).toBeCloseTo(cpu.draws[c]![i]!, 8));
      }
    } finally {
      gpu.dispose();
    }
  });
});
