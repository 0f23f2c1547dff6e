import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as T from "../src/api/elementwise.ts";
import { param } from "../src/api/leaves.ts";
import { logsumexp, sum } from "../src/api/reduce.ts";
import { scan } from "../src/api/scan.ts";
import { reshape } from "../src/api/shape-ops.ts";
import { grad } from "../src/autodiff/vjp.ts";
import { interpret } from "../src/cpu/reference/interpret.ts";
import { toposort } from "../src/graph/toposort.ts";
import type { Node } from "../src/ir/node.ts";
import { deadCode } from "../src/rewrite/dead-code.ts";
import { mergeScans } from "../src/rewrite/merge-scans.ts";
import { optimize } from "../src/rewrite/optimize.ts";

const scansOf = (outs: readonly Node[]) => toposort(outs).filter((n) => n.op === "scan");

// A two-state forward algorithm over 12 steps, as hmm_example writes it: the value reads the
// final carry, and the gradient's rule builds a second forward scan that stacks the carries.
const logA = T.log(param("a", [2, 2]));
const emit = param("e", [12, 2]);
const { carry } = scan(([g], [e]) => ({ carry: [T.add(logsumexp(T.add(reshape(g!, [2, 1]), logA), [0]), e!)] }), [param("g0", [2])], [emit]);
const lp = logsumexp(carry[0]!);
const wrt = [param("a", [2, 2]), emit, param("g0", [2])];

describe("mergeScans", () => {
  it("runs the value's recurrence and the gradient's stacked forward pass as one scan", () => {
    const outs = [lp, ...grad(lp, wrt)];
    // Without merging: the value's forward scan, the stacking forward scan and the reverse scan.
    expect(scansOf(deadCode(outs))).toHaveLength(3);
    const merged = optimize(outs);
    const scans = scansOf(merged);
    expect(scans).toHaveLength(2);
    expect(scans.filter((s) => s.attrs.reverseScan === true)).toHaveLength(1);
  });

  it("merges a value's scan whose ys are its carries with the gradient's, which stacks the entering carries", () => {
    // garch's form: sigma[t] is both the carry and a y.
    const a = param("alpha", []);
    const s0 = param("s0", []);
    const xs = param("xs", [9]);
    const run = scan(([c], [x]) => {
      const next = T.sqrt(T.add(T.mul(a, T.square(x!)), T.mul(0.5, T.square(c!))));
      return { carry: [next], ys: [next] };
    }, [s0], [xs]);
    const value = sum(T.log(run.ys[0]!));
    const outs = optimize([value, ...grad(value, [a, s0, xs])]);
    expect(scansOf(outs)).toHaveLength(2);
    const env = { alpha: 0.3, s0: 0.8, xs: [0.1, -0.4, 1.2, 0.5, -2, 0.3, 0.9, -0.7, 1.1] };
    const want = interpret(deadCode([value, ...grad(value, [a, s0, xs])]), env);
    interpret(outs, env).forEach((o, i) => o.data.forEach((x, j) => expect(Object.is(x, want[i]!.data[j]!)).toBe(true)));
  });

  it("gives the same bits as the unmerged graph", () => {
    const outs = [lp, ...grad(lp, wrt)];
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.05, max: 2, noNaN: true }), { minLength: 4 + 24 + 2, maxLength: 4 + 24 + 2 }), (v) => {
        const env = { a: v.slice(0, 4), e: v.slice(4, 28), g0: v.slice(28) };
        const want = interpret(deadCode(outs), env);
        const got = interpret(deadCode(mergeScans(outs)), env);
        got.forEach((o, i) => o.data.forEach((x, j) => expect(Object.is(x, want[i]!.data[j]!)).toBe(true)));
      }),
      { numRuns: 25, seed: 7 },
    );
  });

  it("keeps scans apart when their inputs, direction or carries differ", () => {
    const a = param("p", [3]);
    const forward = scan(([c]) => ({ carry: [T.mul(c!, 0.5)] }), [a], [], [], { length: 4 });
    const other = scan(([c]) => ({ carry: [T.mul(c!, 0.25)] }), [a], [], [], { length: 4 });
    const backward = scan(([c]) => ({ carry: [T.mul(c!, 0.5)] }), [a], [], [], { length: 4, reverse: true });
    const longer = scan(([c]) => ({ carry: [T.mul(c!, 0.5)] }), [a], [], [], { length: 5 });
    const outs = [sum(forward.carry[0]!), sum(other.carry[0]!), sum(backward.carry[0]!), sum(longer.carry[0]!)];
    expect(scansOf(mergeScans(outs))).toHaveLength(4);
  });

  it("reads a scan's ys from the scan that also computes them", () => {
    const a = param("p", [3]);
    const body = ([c]: Node[]) => T.add(T.mul(c!, 0.5), 1);
    const carriesOnly = scan(([c]) => ({ carry: [body([c!])] }), [a], [], [], { length: 6 });
    const withYs = scan(([c]) => ({ carry: [body([c!])], ys: [c!] }), [a], [], [], { length: 6 });
    const outs = [sum(carriesOnly.carry[0]!), sum(withYs.ys[0]!), sum(withYs.carry[0]!)];
    const merged = mergeScans(outs);
    expect(scansOf(merged)).toHaveLength(1);
    const env = { p: [0.3, -2, 7] };
    expect(interpret(merged, env).map((o) => Array.from(o.data))).toEqual(interpret(outs, env).map((o) => Array.from(o.data)));
  });
});
