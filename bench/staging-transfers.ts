/**
 * Host cost of small transfers through staging memory (issue 11): N reads (and writes) of a few
 * KiB from a buffer that the host cannot read directly. A manager with forceStaging takes the path
 * that device-local memory takes on a discrete GPU (and that reads of uncached BAR memory take), so
 * every transfer is a copy on the queue through host-visible staging memory.
 *   sync read       N × buffer.read(BYTES, offset)
 *   async read      N × await buffer.readAsync(BYTES, offset), one at a time
 *   async read ×4   N reads as N/4 rounds of Promise.all of 4 readAsync in flight at once
 *   sync write      N × buffer.write(BYTES, offset)
 *   submit floor    N × submitSync of one recorded device-to-device copy of BYTES: the queue's
 *                   submit-and-wait cost that every staging transfer pays, with no staging at all;
 *                   a read's time above it is the host cost of the staging path
 *   create+destroy  N × (a device buffer of BYTES and a sequence, created and destroyed): about what
 *                   each transfer paid before staging memory was reused (a buffer and its memory, a
 *                   command buffer and a fence, each made and freed)
 * On lavapipe the submit floor (waking its queue thread and back) dominates, and device memory is
 * plain malloc, so the saving is small; on drivers where vkAllocateMemory is a kernel call it is not.
 * Above 128 KiB, glibc gives each returned ArrayBuffer freshly faulted pages (a new mmap, or heap
 * memory trimmed after the last free) unless the process has freed a larger mapped chunk, which
 * raises both thresholds. lavapipe's device memory is malloc'd, so its per-transfer staging memory
 * used to do that, and the old path read 256 KiB faster on lavapipe for it (a discrete GPU's staging
 * memory is not malloc'd, and both paths fault alike there). Compare such sizes with the thresholds
 * fixed: MALLOC_MMAP_THRESHOLD_=4194304 MALLOC_TRIM_THRESHOLD_=67108864.
 * Each figure is over PPL_BENCH_SAMPLES rounds (default 9) after one warm-up round: the median and
 * the fastest round (steadier on a shared machine, where other work only ever adds time), in ms for
 * all N transfers and µs per transfer, and the process's CPU time (all threads, lavapipe's queue
 * thread included) per transfer, median over the rounds, and the staging buffers and command
 * buffers allocated per transfer (the addon's counts). Prints one JSON line per measurement.
 * Run: npx tsx bench/staging-transfers.ts
 * Environment: PPL_BENCH_READS (N, default 2000), PPL_BENCH_BYTES (default 4096), PPL_BENCH_SAMPLES.
 */
import { loadAddon, VulkanManager } from "../packages/vulkan/src/index.ts";

const N = Number(process.env.PPL_BENCH_READS ?? 2000);
const BYTES = Number(process.env.PPL_BENCH_BYTES ?? 4096);
const SAMPLES = Number(process.env.PPL_BENCH_SAMPLES ?? 9);

const manager = new VulkanManager(undefined, { forceStaging: true });
const device = `${manager.device.name} (${manager.device.driver})`;
const SLOTS = 16;
const buffer = manager.buffer(BYTES * SLOTS);
buffer.write(new Uint8Array(BYTES * SLOTS).map((_, i) => i * 7));

// Staging buffers and command buffers allocated per transfer in the timed rounds, where the
// addon counts them (its test hooks); null for an addon built before the counts existed.
const load = loadAddon();
// An addon built before the counts existed has no allocations hook.
type CountingHooks = { allocations?: () => { stagingBuffers: number; commandBuffers: number } };
const hooks = load.ok ? (load.addon.testHooks as unknown as CountingHooks) : null;
const counts = hooks && typeof hooks.allocations === "function" ? () => hooks.allocations!() : null;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(name: string, round: () => Promise<void> | void): Promise<void> {
  await round();
  const times: number[] = [];
  const cpu: number[] = [];
  const before = counts?.();
  for (let s = 0; s < SAMPLES; s++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await round();
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const after = counts?.();
  const perTransfer = (k: "stagingBuffers" | "commandBuffers") =>
    before && after ? +((after[k] - before[k]) / (N * SAMPLES)).toFixed(3) : null;
  const ms = median(times);
  const fastest = Math.min(...times);
  const us = (t: number) => +((t * 1000) / N).toFixed(1);
  console.log(JSON.stringify({ device, measurement: name, transfers: N, bytes: BYTES, ms: +ms.toFixed(2), usPerTransfer: us(ms), fastestMs: +fastest.toFixed(2), fastestUsPerTransfer: us(fastest), cpuUsPerTransfer: us(median(cpu)),
    stagingBuffersPerTransfer: perTransfer("stagingBuffers"), commandBuffersPerTransfer: perTransfer("commandBuffers") }));
}

let checksum = 0;
await measure("sync read", () => {
  for (let i = 0; i < N; i++) checksum += new Uint8Array(buffer.read(BYTES, (i % SLOTS) * BYTES))[1]!;
});
await measure("async read", async () => {
  for (let i = 0; i < N; i++) checksum += new Uint8Array(await buffer.readAsync(BYTES, (i % SLOTS) * BYTES))[1]!;
});
await measure("async read x4", async () => {
  for (let i = 0; i < N; i += 4) {
    const reads = [0, 1, 2, 3].map((k) => buffer.readAsync(BYTES, ((i + k) % SLOTS) * BYTES));
    for (const r of await Promise.all(reads)) checksum += new Uint8Array(r)[1]!;
  }
});
const patch = new Uint8Array(BYTES).fill(3);
await measure("sync write", () => {
  for (let i = 0; i < N; i++) buffer.write(patch, (i % SLOTS) * BYTES);
});
const other = manager.buffer(BYTES);
const copy = manager.sequence().copy(buffer, other, { byteLength: BYTES });
await measure("submit floor", () => {
  for (let i = 0; i < N; i++) copy.submitSync();
});
copy.destroy();
other.destroy();
await measure("create+destroy", () => {
  for (let i = 0; i < N; i++) {
    manager.buffer(BYTES).destroy();
    manager.sequence().destroy();
  }
});
buffer.destroy();
manager.destroy();
if (!Number.isFinite(checksum)) throw new Error("unreachable");
