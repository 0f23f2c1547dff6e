import type { ChainMatrix } from "./draws.ts";

/**
 * Splits every chain into its first and second half, doubling the number of
 * chains. For an odd length the middle draw is dropped (as posterior does),
 * so both halves have floor(n/2) draws. Chains of length 1 are left alone.
 */
export function splitChains(m: ChainMatrix): ChainMatrix {
  const n = m.iterations;
  if (n === 1) return m;
  const half = Math.floor(n / 2);
  const secondStart = n - half; // skips the middle draw when n is odd
  const values = new Float64Array(2 * m.chains * half);
  for (let c = 0; c < m.chains; c++) {
    const base = c * n;
    // First halves keep chain order, then all second halves (posterior's cbind order).
    values.set(m.values.subarray(base, base + half), c * half);
    values.set(m.values.subarray(base + secondStart, base + n), (m.chains + c) * half);
  }
  return { chains: 2 * m.chains, iterations: half, values };
}
