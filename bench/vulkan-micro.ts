/**
 * Vulkan microbenchmarks of the generated kernels and of dispatch overhead, on the default device:
 *   (a) fused elementwise y = a·exp(b) + c·d over four f32 inputs (256 MiB read, 64 MiB written):
 *       achieved bandwidth = bytes read + written / time;
 *   (b) sum of one f32 array (256 MiB, capped at the device's maxStorageBufferRange) to a scalar,
 *       through the two-pass workgroup reduction: bandwidth = bytes read / time;
 *   (c) submit + wait of one tiny dispatch (µs), and N dependent tiny dispatches recorded in one
 *       sequence (µs per dispatch, from the difference of two sequence lengths);
 *   (d) regression-shaped matmuls, X[N,D]·B[D,C] and Xᵀ[D,N]·R[N,C] with N = 100k, D = 100,
 *       C = 4 and 1024 chains: GFLOP/s and bandwidth over the bytes of operands and result.
 * Kernels come from the backend's own codegen (planProgram) and run on resident buffers, so the
 * timings hold no host transfers. Each timing: warm-up submits, then the median of repeated
 * performance.now() around `await sequence.submit()`; kernels (a) and (b) are recorded REPEAT times
 * per sequence so one submit's fixed cost does not hide the bandwidth.
 * Prints one JSON line per measurement. Run: npx tsx bench/vulkan-micro.ts
 * Environment: PPL_BENCH_MIB (input MiB for (a) and (b), default 256), PPL_BENCH_SAMPLES (default 7),
 * PPL_BENCH_CHAINS (C values of (d), default 4,1024; those whose [N,C] buffers pass maxStorageBufferRange are skipped).
 */
import { add, data, exp, matmul, mT, mul, sum, type Node } from "../packages/tensor/src/index.ts";
import { compileGlsl, limitsOf, planProgram, VulkanManager, type VulkanBuffer } from "../packages/vulkan/src/index.ts";
import { kernelPrelude } from "../packages/vulkan/src/codegen/kernel-prelude.ts";
import type { Binding } from "../packages/vulkan/src/codegen/program.ts";
import { dispatchLatency, medianMs } from "./dispatch-latency.ts";
import { fillBuffer } from "./fill-buffer.ts";

const MIB = 1 << 20;
const INPUT_MIB = Number(process.env.PPL_BENCH_MIB ?? 256);
const SAMPLES = Number(process.env.PPL_BENCH_SAMPLES ?? 7);

const manager = new VulkanManager();
const device = manager.device;
const limits = limitsOf(device);
const deviceName = `${device.name} (${device.driver})`;

function emit(record: Record<string, unknown>): void {
  console.log(JSON.stringify({ device: deviceName, ...record }));
}


/** Median milliseconds of `run` over `samples` timed calls after `warmup` untimed ones. */
function timeMs(run: () => Promise<void>, samples = SAMPLES, warmup = 2): Promise<number> {
  return medianMs(run, samples, warmup);
}

/** A graph compiled the way the backend compiles it, with resident buffers; `repeat` copies of its kernels in one sequence. */
async function program(outputs: readonly Node[], repeat: number) {
  const plan = planProgram(outputs, limits, kernelPrelude);
  const spirv = await Promise.all(plan.kernels.map((k) => compileGlsl(k.source, { optimize: false })));
  const buffers = new Map<Binding, VulkanBuffer>();
  for (const b of [...plan.buffers, ...plan.scratch]) buffers.set(b, manager.buffer(Math.max(4, b.size * 4)));
  const algorithms = plan.kernels.map((k, i) => manager.algorithm(spirv[i]!, { buffers: k.bindings.length }));
  const sequence = manager.sequence();
  for (let r = 0; r < repeat; r++) {
    plan.kernels.forEach((k, i) => sequence.dispatch(algorithms[i]!, k.bindings.map((b) => buffers.get(b)!), [k.groups[0], k.groups[1]]));
  }
  return { plan, buffers, sequence };
}


// (a) fused elementwise kernel: 4 inputs, one output, one dispatch.
{
  const n = Math.floor((INPUT_MIB * MIB) / 4 / 4);
  const repeat = 4;
  const [a, b, c, d] = ["a", "b", "c", "d"].map((name) => data(name, [n], "f32")) as [Node, Node, Node, Node];
  const y = add(mul(a, exp(b)), mul(c, d));
  const { plan, buffers, sequence } = await program([y], repeat);
  [a, b, c, d].forEach((x, i) => fillBuffer(buffers.get(x)!, n, -1, 1, i + 1));
  const ms = await timeMs(() => sequence.submit());
  const bytes = 5 * n * 4 * repeat;
  emit({ bench: "fused_elementwise", expr: "a*exp(b)+c*d", dtype: "f32", elements: n, input_mib: (4 * n * 4) / MIB, kernels: plan.kernels.length, dispatches_per_submit: repeat * plan.kernels.length, ms_per_kernel: ms / repeat, GBps: bytes / (ms * 1e6) });
  buffers.forEach((buf) => buf.destroy());
  sequence.destroy();
}

// (b) reduction: sum of one array to a scalar (two passes: partials, then their merge).
{
  const maxBytes = Math.min(INPUT_MIB * MIB, device.limits.maxStorageBufferRange);
  const n = Math.floor(maxBytes / 4);
  const repeat = 4;
  const x = data("x", [n], "f32");
  const { plan, buffers, sequence } = await program([sum(x)], repeat);
  fillBuffer(buffers.get(x)!, n, -1, 1, 11);
  const ms = await timeMs(() => sequence.submit());
  const bytes = n * 4 * repeat;
  emit({ bench: "reduce_sum", dtype: "f32", elements: n, input_mib: (n * 4) / MIB, capped_by_maxStorageBufferRange: maxBytes < INPUT_MIB * MIB, kernels: plan.kernels.length, ms_per_reduction: ms / repeat, GBps: bytes / (ms * 1e6) });
  buffers.forEach((buf) => buf.destroy());
  sequence.destroy();
}

// (d) regression-shaped matmuls: X[N,D]·B[D,C] (tiled) and Xᵀ·R over N (tiled, k split and merged).
{
  const N = 100_000, D = 100;
  const chains = (process.env.PPL_BENCH_CHAINS ?? "4,1024").split(",").map(Number);
  for (const C of chains.filter((c) => N * c * 4 <= device.limits.maxStorageBufferRange)) {
    const X = data("X", [N, D], "f32"), B = data("B", [D, C], "f32"), R = data("R", [N, C], "f32");
    for (const [name, out] of [["X@B", matmul(X, B)], ["XT@R", matmul(mT(X), R)]] as const) {
      const repeat = 2;
      const { plan, buffers, sequence } = await program([out], repeat);
      for (const [i, leaf] of [X, B, R].entries()) if (buffers.has(leaf)) fillBuffer(buffers.get(leaf)!, leaf.size, -1, 1, 20 + i);
      const ms = (await timeMs(() => sequence.submit(), 5, 1)) / repeat;
      const bytes = 4 * plan.buffers.reduce((s, b) => s + b.size, 0);
      emit({ bench: "matmul", shape: name, N, D, C, dtype: "f32", kernels: plan.kernels.length, ms, GFLOPs: (2 * N * D * C) / (ms * 1e6), GBps_min_traffic: bytes / (ms * 1e6) });
      buffers.forEach((buf) => buf.destroy());
      sequence.destroy();
    }
  }
}

// (c) dispatch overhead: a one-thread kernel that adds 1 to a counter, so each dispatch depends on the last.
{
  const d = await dispatchLatency(manager);
  emit({ bench: "submit_wait", dispatches: 1, us_per_submit: d.usPerSubmit, samples: 200 });
  emit({ bench: "dependent_dispatch", dispatches: d.dispatches, us_per_dispatch: d.usPerDispatch, counter_ok: d.counterOk });
}
manager.destroy();
