// The fused workgroup transition keeps a model's intermediates in shared memory when they fit
// beside what the shader already declares there (the reductions, q, the NUTS sums): its shared
// declarations never exceed the device's limit, or the driver refuses the pipeline. Rendering
// needs no device; the limits are an H200's.
import { describe, expect, it } from "vitest";
import * as P from "@ppl/ppl";
import { add, mul } from "@ppl/tensor";
import { REFERENCE_LIMITS } from "@ppl/vulkan/internals";
import { nutsProgram } from "../src/nuts-program.ts";

const BYTES: Record<string, number> = { float: 4, double: 8, int: 4, uint: 4 };

/** Bytes of the `shared T name[n];` declarations of a shader. */
function sharedBytes(source: string): number {
  let total = 0;
  for (const m of source.matchAll(/^\s*shared\s+(\w+)\s+\w+(?:\[(\d+)\])?;/gm)) total += (BYTES[m[1]!] ?? 4) * Number(m[2] ?? 1);
  return total;
}

// A regression over N rows whose per-row intermediates grow with N, so that a sweep over N
// crosses the point where they stop fitting on chip.
const regression = P.model({
  name: "shared_sweep",
  data: { N: P.data.int({ lower: 1 }), x: P.data.vector("N"), y: P.data.vector("N") },
  build(m, d) {
    const a = m.param("a", P.normal(0, 1));
    const b = m.param("b", P.normal(0, 1));
    const s = m.param("s", P.halfNormal(1));
    m.observe(d.y, P.normal(add(a, mul(b, d.x)), s));
  },
});

describe("shared memory of the fused workgroup transition", () => {
  const limits = REFERENCE_LIMITS.h200;
  for (const dtype of ["f32", "f64"] as const) {
    it(`stays within the device's ${limits.sharedMemoryBytes} bytes as the intermediates grow, ${dtype}`, () => {
      let onChip = 0, offChip = 0;
      for (let N = 200; N <= 10000; N += 100) {
        const xs = Array.from({ length: N }, (_, i) => Math.sin(i));
        const compiled = P.compileModel(regression, { N, x: xs, y: xs.map((v) => 2 * v) });
        for (const workgroup of [64, 256]) {
          const p = nutsProgram(compiled.logDensity, compiled.q, { chains: 4, maxDepth: 10, dtype, shape: "workgroup", workgroup, limits });
          const bytes = sharedBytes(p.source);
          expect(bytes, `N=${N}, workgroup ${workgroup}`).toBeLessThanOrEqual(limits.sharedMemoryBytes);
          if (p.source.includes("shared " + (dtype === "f64" ? "double" : "float") + " ppl_scratch[")) onChip++;
          else offChip++;
        }
      }
      // The sweep crosses the point where the intermediates stop fitting on chip.
      expect(onChip, `${onChip} on chip, ${offChip} off`).toBeGreaterThan(0);
      expect(offChip, `${onChip} on chip, ${offChip} off`).toBeGreaterThan(0);
    });
  }
});
