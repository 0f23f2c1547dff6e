import { describe, expect, it } from "vitest";
import * as T from "../src/api/elementwise.ts";
import { constant, data, param } from "../src/api/leaves.ts";
import { matmul } from "../src/api/linalg.ts";
import { logsumexp, max, sum } from "../src/api/reduce.ts";
import { scan } from "../src/api/scan.ts";
import { broadcastTo, gather, reshape, transpose } from "../src/api/shape-ops.ts";
import { referenceBackend } from "../src/cpu/reference/backend.ts";
import { interpret, type Bindings } from "../src/cpu/reference/interpret.ts";
import { substitute } from "../src/graph/substitute.ts";
import { toposort } from "../src/graph/toposort.ts";
import { Node } from "../src/ir/node.ts";
import { castFloats } from "../src/rewrite/cast-floats.ts";
import { constantFold, FOLD_LIMIT } from "../src/rewrite/constant-fold.ts";
import { deadCode, liveNodes } from "../src/rewrite/dead-code.ts";
import { optimize } from "../src/rewrite/optimize.ts";
import { fillValue } from "../src/rewrite/rule.ts";
import { SIMPLIFY_RULES } from "../src/rewrite/simplify-rules.ts";
import { simplify } from "../src/rewrite/simplify.ts";

const x = param("x", [3]);
const m = param("m", [2, 3]);
const s = param("s", []);
const k = data("k", [3], "i32");
const b = data("b", [3], "bool");
const env: Bindings = {
  x: [0.5, -1.25, 2],
  m: [1, 2, 3, -4, 5, -6],
  s: 0.75,
  k: [3, -7, 11],
  b: [1, 0, 1],
};

function values(outputs: readonly Node[]): number[][] {
  return interpret(outputs, env).map((v) => [...v.data]);
}

// Each rule with a graph it rewrites and what it should become.
const RULE_CASES: Record<string, { before: () => Node; after: () => Node }> = {
  "add-zero": { before: () => T.add(T.add(x, 0), T.add(0, m)), after: () => T.add(x, m) },
  "sub-zero": { before: () => T.sub(x, 0), after: () => x },
  "mul-one": { before: () => T.mul(T.mul(1, x), T.mul(m, 1)), after: () => T.mul(x, m) },
  "div-one": { before: () => T.div(x, 1), after: () => x },
  "pow-one": { before: () => T.pow(x, 1), after: () => x },
  "mul-zero-int": { before: () => T.mul(k, 0), after: () => constant(0, [3], "i32") },
  "sub-self-int": { before: () => T.sub(k, k), after: () => constant(0, [3], "i32") },
  "add-neg": { before: () => T.add(T.add(x, T.neg(s)), T.add(T.neg(m), x)), after: () => T.add(T.sub(x, s), T.sub(x, m)) },
  "sub-neg": { before: () => T.sub(x, T.neg(s)), after: () => T.add(x, s) },
  "neg-neg": { before: () => T.neg(T.neg(T.neg(x))), after: () => T.neg(x) },
  "not-not": { before: () => T.not(T.not(b)), after: () => b },
  "log-exp": { before: () => T.log(T.exp(x)), after: () => x },
  "cast-same": { before: () => Node.make("cast", "f64", [3], [x]), after: () => x },
  "layout-identity": { before: () => Node.make("transpose", "f64", [3], [x], { perm: [0] }), after: () => x },
  "reshape-reshape": { before: () => reshape(reshape(m, [3, 2]), [6]), after: () => reshape(m, [6]) },
  "transpose-transpose": {
    before: () => transpose(transpose(reshape(x, [1, 3, 1]), [1, 2, 0]), [2, 0, 1]),
    after: () => reshape(x, [1, 3, 1]),
  },
  "transpose-unit-axes": { before: () => transpose(reshape(m, [2, 1, 3]), [1, 0, 2]), after: () => reshape(reshape(m, [2, 1, 3]), [1, 2, 3]) },
  "unit-reshape-transpose": {
    before: () => reshape(transpose(reshape(m, [2, 3, 1]), [1, 2, 0]), [3, 2]),
    after: () => transpose(m, [1, 0]),
  },
  "broadcast-broadcast": { before: () => broadcastTo(broadcastTo(x, [2, 3]), [4, 2, 3]), after: () => broadcastTo(x, [4, 2, 3]) },
  "layout-of-fill": { before: () => T.mul(x, broadcastTo(constant(2), [1_000_000, 3])), after: () => T.mul(x, constant(2, [1_000_000, 3])) },
  "reduce-unit-axes": { before: () => logsumexp(reshape(x, [3, 1]), 1), after: () => reshape(reshape(x, [3, 1]), [3]) },
  "select-const-cond": { before: () => T.select(constant(1, [2, 3], "bool"), x, m), after: () => broadcastTo(x, [2, 3]) },
  "select-same-branches": { before: () => T.select(T.gt(m, 0), x, x), after: () => broadcastTo(x, [2, 3]) },
  "log-of-select-one": { before: () => T.log(T.select(T.gt(m, 0), m, 1)), after: () => T.select(T.gt(m, 0), T.log(m), constant(0)) },
};

describe("simplify rules", () => {
  it("every rule has a test case and a unique name", () => {
    const names = SIMPLIFY_RULES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(RULE_CASES).sort()).toEqual([...names].sort());
  });

  for (const [name, c] of Object.entries(RULE_CASES)) {
    it(`${name}: rewrites, keeps values, and only by itself`, () => {
      const before = c.before();
      const rule = SIMPLIFY_RULES.find((r) => r.name === name)!;
      const [after] = simplify([before], [rule]);
      expect(after).toBe(c.after());
      if (before.size < 1000) expect(values([after!])).toEqual(values([before]));
    });
  }

  it("keeps x * 0 for floats (inf * 0 and NaN * 0 are NaN), x - x for floats, and exp(log x)", () => {
    const keep = [T.mul(x, 0), T.sub(x, x), T.exp(T.log(x))];
    expect(simplify(keep)).toEqual(keep);
    const [z] = interpret([T.mul(x, 0)], { x: [Infinity, NaN, 1] });
    expect([...z!.data]).toEqual([NaN, NaN, 0]);
  });

  it("log-of-select-one: the 1 in either branch, the log shared with the forward pass's, f32 kept, the same bits", () => {
    const c = T.gt(m, 0);
    const [left, right] = simplify([T.log(T.select(c, 1, m)), T.add(T.log(m), T.log(T.select(c, m, 1)))]);
    expect(left).toBe(T.select(c, constant(0), T.log(m)));
    expect(toposort([right!]).filter((n) => n.op === "log")).toHaveLength(1);
    const m32 = param("m32", [2, 3], "f32");
    const [f32] = simplify([T.log(T.select(T.gt(m32, 0), m32, 1))]);
    expect(f32!.dtype).toBe("f32");
    expect(f32).toBe(T.select(T.gt(m32, 0), T.log(m32), constant(0, [], "f32")));
    const bindings = { m: [1e-300, 0, -0, 3, NaN, Infinity], m32: [1e-30, 0, -2, 3, NaN, Infinity] };
    const bits = (outs: Node[]) => interpret(outs, bindings).flatMap((v) => [...v.data]);
    const before = [T.log(T.select(c, 1, m)), T.log(T.select(T.gt(m32, 0), m32, 1))];
    bits(simplify(before)).forEach((v, i) => expect(Object.is(v, bits(before)[i]), `element ${i}`).toBe(true));
  });

  it("keeps shape and dtype through broadcasting identities", () => {
    const [out] = simplify([T.add(s, constant(0, [2, 3]))]);
    expect(out).toBe(broadcastTo(s, [2, 3]));
  });
});

describe("constantFold", () => {
  it("folds nodes whose inputs are all constants, keeping fills as fills", () => {
    const c = T.mul(T.add(constant([1, 2, 3], [3]), 1), 2);
    const [out] = constantFold([T.add(x, c)]);
    expect(out).toBe(T.add(x, constant([4, 6, 8], [3])));
    const [fill] = constantFold([T.exp(constant(0, [4, 5]))]);
    expect(fill!.op).toBe("const");
    expect(fillValue(fill!)).toBe(1);
  });

  it("folds huge fills without materializing them and leaves huge non-fills alone", () => {
    const big = broadcastTo(constant(3), [1_000_000]);
    const [fill] = constantFold([T.exp(big)]);
    expect(fill).toBe(constant(Math.exp(3), [1_000_000]));
    const ramp = broadcastTo(constant([1, 2], [2, 1]), [2, FOLD_LIMIT]);
    const [kept] = constantFold([T.exp(ramp)]);
    expect(kept!.op).toBe("exp");
  });

  it("folds a scan that reads only constants", () => {
    const { carry } = scan(([c]) => ({ carry: [T.add(T.mul(c!, 2), 1)] }), [constant(1)], [], [], { length: 3 });
    const [out] = constantFold([T.add(x, carry[0]!)]);
    expect(out).toBe(T.add(x, constant(15)));
  });

  it("leaves an op that would fail (index out of range) for run time", () => {
    const g = gather(constant([1, 2, 3], [3]), constant([5], [1], "i32"));
    expect(constantFold([g])[0]).toBe(g);
  });
});

describe("CSE through hash-consing", () => {
  it("builds the same expression twice as the same node", () => {
    const f = () => T.mul(sum(T.exp(x)), matmul(m, x));
    expect(f()).toBe(f());
    expect(toposort([f(), f()]).length).toBe(toposort([f()]).length);
  });

  it("merges subgraphs that become equal after substitution", () => {
    const y = param("y", [3]);
    const g = (v: Node) => T.tanh(T.mul(v, 2));
    const both = [g(x), g(y)];
    expect(both[0]).not.toBe(both[1]);
    const [a, b2] = substitute(both, new Map([[y, x]]));
    expect(a).toBe(b2);
    expect(toposort([a!, b2!]).length).toBe(toposort([g(x)]).length);
  });
});

describe("deadCode", () => {
  it("keeps only what the outputs reach", () => {
    const used = T.exp(x);
    const unused = T.log(T.add(x, 100));
    void unused;
    const live = liveNodes([T.add(used, 1)]);
    expect(live.has(used)).toBe(true);
    expect(live.has(unused)).toBe(false);
    expect([...live].some((n) => n.op === "log")).toBe(false);
    // What a backend compiles is exactly the live set.
    const exe = referenceBackend().compileSync!([T.add(used, 1)]);
    expect(exe.stats.kernels).toBe(live.size);
  });

  it("drops scan ys and carries nobody reads, and xs the rest never touch", () => {
    const xs = data("xs", [4, 3]);
    const res = scan(
      ([a, unusedCarry], [row]) => ({
        carry: [T.add(a!, T.mul(row!, x)), T.mul(unusedCarry!, 2)],
        ys: [T.exp(a!), sum(row!)],
      }),
      [x, constant(1, [3])],
      [xs],
    );
    const out = sum(res.ys[0]!);
    const [pruned] = deadCode([out]);
    const sc = toposort([pruned!]).find((n) => n.op === "scan")!;
    expect(sc.attrs.body!.nCarry).toBe(1);
    expect(sc.attrs.body!.outputs.length).toBe(2);
    expect(sc.inputs.length).toBe(3); // carry a, xs, const x
    const bind = { ...env, xs: Array.from({ length: 12 }, (_, i) => i / 7) };
    expect(interpret([pruned!], bind)[0]!.data).toEqual(interpret([out], bind)[0]!.data);
  });

  it("drops a whole scan output chain but keeps a carry a kept carry reads", () => {
    const res = scan(([a, c]) => ({ carry: [T.add(a!, c!), T.mul(c!, 0.5)], ys: [T.square(a!)] }), [s, constant(1)], [], [], { length: 5 });
    const [pruned] = deadCode([res.carry[0]!]);
    const sc = toposort([pruned!]).find((n) => n.op === "scan")!;
    expect(sc.attrs.body!.nCarry).toBe(2);
    expect(sc.attrs.body!.outputs.length).toBe(2);
    expect(values([pruned!])).toEqual(values([res.carry[0]!]));
  });
});

describe("optimize", () => {
  it("runs folding, simplification and scan pruning to a fixed point, inside scan bodies too", () => {
    const res = scan(([a]) => ({ carry: [T.add(T.mul(a!, T.exp(constant(0))), T.neg(T.neg(x)))], ys: [T.log(a!)] }), [x], [], [], { length: 3 });
    const g = T.add(sum(res.carry[0]!), T.mul(max(T.add(m, 0)), 1));
    const [opt] = optimize([g]);
    expect(toposort([opt!]).length).toBeLessThan(toposort([g]).length);
    const body = toposort([opt!]).find((n) => n.op === "scan")!.attrs.body!;
    expect(body.outputs.length).toBe(1);
    expect(toposort(body.outputs).map((n) => n.op).sort()).toEqual(["add", "arg", "arg"]);
    expect(values([opt!])).toEqual(values([g]));
    expect(optimize([opt!])[0]).toBe(opt);
  });
});

describe("castFloats", () => {
  it("gives the graph the api would build in f32", () => {
    const f = (xx: Node, mm: Node, d: Node) => T.add(sum(T.mul(T.exp(xx), 2)), T.div(matmul(mm, xx), T.add(d, 0.1)));
    const g64 = f(x, m, data("d", [2]));
    const [g32] = castFloats([g64], "f32");
    expect(g32).toBe(f(param("x", [3], "f32"), param("m", [2, 3], "f32"), data("d", [2], "f32")));
    expect(toposort([g32!]).every((n) => n.dtype !== "f64")).toBe(true);
    const bind = { ...env, d: [0.3, 0.7] };
    const v64 = interpret([g64], bind)[0]!.data, v32 = interpret([g32!], bind)[0]!.data;
    v32.forEach((v, i) => expect(Math.abs(v - v64[i]!)).toBeLessThan(1e-5 * Math.abs(v64[i]!)));
  });

  it("converts constants, casts, scan bodies and leaves ints alone", () => {
    const res = scan(([a], [r]) => ({ carry: [T.add(a!, T.mul(r!, 0.1))] }), [s], [T.cast(k, "f64")]);
    const g = T.add(res.carry[0]!, sum(constant([0.1, 0.2, 0.3], [3])));
    const [g32] = castFloats([g], "f32");
    const nodes = toposort([g32!]);
    expect(nodes.filter((n) => n.op !== "scan").every((n) => n.dtype === "f32" || n.dtype === "i32")).toBe(true);
    expect(nodes.find((n) => n.op === "data")!.dtype).toBe("i32");
    const sc = nodes.find((n) => n.op === "scan")!;
    expect(toposort(sc.attrs.body!.outputs).every((n) => n.dtype === "f32")).toBe(true);
    expect(sc.attrs.outputs![0]!.dtype).toBe("f32");
    const [v] = interpret([g32!], env);
    expect(v!.data[0]).toBe(Math.fround(v!.data[0]!));
    expect(v!.data[0]).toBeCloseTo(interpret([g], env)[0]!.data[0]!, 5);
    expect(castFloats(castFloats([g], "f32"), "f64")[0]!.dtype).toBe("f64");
  });
});

