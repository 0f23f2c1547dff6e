/**
 * The process-wide pool of sampler worker threads. A worker starts with nothing and becomes ready
 * once its script has loaded (worker-script.ts); a threaded run (threaded-run.ts) takes free ready
 * workers for its groups of chains and gives them back when it ends. The workers stay for later
 * runs (idle, not keeping the process alive), holding the last density they ran;
 * prestartSamplerThreads starts them ahead of a run and stopSamplerThreads ends them.
 */
import { Worker } from "node:worker_threads";
import type { SharedDensity } from "../../density/shared-density.ts";
import type { FromWorker, RunGroup, WorkerSetup } from "./protocol.ts";
import { workerScript } from "./worker-script.ts";

/** Sends a group of chains to a worker, with the buffers that move rather than being copied. */
export type StartFn = (g: Omit<RunGroup, "kind" | "densityId" | "density" | "threads" | "control" | "stuck" | "totalChains" | "draws" | "keepDraws">, transfer: ArrayBuffer[]) => void;

/** One worker thread of the process-wide pool. */
export interface Slot {
  worker: Worker | null;
  ready: boolean;
  dead: boolean;
  /** Density id the worker holds. */
  holds: number;
  /** The run using this worker, which receives its messages. */
  owner: ((m: FromWorker) => void) | null;
  /** Called when the worker becomes ready or dies. */
  onState: (() => void) | null;
  /** Sends the worker a group of the run that owns it. */
  start: StartFn | null;
}

/** The pool's workers, free or held by a run. */
export const slots: Slot[] = [];
let nextDensityId = 0;
const densityIds = new WeakMap<SharedDensity, number>();

/** The id workers know a shared density by (one per density, for the process). */
export function densityIdOf(spec: SharedDensity): number {
  let id = densityIds.get(spec);
  if (id === undefined) densityIds.set(spec, (id = nextDensityId++));
  return id;
}

/** Starts worker threads for threaded runs ahead of time, so that a run finds them ready; returns at once. */
export function prestartSamplerThreads(workers: number): void {
  const free = slots.filter((s) => !s.dead && s.owner === null).length;
  for (let k = free; k < workers; k++) slots.push(startSlot());
}

/** Ends every sampler worker thread (a later threaded run starts new ones). */
export async function stopSamplerThreads(): Promise<void> {
  const all = slots.splice(0);
  await Promise.all(all.map((s) => s.worker?.terminate()));
}

function startSlot(): Slot {
  const slot: Slot = { worker: null, ready: false, dead: false, holds: -1, owner: null, onState: null, start: null };
  const died = (): void => {
    if (slot.dead) return;
    slot.dead = true;
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    slot.onState?.();
  };
  workerScript().then(
    ({ url, entry }) => {
      const worker = new Worker(url, { workerData: { entry } satisfies WorkerSetup });
      slot.worker = worker;
      worker.on("message", (m: FromWorker) => {
        if (m.kind === "ready") {
          slot.ready = true;
          slot.onState?.();
        } else slot.owner?.(m);
      });
      worker.on("error", (e) => {
        // A worker that fails before it is ready (its script did not load) is only a lost helper:
        // its run goes on without it (onState fails a run whose chains were all for the workers).
        if (slot.ready) slot.owner?.({ kind: "error", error: { name: e.name, message: `sampler worker thread: ${e.message}`, ...(e.stack ? { stack: e.stack } : {}) } });
        died();
      });
      worker.on("exit", died);
      // Idle workers must not keep the process alive; a run holds them (ref) while it uses them.
      // After the listeners: adding a 'message' listener refs the worker's port again.
      if (slot.owner === null) worker.unref();
    },
    died,
  );
  return slot;
}
