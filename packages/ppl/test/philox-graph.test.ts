/**
 * The random streams as tensor-IR graphs (random/philox-graph.ts), run by the reference
 * interpreter: Philox4x32-10's words are philox4x32's for any counter and key, and a batch's
 * normals are streamNormals' bits in f64 (every dimension's parity, large chain ids, iterations,
 * sub-streams and seeds with both key words).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { interpret, param } from "@ppl/tensor";
import { normalsGraph, philoxGraph, uniformGraph } from "../src/random/philox-graph.ts";
import { philox4x32 } from "../src/random/philox.ts";
import { uniformFromWords } from "../src/random/variates.ts";
import { Purpose, seedKey, streamNormals } from "../src/random/streams.ts";

const N = 16;
const wordArb = fc.integer({ min: 0, max: 0xffffffff });
const graph = (() => {
  const ins = ["c0", "c1", "c2", "c3", "k0", "k1"].map((name) => param(name, [N], "i32"));
  return { words: philoxGraph([ins[0]!, ins[1]!, ins[2]!, ins[3]!], [ins[4]!, ins[5]!]) };
})();

describe("Philox as tensor-IR graphs", () => {
  it("philoxGraph gives philox4x32's words for any counters and keys (property, 16 blocks a case)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(wordArb, wordArb, wordArb, wordArb, wordArb, wordArb), { minLength: N, maxLength: N }), (blocks) => {
        const inputs = Object.fromEntries(["c0", "c1", "c2", "c3", "k0", "k1"].map((name, j) => [name, Float64Array.from(blocks, (b) => b[j]! | 0)]));
        const got = interpret(graph.words, inputs).map((v) => v.data);
        const out = new Uint32Array(4);
        blocks.forEach((b, i) => {
          philox4x32(b[0]!, b[1]!, b[2]!, b[3]!, b[4]!, b[5]!, out);
          for (let w = 0; w < 4; w++) expect(got[w]![i]! >>> 0, `block ${i} word ${w}`).toBe(out[w]);
        });
      }),
      { numRuns: 8, seed: 46 },
    );
  });

  it("normalsGraph gives streamNormals' bits in f64 for every chain of a batch", () => {
    const chains = [0, 1, 7, 4095, 123456, 2 ** 31 - 1];
    for (const dim of [1, 2, 5, 10]) {
      for (const [seed, iteration, sub] of [[1, 0, 0], [20261207, 499, 0], [2 ** 40 + 12345, 2 ** 20, 2 ** 24 - 1]] as const) {
        const key = seedKey(seed);
        const g = normalsGraph(chains.length, dim, "f64");
        const word = (Purpose.Momentum | (sub << 8)) >>> 0;
        const [normals] = interpret([g.normals], {
          chain_id: Float64Array.from(chains), iteration: Float64Array.of(iteration | 0), purpose_word: Float64Array.of(word | 0),
          key_lo: Float64Array.of(key.lo | 0), key_hi: Float64Array.of(key.hi | 0),
        });
        const expected = new Float64Array(dim);
        chains.forEach((id, c) => {
          streamNormals(key, id, iteration, Purpose.Momentum, sub, expected);
          expect(Array.from(normals!.data.subarray(c * dim, (c + 1) * dim)), `dim ${dim} seed ${seed} chain ${id}`).toEqual(Array.from(expected));
        });
      }
    }
  });

  it("uniformGraph: uniformFromWords' value in f64, and below 1 in f32 where the sum rounds up", () => {
    const words = [[0xffffffff, 0xffffffff], [0, 0], [0x12345678, 0x9abcdef0]] as const;
    const hi = param("hi", [3], "i32");
    const lo = param("lo", [3], "i32");
    const bound = { hi: Float64Array.from(words, (w) => w[0] | 0), lo: Float64Array.from(words, (w) => w[1] | 0) };
    const [u64, u32] = interpret([uniformGraph(hi, lo, "f64"), uniformGraph(hi, lo, "f32")], bound).map((v) => v.data);
    expect(Array.from(u64!)).toEqual(words.map(([h, l]) => uniformFromWords(h, l)));
    expect(u32![0]).toBe(1 - 2 ** -24);
    expect(u32![1]).toBe(Math.fround(uniformFromWords(0, 0)));
  });
});
