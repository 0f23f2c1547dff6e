/**
 * A sampler worker thread (of pool.ts, given groups by threaded-run.ts): runs the groups of chains it is sent, one at a
 * time, each as a run of its own (continued from where the calling thread left it, when it ran
 * them first), rebuilding the density when a group comes with a new one.
 */
import { parentPort } from "node:worker_threads";
import { sharedDensity } from "../../density/shared-density.ts";
import type { BatchedDensity } from "../density.ts";
import { IterationLog } from "../pace.ts";
import { settingsInWorker } from "../methods/method-source.ts";
import { SamplingRun } from "../sampling-run.ts";
import { stateBuffers } from "./state-buffers.ts";
import { SharedEvidenceExchange, waitingAtExchange } from "./stuck-exchange.ts";
import {
  abortRun, BLOCKS_IN_FLIGHT, blocksWord, Control, Group, groupWord, Mode, progressWord, RECORD_HEAD, recordsPerBlock, toThreadError, writeRecord,
  type FromWorker, type RunGroup, type ToWorker,
} from "./protocol.ts";

// Draws go to the calling thread in blocks: at most this often, or when the block is full.
const FLUSH_MS = 25;
// How long a worker waiting for room for a block sleeps between looks at the run.
const LOOK_MS = 20;

const port = parentPort!;
const post = (m: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

let held: { id: number; density: BatchedDensity } | null = null;

async function runGroup(m: RunGroup): Promise<void> {
  const control = m.control;
  const groupAt = groupWord(m.threads, m.thread);
  const progressAt = progressWord(m.threads, m.thread);
  try {
    if (held?.id !== m.densityId) {
      if (!m.density) throw new Error(`sampler worker: density ${m.densityId} was not sent`);
      held = null;
      held = { id: m.densityId, density: await sharedDensity(m.density) };
    }
    const density = held.density;
    const recordSize = RECORD_HEAD + density.dim;
    const perBlock = recordsPerBlock(density.dim);
    let records = new Float64Array(perBlock * recordSize);
    let count = 0;
    let lastFlush = performance.now();
    const flush = (): void => {
      if (count === 0) return;
      roomForBlock(m);
      const full = records;
      Atomics.add(control, blocksWord(m.threads, m.thread), 1);
      post({ kind: "draws", records: full, count }, [full.buffer as ArrayBuffer]);
      records = new Float64Array(perBlock * recordSize);
      count = 0;
      lastFlush = performance.now();
    };
    const first = m.first;
    // A method of the caller's own is imported here from its module (SamplingMethod.source).
    const settings = await settingsInWorker(m.options);
    const run = new SamplingRun(density, {
      ...settings,
      ...(m.keepDraws ? {} : { keepDraws: false }),
      ...(m.draws
        ? {
            onDraw: (d) => {
              writeRecord(records, count * recordSize, first + d.chain, d);
              count++;
              if (count === perBlock || performance.now() - lastFlush >= FLUSH_MS) flush();
            },
          }
        : {}),
      onReinitialised: (r) => {
        flush();
        post({ kind: "reinitialised", reinitialisation: { ...r, chain: first + r.chain } });
      },
      onAdapted: (c, adaptation) => {
        // After the draws before it, so that the calling thread sees each chain's events in order.
        flush();
        post({ kind: "adapted", chain: first + c, adaptation });
      },
    });
    if (m.state) run.restore(m.state);
    const s = run.settings;
    run.shareStuckEvidence(new SharedEvidenceExchange(m.stuck, s.firstChain - first, first, m.totalChains, s.warmup, control));
    Atomics.store(control, progressAt, run.iterationsDone);
    let aborted = false;
    // Each iteration's seconds and gradients, for the group's pace at a pause.
    const log = new IterationLog();
    while (!run.done) {
      const mode = Atomics.load(control, Control.MODE);
      if (mode === Mode.ABORT) {
        aborted = true;
        break;
      }
      if (mode === Mode.STOP || mode === Mode.PAUSE) {
        // Every thread stops after the same iteration (the furthest any has reached), so that a
        // stopped run has as many draws in every chain, as a run on one thread has, and a paused
        // run's chains all stand at one iteration.
        Atomics.store(control, Control.POSITION + m.thread, run.iterationsDone);
        Atomics.store(control, groupAt, Group.PAUSED);
        Atomics.wait(control, Control.STOP_AT, -1);
        const stopAt = Atomics.load(control, Control.STOP_AT);
        while (!run.done && run.iterationsDone < stopAt && Atomics.load(control, Control.MODE) !== Mode.ABORT) log.step(run);
        if (mode === Mode.PAUSE && !run.done && Atomics.load(control, Control.MODE) === Mode.PAUSE) {
          Atomics.store(control, groupAt, Group.FINISHED);
          flush();
          const state = run.handOver(0, run.settings.chains);
          post({ kind: "paused", first, state, pace: log.secondHalf() }, stateBuffers(state));
          return;
        }
        aborted = !run.done;
        break;
      }
      log.step(run);
      Atomics.store(control, progressAt, run.iterationsDone);
      if (m.pauseAt !== undefined && run.iterationsDone >= m.pauseAt && !run.done) Atomics.compareExchange(control, Control.MODE, Mode.RUNNING, Mode.PAUSE);
    }
    Atomics.store(control, groupAt, Group.FINISHED);
    flush();
    const result = run.result(aborted);
    // The draws move to the calling thread rather than being copied (each chain's array has its own buffer).
    post({ kind: "done", first, result }, result.draws.map((d) => d.buffer as ArrayBuffer));
  } catch (e) {
    // The other threads may be waiting for this one's chains at a window's end (stuck-exchange.ts).
    abortRun(control);
    Atomics.store(control, groupAt, Group.FINISHED);
    post({ kind: "error", error: toThreadError(e) });
  }
}

// Waits until the calling thread has taken enough of this worker's blocks that one more is within
// BLOCKS_IN_FLIGHT (it takes them between its own iterations, protocol.ts). The wait ends early when
// the run is aborted, or when a thread waits at a window's end for other chains: the calling thread
// may be waiting there for this worker's, and takes no message until they come.
function roomForBlock(m: RunGroup): void {
  const at = blocksWord(m.threads, m.thread);
  for (;;) {
    const n = Atomics.load(m.control, at);
    if (n < BLOCKS_IN_FLIGHT || Atomics.load(m.control, Control.MODE) === Mode.ABORT || waitingAtExchange(m.stuck, m.totalChains)) return;
    Atomics.wait(m.control, at, n, LOOK_MS);
  }
}

// Messages are handled one at a time: a group runs to its end before the next is read.
let queue = Promise.resolve();
port.on("message", (m: ToWorker) => {
  queue = queue.then(() => runGroup(m));
});
post({ kind: "ready" });
