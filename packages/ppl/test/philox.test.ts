import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  Purpose,
  mulhi32,
  philox4x32,
  philoxRng,
  seedKey,
  streamRng,
  streamExponentials,
  streamNormals,
  streamUniform,
  streamUniforms,
  uniformFromWords,
} from "../src/random/index.ts";

const hex = (out: Uint32Array): string[] => Array.from(out, (w) => w.toString(16).padStart(8, "0"));

describe("Philox4x32-10", () => {
  // Known-answer vectors from Random123's kat_vectors (philox4x32_10).
  it("matches the known-answer vector for counter 0, key 0", () => {
    const out = new Uint32Array(4);
    philox4x32(0, 0, 0, 0, 0, 0, out);
    expect(hex(out)).toEqual(["6627e8d5", "e169c58d", "bc57ac4c", "9b00dbd8"]);
  });

  it("matches the known-answer vector for all-ones counter and key", () => {
    const out = new Uint32Array(4);
    const f = 0xffffffff;
    philox4x32(f, f, f, f, f, f, out);
    expect(hex(out)).toEqual(["408f276d", "41c83b0e", "a20bc7c6", "6d5451fd"]);
  });

  it("matches the known-answer vector for the digits of pi", () => {
    const out = new Uint32Array(4);
    philox4x32(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, out);
    expect(hex(out)).toEqual(["d16cfe09", "94fdcceb", "5001e420", "24126ea1"]);
  });

  it("computes the high word of 32x32 products exactly", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }), (a, b) => {
        const exact = Number((BigInt(a) * BigInt(b)) >> 32n);
        expect(mulhi32(a, b)).toBe(exact);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("variates", () => {
  it("maps the extreme words strictly inside (0, 1)", () => {
    const lo = uniformFromWords(0, 0);
    const hi = uniformFromWords(0xffffffff, 0xffffffff);
    expect(lo).toBeGreaterThan(0);
    expect(hi).toBeLessThan(1);
    expect(lo).toBe(2 ** -53);
    expect(hi).toBe(1 - 2 ** -53);
  });

  it("gives uniforms in (0, 1) with mean 1/2 and variance 1/12", () => {
    const key = seedKey(12345);
    const n = 200_000;
    const u = new Float64Array(n);
    streamUniforms(key, 0, 0, Purpose.Init, 0, u);
    let s = 0;
    let s2 = 0;
    let outside = 0;
    for (const x of u) {
      if (!(x > 0 && x < 1)) outside++;
      s += x;
      s2 += x * x;
    }
    expect(outside).toBe(0);
    const mean = s / n;
    const variance = s2 / n - mean * mean;
    // Standard errors: sqrt(1/12/n) for the mean, sqrt(1/180/n) for the variance; z <= 4.
    expect(Math.abs(mean - 0.5)).toBeLessThan(4 * Math.sqrt(1 / 12 / n));
    expect(Math.abs(variance - 1 / 12)).toBeLessThan(4 * Math.sqrt(1 / 180 / n));
  });

  it("gives standard normals with the right first four moments", () => {
    const key = seedKey(2024);
    const n = 200_000;
    const z = new Float64Array(n);
    streamNormals(key, 3, 7, Purpose.Momentum, 0, z);
    let m1 = 0;
    let m2 = 0;
    let m3 = 0;
    let m4 = 0;
    for (const x of z) {
      m1 += x;
      m2 += x * x;
      m3 += x * x * x;
      m4 += x * x * x * x;
    }
    m1 /= n;
    m2 /= n;
    m3 /= n;
    m4 /= n;
    // Sampling sds of the raw moments of N(0,1): 1, sqrt(2), sqrt(15), sqrt(96); z <= 4.
    expect(Math.abs(m1)).toBeLessThan(4 * Math.sqrt(1 / n));
    expect(Math.abs(m2 - 1)).toBeLessThan(4 * Math.sqrt(2 / n));
    expect(Math.abs(m3)).toBeLessThan(4 * Math.sqrt(15 / n));
    expect(Math.abs(m4 - 3)).toBeLessThan(4 * Math.sqrt(96 / n));
  });

  it("gives exponentials with mean 1 and variance 1", () => {
    const key = seedKey(99);
    const n = 200_000;
    const e = new Float64Array(n);
    streamExponentials(key, 0, 0, Purpose.Accept, 0, e);
    let s = 0;
    let s2 = 0;
    let nonPositive = 0;
    for (const x of e) {
      if (!(x > 0)) nonPositive++;
      s += x;
      s2 += x * x;
    }
    expect(nonPositive).toBe(0);
    const mean = s / n;
    const variance = s2 / n - mean * mean;
    // Exponential(1): sd of the mean 1/sqrt(n); sd of the sample variance sqrt((mu4 - 1)/n) = sqrt(8/n).
    expect(Math.abs(mean - 1)).toBeLessThan(4 * Math.sqrt(1 / n));
    expect(Math.abs(variance - 1)).toBeLessThan(4 * Math.sqrt(8 / n));
  });
});

describe("stream keying", () => {
  it("is a pure function of (seed, chain, iteration, purpose, sub, block)", () => {
    const key = seedKey(2 ** 40 + 17);
    const a = streamUniform(key, 2, 500, Purpose.Tree, 0, 3, 1);
    streamUniform(key, 0, 0, Purpose.Tree, 0, 0, 0);
    const b = streamUniform(key, 2, 500, Purpose.Tree, 0, 3, 1);
    expect(a).toBe(b);
  });

  it("uses the documented counter and key words", () => {
    const seed = 2 ** 35 + 0x1234;
    const key = seedKey(seed);
    expect(key).toEqual({ lo: 0x1234, hi: 8 });
    const out = new Uint32Array(4);
    philox4x32(4, 9, Purpose.StepSize | (5 << 8), 2, 0x1234, 8, out);
    const z = new Float64Array(6);
    streamNormals(key, 4, 9, Purpose.StepSize, 5, z);
    const u0 = uniformFromWords(out[0]!, out[1]!);
    const u1 = uniformFromWords(out[2]!, out[3]!);
    expect(z[4]).toBe(Math.sqrt(-2 * Math.log(u0)) * Math.cos(2 * Math.PI * u1));
    expect(z[5]).toBe(Math.sqrt(-2 * Math.log(u0)) * Math.sin(2 * Math.PI * u1));
  });

  it("gives distinct streams for distinct chains, iterations and purposes", () => {
    const key = seedKey(1);
    const seen = new Set<number>();
    for (let chain = 0; chain < 4; chain++) {
      for (let it = 0; it < 4; it++) {
        for (const p of [Purpose.Init, Purpose.Momentum, Purpose.Tree, Purpose.Leaf]) {
          seen.add(streamUniform(key, chain, it, p, 0, 0, 0));
        }
      }
    }
    expect(seen.size).toBe(64);
  });

  it("rejects seeds that are not safe non-negative integers", () => {
    expect(() => seedKey(-1)).toThrow(RangeError);
    expect(() => seedKey(1.5)).toThrow(RangeError);
    expect(() => seedKey(2 ** 53)).toThrow(RangeError);
  });
});

describe("StreamRng: a distribution's random source over one Philox stream", () => {
  it("reads uniforms as streamUniforms and normals as streamNormals of its stream", () => {
    const key = seedKey(2024);
    const u = new Float64Array(7);
    streamUniforms(key, 3, 11, Purpose.Generated, 2, u);
    const rngU = streamRng(key, 3, 11, Purpose.Generated, 2);
    expect(Array.from({ length: 7 }, () => rngU.uniform())).toEqual(Array.from(u));
    const z = new Float64Array(7);
    streamNormals(key, 3, 11, Purpose.Predictive, 0, z);
    const rngZ = streamRng(key, 3, 11, Purpose.Predictive, 0);
    expect(Array.from({ length: 7 }, () => rngZ.normal())).toEqual(Array.from(z));
  });

  it("never reads a block twice when uniforms and normals interleave", () => {
    const key = seedKey(5);
    const rng = streamRng(key, 0, 0, Purpose.Prior, 1);
    const got = [rng.uniform(), rng.normal(), rng.uniform(), rng.normal(), rng.uniform()];
    const block = (b: number) => {
      const out = new Uint32Array(4);
      philox4x32(0, 0, Purpose.Prior | (1 << 8), b, key.lo, key.hi, out);
      return { u0: uniformFromWords(out[0]!, out[1]!), u1: uniformFromWords(out[2]!, out[3]!) };
    };
    const [b0, b1, b2] = [block(0), block(1), block(2)];
    const r = Math.sqrt(-2 * Math.log(b1.u0));
    expect(got).toEqual([b0.u0, r * Math.cos(2 * Math.PI * b1.u1), b0.u1, r * Math.sin(2 * Math.PI * b1.u1), b2.u0]);
  });

  it("reset moves to the start of another stream", () => {
    const key = seedKey(9);
    const rng = streamRng(key, 0, 0, Purpose.Generated, 0);
    rng.normal();
    rng.uniform();
    rng.reset(1, 4, Purpose.Generated, 3);
    const fresh = streamRng(key, 1, 4, Purpose.Generated, 3);
    expect([rng.normal(), rng.uniform()]).toEqual([fresh.normal(), fresh.uniform()]);
  });

  it("philoxRng(seed, stream) is the Standalone stream of that seed: reproducible, and distinct per seed and stream", () => {
    const take = (seed: number, stream = 0) => {
      const rng = philoxRng(seed, stream);
      return Array.from({ length: 4 }, () => rng.uniform());
    };
    expect(take(42)).toEqual(take(42));
    expect(take(42)).toEqual(Array.from({ length: 4 }, (_, i) => streamUniform(seedKey(42), 0, 0, Purpose.Standalone, 0, i >> 1, (i & 1) as 0 | 1)));
    expect(take(43)).not.toEqual(take(42));
    expect(take(42, 1)).not.toEqual(take(42));
  });
});
