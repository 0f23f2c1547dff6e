// Shared test setup: the addon must load (a missing build fails the tests
// rather than skipping them), lavapipe must be present, and SPIR-V is cached
// in a per-run temporary directory.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TensorValue } from "@ppl/tensor";
import { compileGlsl, listDevices, loadAddon, type CompileOptions, type DeviceInfo } from "../src/index.ts";

export const cacheDir = mkdtempSync(join(tmpdir(), "ppl-vulkan-test-"));

/** Compiles with the test cache directory. */
export function compile(source: string, options: CompileOptions = {}): Promise<Uint32Array> {
  return compileGlsl(source, { cacheDir, ...options });
}

/** The lavapipe device; throws (failing the test) when the addon or device is missing. */
export function lavapipe(): DeviceInfo {
  const load = loadAddon();
  if (!load.ok) throw new Error(load.reason);
  const listing = listDevices();
  const device = listing.devices.find((d) => d.driver === "llvmpipe" || d.name.startsWith("llvmpipe"));
  if (!device) throw new Error(`lavapipe not found: ${JSON.stringify(listing)}`);
  return device;
}

/** Deterministic pseudo-random floats in [-100, 100), exactly representable in f32. */
export function randomFloats(n: number, seed = 1): Float32Array {
  const out = new Float32Array(n);
  let state = seed >>> 0;
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = (state / 2 ** 32) * 200 - 100;
  }
  return out;
}

/** Deterministic pseudo-random bytes. */
export function randomBytes(n: number, seed = 7): Uint8Array {
  const out = new Uint8Array(n);
  let state = seed >>> 0;
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

/** Deterministic pseudo-random numbers in [0, 1) (a linear congruential generator). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Deterministic values in [-2, 2), exact in f32. */
export function reals(count: number, seed: number): Float64Array {
  const r = lcg(seed);
  return Float64Array.from({ length: count }, () => Math.fround(r() * 4 - 2));
}

/** A tensor value of `dtype` and `shape` holding `values`. */
export function tensorValueOf(dtype: TensorValue["dtype"], shape: number[], values: ArrayLike<number>): TensorValue {
  return { dtype, shape, data: Float64Array.from(values) };
}

/** Asserts byte-for-byte equality quickly (deep-equal on large typed arrays is slow); names the first difference. */
export function expectSameBytes(actual: ArrayBuffer | ArrayBufferView, expected: ArrayBuffer | ArrayBufferView): void {
  const a = toUint8(actual);
  const b = toUint8(expected);
  if (a.length !== b.length) throw new Error(`length ${a.length} != expected ${b.length}`);
  if (Buffer.compare(a, b) === 0) return;
  const i = a.findIndex((value, k) => value !== b[k]);
  throw new Error(`bytes differ first at ${i}: ${a[i]} != expected ${b[i]}`);
}

function toUint8(data: ArrayBuffer | ArrayBufferView): Uint8Array {
  return data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** The partial counts of each sum a kernel adds up from its partials where it reads it (inline-slices.ts's sliceSumRead). */
export function slicedReads(source: string): number[] {
  return [...source.matchAll(/int (ppl_sl\d+)_at = [^;]*;((?:\s*\w+ ppl_sl\d+_\d+ = [^;]*;)+)/g)].map((m) => m[2]!.match(/ppl_sl\d+_\d+ = /g)!.length);
}
