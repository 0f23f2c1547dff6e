// Many short GPU runs in one process (a fresh manager, kernels, buffers and sampler each time, as
// a long-lived service or a notebook would make them) leave memory flat. Exactly: after each run,
// no device buffer of the addon is left alive and at most the one idle device context that the
// next run reuses (device-pool.ts), none once idle devices are closed (its testHooks.live() counts).
// And in the figures: after the first tenth of the runs (JIT, caches and the allocator warmed),
// the JS heap, the native memory it points to and the resident set stay within bounds that runs
// left undisposed pass (about 0.5 MB of resident set per run on lavapipe). 30 runs by default;
// PPL_LONG=1 makes it 1,000, and the figures are printed.
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample } from "@ppl/ppl";
import { loadAddon, usableDevices } from "@ppl/vulkan";
import { closeIdleDevices, prepareGpuNuts } from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const RUNS = LONG ? 1000 : 30;
const MB = 1024 * 1024;
const load = loadAddon();

const schools = compileModel(
  eightSchools,
  JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")),
);

/** A full collection, so that what is measured is what is still referenced (finalizers of native objects included). */
function collect(): void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
}

interface Sample {
  readonly run: number;
  readonly rss: number;
  readonly heap: number;
  readonly external: number;
}

function measure(run: number): Sample {
  collect();
  const m = process.memoryUsage();
  return { run, rss: m.rss / MB, heap: m.heapUsed / MB, external: (m.external + m.arrayBuffers) / MB };
}

describe.runIf(usableDevices().length > 0)(`${RUNS} short GPU runs in one process`, () => {
  it("keep memory flat", async () => {
    const samples: Sample[] = [];
    const every = Math.max(1, Math.round(RUNS / 10));
    let finite = 0;
    const leftAlive: string[] = [];
    for (let i = 1; i <= RUNS; i++) {
      const gpu = await prepareGpuNuts(schools, { chains: 2, maxDepth: 6, dtype: "f64", iterationsPerSubmit: 2 });
      try {
        const res = sample(await modelDensity(schools), { chains: 2, warmup: 5, draws: 5, seed: i, maxDepth: 6, transitionRunner: gpu });
        if (res.draws.every((d) => d.every(Number.isFinite))) finite++;
      } finally {
        gpu.dispose();
      }
      const live = load.ok ? load.addon.testHooks.live() : { contexts: -1, buffers: -1 };
      // The one context left is the idle device the next run takes.
      if (live.contexts !== 1 || live.buffers !== 0) leftAlive.push(`run ${i}: ${live.contexts} contexts, ${live.buffers} buffers`);
      if (i % every === 0) samples.push(measure(i));
    }
    expect(finite).toBe(RUNS);
    expect(leftAlive, "native objects alive after a run was disposed").toEqual([]);
    expect(closeIdleDevices()).toBe(1);
    if (load.ok) expect(load.addon.testHooks.live()).toEqual({ contexts: 0, buffers: 0 });
    const base = samples[0]!;
    const last = samples.at(-1)!;
    const fmt = (s: Sample): string => `run ${s.run}: RSS ${s.rss.toFixed(1)} MB, JS heap ${s.heap.toFixed(1)} MB, external ${s.external.toFixed(1)} MB`;
    console.log(
      `soak, ${RUNS} GPU runs (eight schools, 2 chains, 10 iterations, a new manager each): ${fmt(base)} → ${fmt(last)}; ` +
        `growth per 100 runs after run ${base.run}: RSS ${(((last.rss - base.rss) / (last.run - base.run)) * 100).toFixed(2)} MB, JS heap ${(((last.heap - base.heap) / (last.run - base.run)) * 100).toFixed(2)} MB`,
    );
    for (const s of samples) console.log(`  ${fmt(s)}`);
    // Bounds well above the noise of a warmed process (a few MB), well below what a leak of each
    // run's device, kernels or buffers would add over the runs (megabytes per run on lavapipe).
    const maxRss = Math.max(...samples.map((s) => s.rss));
    expect(maxRss - base.rss, "resident set growth, MB").toBeLessThan(64);
    expect(last.heap - base.heap, "JS heap growth, MB").toBeLessThan(8);
    expect(last.external - base.external, "external memory growth, MB").toBeLessThan(8);
  }, LONG ? 40 * 60_000 : 120_000);

  it("the live counts see a run that was not disposed, and its disposal", async () => {
    if (!load.ok) throw new Error(load.reason);
    closeIdleDevices();
    const gpu = await prepareGpuNuts(schools, { chains: 2, maxDepth: 6, dtype: "f64", iterationsPerSubmit: 2 });
    const during = load.addon.testHooks.live();
    gpu.dispose();
    expect(during.contexts).toBe(1);
    expect(during.buffers).toBeGreaterThan(0);
    expect(load.addon.testHooks.live()).toEqual({ contexts: 1, buffers: 0 });
    closeIdleDevices();
    expect(load.addon.testHooks.live()).toEqual({ contexts: 0, buffers: 0 });
  });
});
