/** The random source distributions sample from: uniforms in the open interval (0, 1) and standard normals. */
export interface Rng {
  uniform(): number;
  normal(): number;
}

/**
 * A small seeded generator (xoshiro128** seeded through splitmix32) for tests and prior
 * predictive draws; the sampler uses its own counter-based streams.
 */
export function seededRng(seed: number): Rng {
  let z = seed >>> 0;
  const splitmix = (): number => {
    z = (z + 0x9e3779b9) >>> 0;
    let t = z;
    t = Math.imul(t ^ (t >>> 16), 0x85ebca6b);
    t = Math.imul(t ^ (t >>> 13), 0xc2b2ae35);
    return (t ^ (t >>> 16)) >>> 0;
  };
  let s0 = splitmix(), s1 = splitmix(), s2 = splitmix(), s3 = splitmix();
  const next = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  };
  let spare: number | undefined;
  const uniform = (): number => ((next() >>> 5) * 67108864 + (next() >>> 6) + 0.5) / 9007199254740992;
  return {
    uniform,
    normal() {
      if (spare !== undefined) {
        const s = spare;
        spare = undefined;
        return s;
      }
      const r = Math.sqrt(-2 * Math.log(uniform()));
      const a = 2 * Math.PI * uniform();
      spare = r * Math.sin(a);
      return r * Math.cos(a);
    },
  };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
