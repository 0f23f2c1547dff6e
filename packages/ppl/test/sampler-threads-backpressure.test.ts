/**
 * A threaded run whose calling thread takes the draws more slowly than a worker makes them (a slow
 * onDraw, as writing files is): the worker's blocks of draws not yet taken stay within
 * BLOCKS_IN_FLIGHT (its queue does not grow with the run), the calling thread's own chain keeps
 * drawing between the worker's blocks (it is not starved), and every chain's draws arrive complete,
 * in order and with the single-threaded run's bits.
 */
import { afterAll, describe, expect, it } from "vitest";
import { compileModel, model, modelDensity, normal, type ModelDensity } from "../src/index.ts";
import { sample, type DrawInfo, type SampleOptions } from "../src/sampler/index.ts";
import { stopSamplerThreads } from "../src/sampler/threads/pool.ts";
import { BLOCKS_IN_FLIGHT, recordsPerBlock } from "../src/sampler/threads/protocol.ts";
import { sampleThreads } from "../src/sampler/threads/threaded-run.ts";

// A cheap posterior, so that the test's time goes into the calling thread's slow draws.
const twoNormals = model({ name: "two_normals", data: {}, build(m) { m.param("x", normal(0, 1), { shape: [2] }); } });
const density = (): Promise<ModelDensity> => modelDensity(compileModel(twoNormals, {}), { backend: "cpu" });

// The calling thread's work per draw: far slower than a NUTS iteration of this model.
const SLOW_DRAW_MS = 0.1;
function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning, as a synchronous file write does
  }
}

afterAll(() => stopSamplerThreads());

// What arrives through onDraw: each draw's chain and iteration, in arrival order, and each chain's lp.
function recorder(chains: number, slow: boolean): { seen: { chain: number; iteration: number }[]; lp: number[][]; onDraw: (d: DrawInfo) => void } {
  const seen: { chain: number; iteration: number }[] = [];
  const lp = Array.from({ length: chains }, (): number[] => []);
  return {
    seen, lp,
    onDraw: (d) => {
      seen.push({ chain: d.chain, iteration: d.iteration });
      if (!d.warmup) lp[d.chain]!.push(d.lp);
      if (slow) busyWait(SLOW_DRAW_MS);
    },
  };
}

// The most draws of other chains that arrive in a row between two of `chain`'s, up to its last one.
function longestWithout(seen: readonly { chain: number }[], chain: number): number {
  const last = seen.map((s) => s.chain).lastIndexOf(chain);
  let longest = 0;
  let run = 0;
  for (let i = 0; i <= last; i++) {
    run = seen[i]!.chain === chain ? 0 : run + 1;
    longest = Math.max(longest, run);
  }
  return longest;
}

describe("a worker faster than the calling thread takes its draws", () => {
  it("waits: its blocks in flight stay bounded, the calling thread's chain keeps drawing, every draw arrives in order", async () => {
    const d = await density();
    // Handed over once warmup is done: the bound below is exact there (during warmup a worker may
    // go past it to reach a window's end where the calling thread waits for it, stuck-exchange.ts).
    const opts: SampleOptions = { chains: 2, warmup: 100, draws: 8_000, seed: 7 };
    const want = recorder(2, false);
    sample(d, { ...opts, onDraw: want.onDraw });
    const got = recorder(2, true);
    let most = 0;
    const result = await sampleThreads(d, { ...opts, threads: 2, onDraw: got.onDraw }, {
      handOverAt: 110,
      onBlock: (_thread, blocks) => void (most = Math.max(most, blocks)),
    });
    expect(result.threads!.chainThread).toEqual([0, 1]);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(BLOCKS_IN_FLIGHT);
    // Between two of the calling thread's iterations it takes at most the blocks in flight.
    expect(longestWithout(got.seen, 0)).toBeLessThanOrEqual(BLOCKS_IN_FLIGHT * recordsPerBlock(d.dim));
    for (const c of [0, 1]) {
      const iterations = got.seen.filter((s) => s.chain === c).map((s) => s.iteration);
      expect(iterations, `chain ${c + 1} in order`).toEqual(Array.from({ length: opts.warmup! + opts.draws! }, (_, i) => i));
      expect(got.lp[c], `chain ${c + 1} bits`).toEqual(want.lp[c]);
    }
  }, 120_000);

  it("does not hold a worker back while the calling thread waits for it at a warmup window's end", async () => {
    const d = await density();
    const opts: SampleOptions = { chains: 2, warmup: 400, draws: 100, seed: 3 };
    const want = recorder(2, false);
    sample(d, { ...opts, onDraw: want.onDraw });
    const got = recorder(2, true);
    await sampleThreads(d, { ...opts, threads: 2, onDraw: got.onDraw }, { handOverAt: 1 });
    for (const c of [0, 1]) expect(got.lp[c], `chain ${c + 1} bits`).toEqual(want.lp[c]);
  }, 120_000);
});
