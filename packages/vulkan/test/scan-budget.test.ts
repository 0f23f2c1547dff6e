// The loop budget of scans: scanLoopIterations counts the loops renderScan emits (checked against the
// loops of the rendered GLSL, property-based), planProgram refuses a scan kernel whose thread could
// pass llvmpipe's cap, and on lavapipe the longest scan the check lets through runs to its end.
// Likewise one thread's argsort, Cholesky factor and triangular solve.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { add, argsort, cholesky, cumsum, interpret, matmul, mul, odeRK45Solve, param, scan, stack, sum, tanh, transpose, triangularSolve, vmap, type Node } from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { planProgram } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { ScanLoopBudgetError, scanLoopIterations } from "../src/codegen/scan-budget.ts";
import { usableDevices } from "../src/devices.ts";

const { h200, lavapipe } = REFERENCE_LIMITS;
const device = usableDevices()[0];

// Loop iterations of GLSL source, each `for (int v = 0; v < N; v++)` counted N times per run of its
// enclosing loops: what the scan renderer emits (its loops have literal bounds and no early exit but the fixed point's).
function glslLoopIterations(source: string): number {
  let total = 0, pending: number | null = null;
  const runs = [1];
  for (const token of source.split(/(\{|\}|for \(int \w+ = 0; \w+ < \d+; \w+\+\+\))/)) {
    const m = /^for \(int \w+ = 0; \w+ < (\d+);/.exec(token);
    if (m) pending = Number(m[1]);
    else if (token === "{") {
      const outer = runs[runs.length - 1]!;
      if (pending !== null) total += outer * pending;
      runs.push(outer * (pending ?? 1));
      pending = null;
    } else if (token === "}") runs.pop();
  }
  return total;
}

// The scan kernel of a one-output plan and its main function's loops.
function renderedScan(out: Node): { scan: Node; loops: number } {
  const plan = planProgram([out], h200, () => "");
  const k = plan.kernels.find((kk) => kk.nodes.some((n) => n.op === "scan"))!;
  return { scan: k.nodes.find((n) => n.op === "scan")!, loops: glslLoopIterations(k.source.slice(k.source.indexOf("void main"))) };
}

// x ← tanh(M·x + cumsum(x)) + Σx/10 (bounded), with ys of x when asked, and an inner scan of the same shape when nested.
function recurrence(n: number, length: number, withYs: boolean, nested: boolean): Node {
  const x0 = param("x0", [n]), M = param("M", [n, n]);
  const step = (x: Node, m: Node) => add(tanh(add(matmul(m, x), cumsum(x, 0))), mul(sum(x, [0]), 0.1));
  const res = scan(([x], _xs, [m]) => {
    const inner = nested ? scan(([y], _ys, [mm]) => ({ carry: [step(y!, mm!)] }), [x!], [], [m!], { length: 3 }).carry[0]! : x!;
    const next = step(inner, m!);
    return { carry: [next], ys: withYs ? [mul(next, 2)] : [] };
  }, [x0], [], [M], { length });
  return withYs ? add(sum(res.ys[0]!, [0, 1]), sum(res.carry[0]!, [0])) : res.carry[0]!;
}

describe("scanLoopIterations", () => {
  it("counts the loops of the rendered scan: elementwise maps, reductions, matmuls, cumsums, ys and nested scans (fast-check)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 40 }), fc.boolean(), fc.boolean(), (n, length, withYs, nested) => {
        const { scan: s, loops } = renderedScan(recurrence(n, length, withYs, nested));
        expect(scanLoopIterations(s)).toBe(loops);
      }),
      { numRuns: 30 },
    );
  });

  it("counts the ODE solver's interval scans batched over chains as rendered", () => {
    const th = param("th", [4]), z0 = param("z0", [2]);
    const lv = (_t: Node, z: Node, [p]: Node[]) => {
      const [u, v] = [z.at(1), z.at(2)];
      return stack([p!.at(1).sub(p!.at(2).mul(v)).mul(u), p!.at(3).neg().add(p!.at(4).mul(u)).mul(v)]);
    };
    const sol = odeRK45Solve(lv, z0, 0, param("ts", [3]), [th], { maxSteps: 25 });
    const [batched] = vmap([sum(sol.states, [0, 1])], new Map([[th, 4], [z0, 4]]));
    const plan = planProgram([batched!], h200, () => "");
    const scans = plan.kernels.filter((k) => k.nodes.some((n) => n.op === "scan"));
    expect(scans).toHaveLength(3);
    for (const k of scans) {
      const s = k.nodes.find((n) => n.op === "scan")!;
      expect(scanLoopIterations(s)).toBeGreaterThanOrEqual(glslLoopIterations(k.source.slice(k.source.indexOf("void main"))));
    }
  });
});

describe("the plan-time loop budget of scans (llvmpipe)", () => {
  const counter = (length: number) => scan(([c]) => ({ carry: [add(c!, 1)] }), [param("c0", [1])], [], [], { length }).carry[0]!;
  // The same with each step's value as a y: a scan that cannot be split.
  const counterYs = (length: number) => {
    const r = scan(([c]) => ({ carry: [add(c!, 1)], ys: [mul(c!, 2)] }), [param("c0", [1])], [], [], { length });
    return add(sum(r.ys[0]!, [0, 1]), sum(r.carry[0]!, [0]));
  };
  // One step of the counter: the step loop, the carry copied out and back.
  const fits = Math.floor((lavapipe.maxLoopIterations - 2) / 3);
  const scanKernels = (out: Node, limits: typeof lavapipe) => planProgram([out], limits, () => "").kernels.filter((k) => k.nodes.some((n) => n.op === "scan"));

  it("splits a scan of carries alone that is too long for one thread into a chain of scans that fit", () => {
    expect(scanKernels(counter(fits), lavapipe)).toHaveLength(1);
    expect(scanKernels(counter(fits + 1), lavapipe)).toHaveLength(2);
    expect(scanKernels(counter(10 * fits), lavapipe)).toHaveLength(10);
    expect(scanKernels(counter(10 * fits), h200)).toHaveLength(1);
    for (const k of scanKernels(counter(10 * fits + 7), lavapipe)) expect(scanLoopIterations(k.nodes.find((n) => n.op === "scan")!)).toBeLessThanOrEqual(lavapipe.maxLoopIterations);
  });

  it("refuses a scan with ys one step longer than fits, with the longest that does and the ways out", () => {
    let error: unknown;
    try {
      planProgram([counterYs(100_000)], lavapipe, () => "");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScanLoopBudgetError);
    const longest = (error as ScanLoopBudgetError).maxLength;
    expect(longest).toBeGreaterThan(1000);
    expect(() => planProgram([counterYs(longest)], lavapipe, () => "")).not.toThrow();
    expect(() => planProgram([counterYs(longest + 1)], lavapipe, () => "")).toThrow(ScanLoopBudgetError);
    expect((error as Error).message).toMatch(new RegExp(`give it at most ${longest} steps, batch fewer chains.*GPU or on the CPU backend`));
    expect(() => planProgram([counterYs(10 * longest)], h200, () => "")).not.toThrow();
  });

  it.runIf(device !== undefined && device.driver === "llvmpipe")("runs a split scan of carries alone to its end on lavapipe", async () => {
    const backend = await vulkanBackend();
    const got = await (await backend.compile([counter(3 * fits + 5)])).run({ c0: [0] });
    expect(got[0]!.data[0]).toBe(3 * fits + 5);
  });

  it.runIf(device !== undefined && device.driver === "llvmpipe")("lets through only scans that run to their end on lavapipe", async () => {
    const backend = await vulkanBackend();
    const got = await (await backend.compile([counter(fits)])).run({ c0: [0] });
    expect(got[0]!.data[0]).toBe(fits);
    // The body with loops of its own, at the longest length the check allows.
    let longest = 0;
    try {
      planProgram([recurrence(3, 100_000, true, true)], lavapipe, () => "");
    } catch (e) {
      longest = (e as ScanLoopBudgetError).maxLength;
    }
    expect(longest).toBeGreaterThan(100);
    const bindings = { x0: [0.1, -0.2, 0.3], M: [0.2, 0.1, 0, -0.1, 0.3, 0.1, 0, 0.2, -0.2] };
    // The longest with ys, and three times as long without (split into a chain of scans).
    for (const out of [recurrence(3, longest, true, true), recurrence(3, 3 * longest, false, true)]) {
      const want = interpret([out], bindings)[0]!.data;
      const res = await (await backend.compile([out])).run(bindings);
      Array.from(want).forEach((v, i) => expect(res[0]!.data[i]).toBeCloseTo(v, 4));
    }
  });
});

describe("the plan-time loop budget of one thread's argsort, Cholesky factor and triangular solve (llvmpipe)", () => {
  const spd = (n: number) => add(matmul(param("a", [n, n]), transpose(param("a", [n, n]))), mul(param("eye", [n, n]), n));
  const cases = [
    // The largest that fits and the smallest that does not, by the counts of scan-budget.ts.
    { name: "argsort", fits: argsort(param("x", [3000]), 0), past: argsort(param("x", [3500]), 0) },
    { name: "cholesky", fits: cholesky(spd(70)), past: cholesky(spd(72)) },
    { name: "triangular_solve", fits: triangularSolve(cholesky(spd(20)), param("b", [20, 1]), { lower: true }), past: triangularSolve(param("L", [400, 400]), param("b", [400, 1]), { lower: true }) },
  ];
  for (const c of cases) {
    it(`refuses a ${c.name} whose thread would be cut short, naming the way out; a GPU takes it`, () => {
      expect(() => planProgram([c.fits], lavapipe, () => "")).not.toThrow();
      expect(() => planProgram([c.past], lavapipe, () => "")).toThrow(new RegExp(`^${c.name} .* more than the 65535 this driver \\(llvmpipe\\) runs before cutting loops short: run it on a GPU or on the CPU backend`));
      expect(() => planProgram([c.past], h200, () => "")).not.toThrow();
    });
  }

  it.runIf(device !== undefined && device.driver === "llvmpipe")("lets through only a Cholesky factor that runs to its end on lavapipe", async () => {
    const n = 70;
    const out = cholesky(spd(n));
    const bindings = { a: Float64Array.from({ length: n * n }, (_, i) => Math.fround(Math.sin(i * 1.7))), eye: Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0)) };
    const got = await (await (await vulkanBackend()).compile([out])).run(bindings);
    const want = interpret([out], bindings)[0]!.data;
    Array.from(want).forEach((v, i) => expect(Math.abs(got[0]!.data[i]! - v)).toBeLessThan(1e-4 * Math.max(1, Math.abs(v))));
  });

  it.runIf(device !== undefined && device.driver === "llvmpipe")("lets through only an argsort that runs to its end on lavapipe", async () => {
    const out = argsort(param("x", [3000]), 0);
    const bindings = { x: Float64Array.from({ length: 3000 }, (_, i) => Math.fround(Math.sin(i * 12.9898) * 7)) };
    const got = await (await (await vulkanBackend()).compile([out])).run(bindings);
    expect(Array.from(got[0]!.data)).toEqual(Array.from(interpret([out], bindings)[0]!.data));
  });
});
