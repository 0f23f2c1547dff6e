import fc from "fast-check";
import { describe, it } from "vitest";
import * as T from "../src/api/elementwise.ts";
import { constant, data, param } from "../src/api/leaves.ts";
import { matmul } from "../src/api/linalg.ts";
import { logsumexp, max, sum } from "../src/api/reduce.ts";
import { scan } from "../src/api/scan.ts";
import { broadcastTo, concat, cumsum, gather, pad, reshape, scatterAdd, slice, transpose } from "../src/api/shape-ops.ts";
import { vmap } from "../src/batch/vmap.ts";
import { interpret, type Bindings } from "../src/cpu/reference/interpret.ts";
import type { Node } from "../src/ir/node.ts";
import { optimize } from "../src/rewrite/optimize.ts";

// Random one-chain graphs over params and shared data, grown step by step from a pool; steps whose
// shapes do not fit throw and are skipped.
type Step = { op: number; i: number; j: number; c: number };

const idx = data("idx", [4], "i32");
const BUILDERS: ((a: Node, b: Node, c: number) => Node)[] = [
  (a, b) => T.add(a, b),
  (a, b) => T.sub(a, b),
  (a, b) => T.mul(a, b),
  (a, b) => T.div(a, T.add(T.square(b), 1)),
  (a, b) => T.minimum(a, b),
  (a) => T.tanh(a),
  (a) => T.exp(T.tanh(a)),
  (a) => T.softplus(a),
  (a, _b, c) => sum(a, a.rank === 0 ? [] : [c % a.rank]),
  (a) => max(a),
  (a, _b, c) => logsumexp(a, a.rank === 0 ? [] : [c % a.rank], c % 2 === 0),
  (a, _b, c) => reshape(a, c % 2 === 0 ? [a.size] : [1, ...a.shape]),
  (a) => transpose(a),
  (a, _b, c) => broadcastTo(a, [1 + (c % 3), ...a.shape]),
  (a, b) => T.select(T.gt(a, 0), a, b),
  (a) => slice(a, [{ start: 1, step: 2 }]),
  (a, b, c) => concat([a, b], c % Math.max(1, a.rank)),
  (a, _b, c) => pad(a, a.shape.map((_, k) => [k === 0 ? c % 2 : 0, 1] as const), 0.5),
  (a, _b, c) => cumsum(a, c % Math.max(1, a.rank), c % 2 === 1),
  (a, b) => matmul(a, b),
  (a, _b, c) => gather(a, idx, needs(a, c % Math.max(1, a.rank), 3)),
  (a, _b, c) => scatterAdd(a, slice(idx, [{ stop: a.shape[0] }]), 0, 3 + (c % 2)),
  (a, b, c) => gather(a, T.cast(T.gt(b, 0), "i32"), needs(a, c % Math.max(1, a.rank), 2)),
  (a, b) => T.cast(T.gt(a, b), "f64"),
  (a, b, c) => {
    const res = scan(
      ([v], [r]) => ({ carry: [T.add(T.mul(v!, 0.5), T.mul(sum(r!), b))], ys: [T.tanh(v!)] }),
      [broadcastTo(constant(0.1), T.mul(a, b).shape)],
      [a.rank > 0 ? a : reshape(a, [1])],
    );
    return c % 2 === 0 ? res.carry[0]! : res.ys[0]!;
  },
];

// The axis, when it is long enough for the indices used (else the step is skipped).
function needs(a: Node, axis: number, size: number): number {
  if ((a.shape[axis] ?? 0) < size) throw new Error("axis too short for the indices");
  return axis;
}

const PARAMS = [param("x", [3]), param("m", [2, 3]), param("s")];

function build(steps: readonly Step[]): Node[] {
  const pool: Node[] = [...PARAMS, data("X", [4, 3]), data("d", [3]), constant(2), constant([1, -2, 3], [3])];
  for (const st of steps) {
    const a = pool[pool.length - 1 - (st.i % pool.length)]!, b = pool[pool.length - 1 - (st.j % pool.length)]!;
    try {
      pool.push(BUILDERS[st.op % BUILDERS.length]!(a, b, st.c));
    } catch {
      // Shapes that do not fit: skip the step.
    }
  }
  return [pool[pool.length - 1]!, pool[pool.length - 2]!];
}

// Exact equality (NaN matches NaN; -0 matches +0, the one difference x + 0 → x may make).
function close(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  return a === b;
}

const C = 3;
const SHARED = { X: Array.from({ length: 12 }, (_, i) => Math.cos(i)), d: [0.5, -1, 2], idx: [1, 0, 2, 1] };
const stepArb = fc.record({ op: fc.nat(BUILDERS.length - 1), i: fc.nat(8), j: fc.nat(10), c: fc.nat(11) });
const valsArb = fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 10 * C, maxLength: 10 * C });

describe("vmap on random graphs", () => {
  it("equals stacking each chain, before and after optimize", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 16 }), valsArb, (steps, vals) => {
        const outputs = build(steps);
        // Chain c's params: consecutive slices of vals.
        const chainEnv = (c: number): Bindings => ({ ...SHARED, x: vals.slice(10 * c, 10 * c + 3), m: vals.slice(10 * c + 3, 10 * c + 9), s: vals[10 * c + 9]! });
        const perChain = Array.from({ length: C }, (_, c) => interpret(outputs, chainEnv(c)));
        const stackedEnv: Bindings = {
          ...SHARED,
          x: { dtype: "f64", shape: [C, 3], data: Float64Array.from(Array.from({ length: C }, (_, c) => vals.slice(10 * c, 10 * c + 3)).flat()) },
          m: { dtype: "f64", shape: [C, 2, 3], data: Float64Array.from(Array.from({ length: C }, (_, c) => vals.slice(10 * c + 3, 10 * c + 9)).flat()) },
          s: { dtype: "f64", shape: [C], data: Float64Array.from(Array.from({ length: C }, (_, c) => vals[10 * c + 9]!)) },
        };
        const batched = vmap(outputs, new Map(PARAMS.map((p) => [p, C])));
        for (const g of [batched, optimize(batched)]) {
          const got = interpret(g, stackedEnv);
          outputs.forEach((o, k) => {
            if (got[k]!.shape.join() !== [C, ...o.shape].join()) throw new Error(`output ${k}: shape ${got[k]!.shape}, expected [${C},${o.shape}]`);
            const want = perChain.flatMap((r) => [...r[k]!.data]);
            got[k]!.data.forEach((v, i) => {
              if (!close(v, want[i]!)) throw new Error(`output ${k} (${o}) element ${i}: vmap gives ${v}, per chain ${want[i]}`);
            });
          });
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 300) },
    );
  });
});
