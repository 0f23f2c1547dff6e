// Checkpoint and resume: a run stopped anywhere in warmup or sampling and resumed from its last
// checkpoint draws, from there on, the bits the uninterrupted run drew (the random streams are
// counter-based, so the checkpoint's iteration is each chain's whole random state).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  compileModel, data, decodeCheckpoint, encodeCheckpoint, halfCauchy, model, modelDensity, normal, readCheckpointFile, sampleAsync,
  SamplerOptionError, writeCheckpointFile, type Checkpoint, type DrawInfo, type ModelDensity, type SampleOptions,
} from "../src/index.ts";

const eightSchools = model({
  name: "eight_schools_noncentered",
  data: { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) },
  build(m, d) {
    const mu = m.param("mu", normal(0, 5));
    const tau = m.param("tau", halfCauchy(0, 5));
    const z = m.param("theta_trans", normal(0, 1), { shape: [d.J] });
    m.observe(d.y, normal(mu.add(tau.mul(z)), d.sigma));
  },
});
const DATA = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const RUN: SampleOptions = { chains: 2, warmup: 120, draws: 40, seed: 17, keepDraws: false };
const TOTAL = 160;

// One record per chain and iteration: every value a draw reports, the position's bits included.
function record(into: Map<string, number[]>): (d: DrawInfo) => void {
  return (d) => {
    into.set(`${d.chain}:${d.iteration}`, [d.lp, d.acceptStat, d.stepSize, d.treeDepth, d.nLeapfrog, d.divergent ? 1 : 0, d.energy, ...d.position]);
  };
}

describe("checkpoint and resume", () => {
  let density: ModelDensity;
  const whole = new Map<string, number[]>();
  beforeAll(async () => {
    density = await modelDensity(compileModel(eightSchools, DATA), { backend: "cpu" });
    await sampleAsync(density, { ...RUN, onDraw: record(whole) });
  });

  it("a run stopped at any iteration and resumed from its last checkpoint draws the uninterrupted run's bits", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: TOTAL - 1 }), fc.integer({ min: 3, max: 50 }), async (stopAt, every) => {
      const first = new Map<string, number[]>();
      const controller = new AbortController();
      let saved: string | undefined;
      await sampleAsync(density, {
        ...RUN, signal: controller.signal,
        checkpoint: { everyIterations: every, save: (cp) => (saved = encodeCheckpoint(cp)) },
        onDraw: (d) => {
          record(first)(d);
          if (d.iteration === stopAt - 1 && d.chain === 1) controller.abort();
        },
      });
      const cp = saved === undefined ? undefined : decodeCheckpoint(saved);
      const from = cp?.state.iteration ?? 0;
      // The checkpoint is the last one due before the stop: a multiple of `every`, or the end of warmup.
      expect(from).toBe(Math.max(Math.floor(stopAt / every) * every, stopAt >= RUN.warmup! ? RUN.warmup! : 0));
      const second = new Map<string, number[]>();
      await sampleAsync(density, { ...RUN, ...(cp ? { resume: cp } : {}), onDraw: record(second) });
      const joined = new Map([...first].filter(([k]) => Number(k.split(":")[1]) < from));
      for (const [k, v] of second) joined.set(k, v);
      expect(joined.size).toBe(whole.size);
      for (const [k, v] of whole) expect(joined.get(k), k).toEqual(v);
    }), { numRuns: 10, seed: 3 });
  });

  it("reads back bit for bit from a file written atomically, and threads make no difference", async () => {
    let last: Checkpoint | undefined;
    const path = join(mkdtempSync(join(tmpdir(), "checkpoint-")), "checkpoint.json");
    const controller = new AbortController();
    await sampleAsync(density, {
      ...RUN, signal: controller.signal, checkpoint: { everyIterations: 25, save: (cp) => { writeCheckpointFile(path, cp); last = cp; } },
      onDraw: (d) => { if (d.iteration === 130) controller.abort(); },
    });
    const read = readCheckpointFile(path);
    expect(read.state.iteration).toBe(125);
    expect(encodeCheckpoint(read)).toBe(encodeCheckpoint(last!));
    expect(read.state.chains[1]!.q).toEqual(last!.state.chains[1]!.q);
    const second = new Map<string, number[]>();
    await sampleAsync(density, { ...RUN, threads: 2, resume: read, onDraw: record(second) });
    expect(second.size).toBe(2 * (TOTAL - 125));
    for (const [k, v] of second) expect(v, k).toEqual(whole.get(k));
  });

  it("refuses a checkpoint of other settings, naming the setting, and one without keepDraws: false", async () => {
    let saved: Checkpoint | undefined;
    const controller = new AbortController();
    await sampleAsync(density, { ...RUN, signal: controller.signal, checkpoint: { everyIterations: 10, save: (cp) => (saved = cp) }, onDraw: (d) => { if (d.iteration === 12) controller.abort(); } });
    await expect(sampleAsync(density, { ...RUN, seed: 18, resume: saved! })).rejects.toThrow(/resume: the checkpoint's run has seed = 17, this run 18/);
    await expect(sampleAsync(density, { ...RUN, keepDraws: true, resume: saved! })).rejects.toThrow(SamplerOptionError);
    expect(() => decodeCheckpoint("{\"version\":1}")).toThrow(/not a checkpoint/);
  });
});
