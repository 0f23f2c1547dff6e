/**
 * The Dormand–Prince RK45 solver: states against closed forms, forward sensitivities against closed
 * forms and central differences, the failure mode when maxSteps runs out, and the compiled CPU path
 * against the reference interpreter.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import { compiledBackend } from "../src/cpu/compiled/backend.ts";
import type { Node } from "../src/index.ts";

const cpu = compiledBackend();
const run = (outs: Node[], b: T.Bindings) => cpu.compileSync(outs).runSync(b).map((v) => Array.from(v.data));

const TIMES = [0.25, 1, 2.5, 4, 7.5, 10];
const ts = T.constant(TIMES, [TIMES.length]);

// Lotka–Volterra: du/dt = (α − βv)u, dv/dt = (−γ + δu)v.
const lotkaVolterra: T.OdeRhs = (_t, z, [th]) => {
  const u = T.index(z, 0), v = T.index(z, 1);
  const [a, b, g, d] = [0, 1, 2, 3].map((i) => T.index(th!, i)) as [Node, Node, Node, Node];
  return T.stack([T.mul(T.sub(a, T.mul(b, v)), u), T.mul(T.add(T.neg(g), T.mul(d, u)), v)]);
};

describe("odeRK45 states", () => {
  it("solves exponential decay to its tolerance, and its sensitivities are the closed form's derivatives", () => {
    const k = T.param("k"), y0 = T.param("y0", [1]);
    const states = T.odeRK45((_t, y, [kk]) => T.mul(T.neg(kk!), y), y0, 0, ts, [k], { rtol: 1e-8, atol: 1e-10, maxSteps: 200 });
    const [gk, gy0] = T.grad(T.sum(states), [k, y0]);
    const [y, dk, dy0] = run([states, gk!, gy0!], { k: [0.8], y0: [3] });
    TIMES.forEach((t, i) => expect(Math.abs(y![i]! - 3 * Math.exp(-0.8 * t))).toBeLessThan(1e-7 * 3 * Math.exp(-0.8 * t) + 1e-9));
    const want = (f: (t: number) => number) => TIMES.reduce((s, t) => s + f(t), 0);
    expect(dk![0]).toBeCloseTo(want((t) => -3 * t * Math.exp(-0.8 * t)), 6);
    expect(dy0![0]).toBeCloseTo(want((t) => Math.exp(-0.8 * t)), 6);
  });

  it("solves the harmonic oscillator y'' = −ω²y over several periods, with dy/dω", () => {
    const w = T.param("w"), y0 = T.constant([1, 0], [2]);
    const states = T.odeRK45((_t, y, [om]) => T.stack([T.index(y, 1), T.mul(T.neg(T.square(om!)), T.index(y, 0))]), y0, 0, ts, [w], {
      rtol: 1e-9, atol: 1e-9, maxSteps: 600,
    });
    const [gw] = T.grad(T.sum(T.index(states, 0, 1)), [w]);
    const omega = 2.1;
    const [y, dw] = run([states, gw!], { w: [omega] });
    TIMES.forEach((t, i) => {
      expect(Math.abs(y![2 * i]! - Math.cos(omega * t))).toBeLessThan(1e-7);
      expect(Math.abs(y![2 * i + 1]! + omega * Math.sin(omega * t))).toBeLessThan(1e-7);
    });
    // y = cos ωt: Σ_t ∂/∂ω cos ωt = −Σ t·sin ωt.
    expect(dw![0]).toBeCloseTo(TIMES.reduce((s, t) => s - t * Math.sin(omega * t), 0), 5);
  });

  it("lands on an output time equal to t0 and on repeated times, and reports the attempts it used", () => {
    const y0 = T.param("y0", [1]);
    const sol = T.odeRK45Solve((_t, y) => T.neg(y), y0, 1, T.constant([1, 2, 2, 3], [4]), [], { maxSteps: 100 });
    const [y, ok, steps] = run([sol.states, sol.ok, sol.steps], { y0: [1] });
    [1, 2, 2, 3].forEach((t, i) => expect(Math.abs(y![i]! - Math.exp(1 - t))).toBeLessThan(1e-5));
    expect(ok).toEqual([1]);
    expect(steps![0]).toBeGreaterThan(4);
    expect(steps![0]).toBeLessThan(100);
  });

  it("gives NaN states (a divergent transition for the sampler) and ok = false when maxSteps runs out", () => {
    const th = T.param("th", [4]), z0 = T.param("z0", [2]);
    const sol = T.odeRK45Solve(lotkaVolterra, z0, 0, ts, [th], { maxSteps: 5 });
    const lp = T.sum(T.log(sol.states));
    const [g] = T.grad(lp, [th]);
    const [y, ok, value] = run([sol.states, sol.ok, lp, g!], { th: [0.55, 0.028, 0.8, 0.024], z0: [33, 6] });
    expect(ok).toEqual([0]);
    expect(y!.every(Number.isNaN)).toBe(true);
    expect(value![0]).toBeNaN();
  });

  it("counts maxSteps per output interval, as Stan's max_num_steps: a solve may take more attempts in all", () => {
    const y0 = T.param("y0", [1]);
    const times = Array.from({ length: 12 }, (_, i) => i + 1);
    const sol = T.odeRK45Solve((_t, y) => T.neg(y), y0, 0, T.constant(times, [12]), [], { rtol: 1e-8, atol: 1e-10, maxSteps: 12 });
    const [y, ok, steps] = run([sol.states, sol.ok, sol.steps], { y0: [2] });
    expect(ok).toEqual([1]);
    expect(steps![0]).toBeGreaterThan(12);
    times.forEach((t, i) => expect(Math.abs(y![i]! - 2 * Math.exp(-t))).toBeLessThan(1e-7 * 2 * Math.exp(-t) + 1e-10));
  });

  it("rejects an rhs that reads a parameter from its closure, a state of the wrong shape and bad options, saying what to do", () => {
    const k = T.param("k"), y0 = T.param("y0", [1]);
    expect(() => T.odeRK45((_t, y) => T.mul(k, y), y0, 0, ts)).toThrow(/pass what depends on parameters through theta/);
    expect(() => T.odeRK45((_t, y) => T.concat([y, y]), y0, 0, ts)).toThrow(T.OdeError);
    expect(() => T.odeRK45((_t, y) => y, T.param("s"), 0, ts)).toThrow(/reshape a scalar state/);
    expect(() => T.odeRK45((_t, y) => y, y0, 0, ts, [], { maxSteps: 0 })).toThrow(T.OdeError);
  });
});

describe("odeRK45 sensitivities", () => {
  // Tight tolerances make the solution smooth in the parameters to ~1e-11, so central differences
  // with a step of 1e-5 are good to ~1e-6 relative: well inside the comparison's 1e-4.
  const th = T.param("th", [4]), z0 = T.param("z0", [2]), wts = T.data("wts", [TIMES.length, 2]);
  const states = T.odeRK45(lotkaVolterra, z0, 0, ts, [th], { rtol: 1e-11, atol: 1e-11, maxSteps: 1500 });
  const L = T.sum(T.mul(T.log(states), wts));
  const [gth, gz0] = T.grad(L, [th, z0]);
  const value = cpu.compileSync([L]);
  const gradient = cpu.compileSync([gth!, gz0!]);

  it("Lotka–Volterra: the gradient of a weighted sum of log states equals central differences (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.double({ min: 0.4, max: 0.7, noNaN: true }), fc.double({ min: 0.02, max: 0.035, noNaN: true }), fc.double({ min: 0.6, max: 1, noNaN: true }), fc.double({ min: 0.018, max: 0.03, noNaN: true })),
        fc.tuple(fc.double({ min: 25, max: 40, noNaN: true }), fc.double({ min: 4, max: 8, noNaN: true })),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 2 * TIMES.length, maxLength: 2 * TIMES.length }),
        (thv, z0v, w) => {
          const at = (t: readonly number[], z: readonly number[]) => value.runSync({ th: [...t], z0: [...z], wts: w })[0]!.data[0]!;
          const [g1, g2] = gradient.runSync({ th: [...thv], z0: [...z0v], wts: w });
          const fd = (x: readonly number[], i: number, f: (x: number[]) => number) => {
            const h = 1e-5 * Math.abs(x[i]!);
            const up = [...x], down = [...x];
            up[i]! += h;
            down[i]! -= h;
            return (f(up) - f(down)) / (up[i]! - down[i]!);
          };
          const scale = 1 + w.reduce((s, v) => s + Math.abs(v), 0);
          thv.forEach((_, i) => {
            const want = fd(thv, i, (x) => at(x, z0v));
            expect(Math.abs(g1!.data[i]! - want), `d/d theta[${i}]`).toBeLessThan(1e-4 * (Math.abs(want) + scale));
          });
          z0v.forEach((_, i) => {
            const want = fd(z0v, i, (x) => at(thv, x));
            expect(Math.abs(g2!.data[i]! - want), `d/d z0[${i}]`).toBeLessThan(1e-4 * (Math.abs(want) + scale / 30));
          });
        },
      ),
      { numRuns: 8 },
    );
  });

  it("the compiled CPU path equals the reference interpreter (states and gradient)", () => {
    const b = { th: [0.55, 0.028, 0.8, 0.024], z0: [33, 6], wts: Array.from({ length: 2 * TIMES.length }, (_, i) => Math.sin(i)) };
    const shortStates = T.odeRK45(lotkaVolterra, z0, 0, ts, [th], { rtol: 1e-6, atol: 1e-6, maxSteps: 300 });
    const outs = [shortStates, ...T.grad(T.sum(T.mul(T.log(shortStates), wts)), [th, z0])];
    const got = run(outs, b);
    T.interpret(outs, b).forEach((want, k) => want.data.forEach((v, i) => expect(got[k]![i]!).toBeCloseTo(v, 8)));
  });
});

describe("odeRK45 states that decay far below atol", () => {
  // A random initial point of the Lotka–Volterra posterior (Stan's uniform(−2, 2) on the log scale,
  // seed 1's fourth chain): the prey falls as e^(−15t) from 0.25 to ~1e-21 and recovers. With the
  // error scaled by atol + rtol·|y| alone the prey came out 1e-6 … 1e-9 (no significant digit), and
  // the gradient of Σ log z had the wrong sign in 5 of 6 coordinates against central differences.
  const th = T.param("th", [4]), z0 = T.param("z0", [2]);
  const times = Array.from({ length: 20 }, (_, i) => i + 1);
  const at = { th: [0.743, 5.47, 0.268, 0.246], z0: [0.251, 2.78] };
  const solve = (maxSteps: number) => T.odeRK45Solve(lotkaVolterra, z0, 0, T.constant(times, [20]), [th], { rtol: 1e-6, atol: 1e-5, maxSteps });

  // RK4 on log u, log v (their equations are d log u = α − βv, d log v = −γ + δu): exact relative values down to any size.
  function logSpaceRk4(p: readonly number[], y0: readonly number[], h: number): number[][] {
    const [a, b, g, d] = p as [number, number, number, number];
    const f = (L: readonly number[]) => [a - b * Math.exp(L[1]!), -g + d * Math.exp(L[0]!)];
    let L = y0.map(Math.log), t = 0;
    return times.map((target) => {
      const n = Math.ceil((target - t) / h), s = (target - t) / n;
      for (let i = 0; i < n; i++) {
        const k1 = f(L), k2 = f(L.map((x, j) => x + (s / 2) * k1[j]!)), k3 = f(L.map((x, j) => x + (s / 2) * k2[j]!)), k4 = f(L.map((x, j) => x + s * k3[j]!));
        L = L.map((x, j) => x + (s / 6) * (k1[j]! + 2 * k2[j]! + 2 * k3[j]! + k4[j]!));
      }
      t = target;
      return L.map(Math.exp);
    });
  }

  it("keep rtol's relative digits however small, where the solve has the attempts; fail (NaN) where it has not", () => {
    // Constant inputs: no sensitivities to compile.
    const fixed = (maxSteps: number) => T.odeRK45Solve(lotkaVolterra, T.constant(at.z0, [2]), 0, T.constant(times, [20]), [T.constant(at.th, [4])], { rtol: 1e-6, atol: 1e-5, maxSteps });
    const long = fixed(1000), short = fixed(30);
    const [y, ok, y30, ok30] = run([long.states, long.ok, short.states, short.ok], {});
    expect(ok).toEqual([1]);
    const want = logSpaceRk4(at.th, at.z0, 1e-4);
    expect(Math.min(...want.map((r) => r[0]!))).toBeLessThan(1e-20);
    want.forEach((r, i) => r.forEach((v, k) => expect(Math.abs(y![2 * i + k]! / v - 1), `z[${i}, ${k}] = ${y![2 * i + k]} against ${v}`).toBeLessThan(1e-4)));
    // A budget of 30 attempts an interval cannot resolve the fall: no state rather than a wrong one.
    expect(ok30).toEqual([0]);
    expect(y30!.every(Number.isNaN)).toBe(true);
  });

  it("give Σ log z a gradient equal to its central differences", () => {
    const L = T.sum(T.log(solve(1000).states));
    const value = cpu.compileSync([L]), gradient = cpu.compileSync(T.grad(L, [th, z0]));
    const f = (t: readonly number[], z: readonly number[]) => value.runSync({ th: [...t], z0: [...z] })[0]!.data[0]!;
    const [gth, gz0] = gradient.runSync(at).map((v) => Array.from(v.data));
    const fd = (x: readonly number[], i: number, g: (x: number[]) => number) => {
      const h = 1e-6 * Math.abs(x[i]!);
      const up = [...x], down = [...x];
      up[i]! += h;
      down[i]! -= h;
      return (g(up) - g(down)) / (up[i]! - down[i]!);
    };
    // The states carry ~1e-6 relative error that varies with the attempt sequence; over a step of 1e-6 that is up to ~1 in a derivative of ~1e3–1e5.
    at.th.forEach((_, i) => {
      const want = fd(at.th, i, (x) => f(x, at.z0));
      expect(Math.abs(gth![i]! - want), `d/d theta[${i}]: ${gth![i]} against ${want}`).toBeLessThan(1e-3 * Math.abs(want) + 1);
    });
    at.z0.forEach((_, i) => {
      const want = fd(at.z0, i, (x) => f(at.th, x));
      expect(Math.abs(gz0![i]! - want), `d/d z0[${i}]: ${gz0![i]} against ${want}`).toBeLessThan(1e-3 * Math.abs(want) + 1);
    });
  });
});

describe("scans without xs and ys stop at a fixed point of their carries", () => {
  it("give the values of the full-length loop on the compiled path and the interpreter, NaN and −0 carries included", () => {
    const x = T.param("x", [3]);
    // min(c + 1, 5) reaches its fixed point; 1 − b toggles and never does; NaN stays NaN; −0·c is −0 from the first step on.
    const { carry } = T.scan(([c, b, nan, z]) => ({
      carry: [T.minimum(T.add(c!, 1), 5), T.sub(1, b!), T.add(nan!, 1), T.mul(-0, T.abs(z!))],
    }), [x, T.constant(0), T.constant(NaN), T.constant(1)], [], [], { length: 1000 });
    const want = [[5, 5, 5], [0], [NaN], [-0]];
    const got = run(carry, { x: [0, 3, 7] });
    const ref = T.interpret(carry, { x: [0, 3, 7] }).map((v) => Array.from(v.data));
    [got, ref].forEach((g) => g.forEach((v, k) => v.forEach((vi, i) => expect(Object.is(vi, want[k]![i]!), `carry ${k}[${i}] = ${vi}`).toBe(true))));
  });
});
