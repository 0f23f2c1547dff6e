/**
 * A sampler worker thread (started by pool.ts): runs the ranges of chains it is sent, one at a
 * time, each as a run of its own, rebuilding the density when a range comes with a new one.
 */
import { parentPort } from "node:worker_threads";
import { sharedDensity } from "../../density/shared-density.ts";
import type { BatchedDensity } from "../density.ts";
import { SamplingRun } from "../run.ts";
import { RECORD_HEAD, toThreadError, writeRecord, type FromWorker, type RunRange, type ToWorker } from "./protocol.ts";

// Draws go to the calling thread in batches: at most this often, or when the buffer is full.
const FLUSH_MS = 25;
const RECORDS_PER_BATCH = 1024;

const port = parentPort!;
const post = (m: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

let held: { id: number; density: BatchedDensity } | null = null;

async function runRange(m: RunRange): Promise<void> {
  if (held?.id !== m.densityId) {
    if (!m.density) throw new Error(`sampler worker: density ${m.densityId} was not sent`);
    held = null;
    held = { id: m.densityId, density: await sharedDensity(m.density) };
  }
  const density = held.density;
  const recordSize = RECORD_HEAD + density.dim;
  let records = new Float64Array(RECORDS_PER_BATCH * recordSize);
  let count = 0;
  let lastFlush = performance.now();
  const flush = (): void => {
    if (count === 0) return;
    const full = records;
    post({ kind: "draws", records: full, count }, [full.buffer as ArrayBuffer]);
    records = new Float64Array(RECORDS_PER_BATCH * recordSize);
    count = 0;
    lastFlush = performance.now();
  };
  const first = m.first;
  const run = new SamplingRun(density, {
    ...m.options,
    ...(m.draws
      ? {
          onDraw: (d) => {
            writeRecord(records, count * recordSize, first + d.chain, d);
            count++;
            if (count === RECORDS_PER_BATCH || performance.now() - lastFlush >= FLUSH_MS) flush();
          },
        }
      : {}),
    onAdapted: (c, adaptation) => {
      // After the draws before it, so that the calling thread sees each chain's events in order.
      flush();
      post({ kind: "adapted", chain: first + c, adaptation });
    },
  });
  let aborted = false;
  while (!run.done) {
    if (Atomics.load(m.stop, 0) !== 0) {
      aborted = true;
      break;
    }
    run.step();
  }
  flush();
  const result = run.result(aborted);
  // The draws move to the calling thread rather than being copied (each chain's array has its own buffer).
  post({ kind: "done", first, result }, result.draws.map((d) => d.buffer as ArrayBuffer));
}

// Messages are handled one at a time: a range runs to its end before the next is read.
let queue = Promise.resolve();
port.on("message", (m: ToWorker) => {
  queue = queue.then(() => runRange(m)).catch((e: unknown) => post({ kind: "error", error: toThreadError(e) }));
});
post({ kind: "ready" });
