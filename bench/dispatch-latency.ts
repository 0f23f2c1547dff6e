/**
 * The device's cost of one dispatch that waits on the previous one: a one-thread kernel adding 1 to
 * a counter, recorded 1 and `length` times in a sequence; the difference of their submit times over
 * the extra dispatches. No gradient of several dependent kernels can take less than that a kernel.
 */
import { compileGlsl, type VulkanManager } from "../packages/vulkan/src/index.ts";

/** Submit-and-wait of one dispatch and the µs each further dependent dispatch adds (medians). */
export interface DispatchLatency {
  readonly usPerSubmit: number;
  readonly usPerDispatch: number;
  readonly dispatches: number;
  /** Whether the counter counted every dispatch (each one ran, in order). */
  readonly counterOk: boolean;
}

const SOURCE = `#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Buf0 { float v[]; } b0;
void main() { b0.v[0] += 1.0; }
`;

/** Median milliseconds of `run` over `samples` timed calls after `warmup` untimed ones. */
export async function medianMs(run: () => Promise<void>, samples: number, warmup: number): Promise<number> {
  for (let i = 0; i < warmup; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(samples / 2)]!;
}

/** Measure one dispatch's submit time and a dependent dispatch's cost on `manager`'s device. */
export async function dispatchLatency(manager: VulkanManager, length = 1000): Promise<DispatchLatency> {
  const algorithm = manager.algorithm(await compileGlsl(SOURCE, { optimize: false }), { buffers: 1 });
  const counter = manager.buffer(4);
  const chain = (n: number) => {
    const s = manager.sequence();
    for (let i = 0; i < n; i++) s.dispatch(algorithm, [counter], 1);
    return s;
  };
  const one = chain(1), many = chain(length);
  const oneMs = await medianMs(() => one.submit(), 200, 20);
  const manyMs = await medianMs(() => many.submit(), 21, 3);
  counter.write(new Float32Array([0]));
  await many.submit();
  const counterOk = new Float32Array(counter.read())[0] === length;
  one.destroy();
  many.destroy();
  counter.destroy();
  algorithm.destroy();
  return { usPerSubmit: oneMs * 1e3, usPerDispatch: ((manyMs - oneMs) * 1e3) / (length - 1), dispatches: length, counterOk };
}
