/**
 * The random streams of streams.ts as tensor-IR graphs: Philox4x32-10 in i32 ops, the uniforms and
 * Box–Muller normals of variates.ts, the same words and, in f64, the same bits as the host's
 * (test/philox-graph.test.ts, through the reference interpreter), so that a backend can draw a
 * batch's momenta where its trajectories run. Every 32×32-bit product is taken from 16-bit halves
 * (each partial product below 2³², exact in a double) and every word that leaves a round is the
 * result of a bit op: the interpreter wraps each i32 node (| 0) and a GPU's int wraps by itself,
 * so both hold the same 32 bits whether a sum in between wrapped or not.
 */
import { add, bitAnd, bitOr, bitXor, cast, concat, constant, cos, log, lt, minimum, mul, param, reshape, select, shiftLeft, shiftRight, sin, slice, sqrt, type Node } from "@ppl/tensor";
import { PHILOX_CONSTANTS } from "./philox.ts";

const { M0, M1, W0, W1 } = PHILOX_CONSTANTS;
const ROUNDS = 10;
const LOW16 = 0xffff;

// An i32 constant holding the 32 bits of the unsigned word w.
const word = (w: number): Node => constant(w | 0, [], "i32");

// The bits of x shifted right by k with zeros coming in (>>> k): shift_right copies the sign bit.
const shiftRightLogical = (x: Node, k: number): Node => bitAnd(shiftRight(x, k), (2 ** (32 - k) - 1) | 0);

// The high and low 32 bits of the 64-bit product of the unsigned words x and m (m a constant).
function mulWide(x: Node, m: number): { hi: Node; lo: Node } {
  const xl = bitAnd(x, LOW16);
  const xh = shiftRightLogical(x, 16);
  const ml = m & LOW16;
  const mh = m >>> 16;
  const ll = mul(xl, ml);
  const lh = mul(xl, mh);
  const hl = mul(xh, ml);
  const hh = mul(xh, mh);
  // The middle column: ll's high half and the low halves of the cross products (below 3·2¹⁶).
  const mid = add(add(shiftRightLogical(ll, 16), bitAnd(lh, LOW16)), bitAnd(hl, LOW16));
  const hi = add(add(add(hh, shiftRightLogical(lh, 16)), shiftRightLogical(hl, 16)), shiftRightLogical(mid, 16));
  const lo = bitOr(shiftLeft(mid, 16), bitAnd(ll, LOW16));
  return { hi, lo };
}

/**
 * Philox4x32-10 of counters (c0, c1, c2, c3) under key (k0, k1), all i32 nodes holding unsigned
 * words (broadcast together): the four output words, philox4x32's.
 */
export function philoxGraph(counter: readonly [Node, Node, Node, Node], key: readonly [Node, Node]): [Node, Node, Node, Node] {
  let [x0, x1, x2, x3] = counter;
  for (let round = 0; round < ROUNDS; round++) {
    // The key bumped `round` times, from the key itself: one add a round (mod 2³², as the host's).
    const k0 = round === 0 ? key[0] : add(key[0], word(Math.imul(round, W0)));
    const k1 = round === 0 ? key[1] : add(key[1], word(Math.imul(round, W1)));
    const p0 = mulWide(x0, M0);
    const p1 = mulWide(x2, M1);
    [x0, x1, x2, x3] = [bitXor(bitXor(p1.hi, x1), k0), p1.lo, bitXor(bitXor(p0.hi, x3), k1), p0.lo];
  }
  return [x0, x1, x2, x3];
}

/**
 * uniformFromWords(hi, lo) in `dtype`: ((hi >>> 12)·2³² + (lo >>> 0) + 0.5)·2⁻⁵², in the host's
 * order. In f32 the sum may round up to 1, which the open interval excludes (an accept test u < 1
 * would then reject a sure move): it is kept at the largest f32 below 1.
 */
export function uniformGraph(hi: Node, lo: Node, dtype: "f32" | "f64"): Node {
  const top = cast(shiftRightLogical(hi, 12), dtype);
  const unsignedLo = add(cast(lo, dtype), select(lt(lo, 0), constant(2 ** 32, [], dtype), constant(0, [], dtype)));
  const u = add(add(mul(top, 2 ** -20), mul(unsignedLo, 2 ** -52)), 2 ** -53);
  return dtype === "f32" ? minimum(u, 1 - 2 ** -24) : u;
}

/** The params of normalsGraph: each chain's id, the iteration, the third counter word, the key's words. */
export interface StreamParams {
  readonly chain: Node;
  readonly iteration: Node;
  readonly purposeWord: Node;
  readonly keyLo: Node;
  readonly keyHi: Node;
}

/**
 * streamNormals of C chains at once: normals [C, dim] in `dtype`, row c chain[c]'s stream at
 * (iteration, purposeWord = purpose | sub << 8), element 2b block b's cosine branch and 2b + 1 its
 * sine branch. Its params: chain_id [C], iteration, purpose_word, key_lo, key_hi (i32 scalars).
 */
export function normalsGraph(chains: number, dim: number, dtype: "f32" | "f64"): { readonly params: StreamParams; readonly normals: Node } {
  const params: StreamParams = {
    chain: param("chain_id", [chains], "i32"), iteration: param("iteration", [], "i32"), purposeWord: param("purpose_word", [], "i32"),
    keyLo: param("key_lo", [], "i32"), keyHi: param("key_hi", [], "i32"),
  };
  const blocks = Math.ceil(dim / 2);
  const block = constant(Array.from({ length: blocks }, (_, b) => b), [1, blocks], "i32");
  const [w0, w1, w2, w3] = philoxGraph([reshape(params.chain, [chains, 1]), params.iteration, params.purposeWord, block], [params.keyLo, params.keyHi]);
  const u0 = uniformGraph(w0, w1, dtype);
  const u1 = uniformGraph(w2, w3, dtype);
  // Box–Muller as variates.ts writes it: √(−2·log u0)·cos(2π·u1) and ·sin(2π·u1).
  const radius = sqrt(mul(-2, log(u0)));
  const angle = mul(2 * Math.PI, u1);
  const pairs = concat([reshape(mul(radius, cos(angle)), [chains, blocks, 1]), reshape(mul(radius, sin(angle)), [chains, blocks, 1])], 2);
  const normals = reshape(pairs, [chains, 2 * blocks]);
  return { params, normals: 2 * blocks === dim ? normals : slice(normals, [undefined, { start: 0, stop: dim }]) };
}
