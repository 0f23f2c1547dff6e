import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/api/elementwise.ts";
import { constant, data, param } from "../src/api/leaves.ts";
import { matmul } from "../src/api/linalg.ts";
import { logsumexp, max, sum } from "../src/api/reduce.ts";
import { scan } from "../src/api/scan.ts";
import { broadcastTo, concat, reshape, slice, transpose } from "../src/api/shape-ops.ts";
import { interpret } from "../src/cpu/reference/interpret.ts";
import { toposort } from "../src/graph/toposort.ts";
import type { Node } from "../src/ir/node.ts";
import { optimize } from "../src/rewrite/optimize.ts";

// Every rule but log-exp keeps values exactly, so that pattern is left out here (it has its own test):
// log(exp t) rounds to 0 for tiny t, and a comparison downstream can flip on the difference.
// Random graphs: a pool of inputs and constants, grown by steps that each apply an op to pool members.
// Shapes that do not broadcast make a step throw; such steps are skipped.
type Step = { op: number; i: number; j: number; c: number };

const BUILDERS: ((a: Node, b: Node, c: number) => Node)[] = [
  (a, b) => T.add(a, b),
  (a, b) => T.sub(a, b),
  (a, b) => T.mul(a, b),
  (a, b) => T.div(a, T.add(T.square(b), 1)),
  (a, b) => T.maximum(a, b),
  (a) => T.neg(a),
  (a) => T.tanh(a),
  (a) => T.sin(a),
  (a) => T.exp(T.tanh(a)),
  (a) => T.log(T.add(T.abs(a), 1)),
  (a) => T.square(a),
  (a, _b, c) => sum(a, a.rank === 0 ? [] : [c % a.rank]),
  (a) => max(a),
  (a, _b, c) => logsumexp(a, a.rank === 0 ? [] : [c % a.rank], c % 2 === 0),
  (a, _b, c) => reshape(a, c % 2 === 0 ? [a.size] : [...a.shape, 1]),
  (a) => transpose(a),
  (a) => reshape(transpose(reshape(a, [1, ...a.shape, 1])), [...a.shape].reverse()),
  (a) => transpose(reshape(a, [...a.shape, 1]), [a.rank, ...a.shape.map((_, i) => i)]),
  (a) => broadcastTo(a, [2, ...a.shape]),
  (a, b) => T.select(T.gt(a, 0), a, b),
  (a, b) => T.select(constant(1, [], "bool"), a, b),
  (a) => slice(a, [{ start: 0, step: 2 }]),
  (a, b) => concat([a, b], 0),
  (a) => T.add(a, 0),
  (a) => T.mul(1, a),
  (a, b) => T.sub(a, T.neg(b)),
  (a) => T.neg(T.neg(a)),
  (a) => T.cast(T.sub(T.mul(T.cast(a, "i32"), 0), T.cast(a, "i32")), "f64"),
  (a, b) => matmul(a, b),
  (a, b) => T.add(a, broadcastTo(constant(0), b.shape)),
  (a, b, c) => {
    const res = scan(([v]) => ({ carry: [T.add(T.mul(v!, 0.5), sum(b))], ys: [T.add(v!, 0), T.mul(v!, 1)] }), [a], [], [], { length: 2 });
    return c % 3 === 0 ? res.carry[0]! : c % 3 === 1 ? res.ys[0]! : res.ys[1]!;
  },
];

function build(steps: readonly Step[]): Node[] {
  const pool: Node[] = [
    param("x", [3]), param("m", [2, 3]), param("s"), data("d", [3]),
    constant(0), constant(1), constant(2, [3]), constant([1, -2, 3], [3]), constant([0.5, 0.25], [2, 1]),
  ];
  for (const st of steps) {
    // Offsets from the end of the pool, so steps tend to build on recent results and graphs get deep.
    const a = pool[pool.length - 1 - (st.i % pool.length)]!, b = pool[pool.length - 1 - (st.j % pool.length)]!;
    try {
      pool.push(BUILDERS[st.op % BUILDERS.length]!(a, b, st.c));
    } catch {
      // A step whose shapes do not fit is simply skipped.
    }
  }
  return [pool[pool.length - 1]!, pool[pool.length - 2]!];
}

// Exact equality (NaN matches NaN; -0 matches +0, the one difference x + 0 → x may make).
function close(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  return a === b;
}

const stepArb = fc.record({ op: fc.nat(BUILDERS.length - 1), i: fc.nat(10), j: fc.nat(12), c: fc.nat(11) });
const val = fc.double({ min: -3, max: 3, noNaN: true });

describe("optimize on random graphs", () => {
  it("keeps every value and never adds nodes", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 20 }), fc.array(val, { minLength: 10, maxLength: 10 }), (steps, v) => {
        const outputs = build(steps);
        const opt = optimize(outputs);
        expect(toposort(opt).length).toBeLessThanOrEqual(toposort(outputs).length);
        opt.forEach((o, k) => {
          expect(o.shape).toEqual(outputs[k]!.shape);
          expect(o.dtype).toBe(outputs[k]!.dtype);
        });
        const env = { x: v.slice(0, 3), m: v.slice(3, 9), s: v[9]!, d: [0.5, -1, 2] };
        const want = interpret(outputs, env), got = interpret(opt, env);
        want.forEach((w, k) => {
          w.data.forEach((e, i) => {
            const g = got[k]!.data[i]!;
            if (!close(e, g)) throw new Error(`output ${k}[${i}]: ${g} after optimize, ${e} before`);
          });
        });
        // A fixed point: optimizing again changes nothing.
        expect(optimize(opt)).toEqual(opt);
      }),
      { numRuns: Number(process.env.RUNS ?? 400) },
    );
  });
});
