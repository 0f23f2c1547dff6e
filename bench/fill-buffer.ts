import type { VulkanBuffer } from "../packages/vulkan/src/index.ts";

/** Fill an f32 buffer with n pseudo-random values in [lo, hi) without building one huge array. */
export function fillBuffer(buffer: VulkanBuffer, n: number, lo: number, hi: number, seed: number): void {
  const chunk = 1 << 20;
  const block = new Float32Array(chunk);
  let s = seed >>> 0;
  for (let off = 0; off < n; off += chunk) {
    const m = Math.min(chunk, n - off);
    for (let i = 0; i < m; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      block[i] = lo + (s / 2 ** 32) * (hi - lo);
    }
    buffer.write(m === chunk ? block : block.subarray(0, m), off * 4);
  }
}
