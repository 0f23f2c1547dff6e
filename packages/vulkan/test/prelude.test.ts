// The GLSL prelude (shaders/prelude) run on lavapipe against the CPU reference: every function
// over its domain (dense grids, fast-check samples, edge cases), f32 and f64, all points of a
// dtype in one dispatch of one shader that switches on a per-element op code.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preludeSource, type PreludeDType } from "../src/prelude.ts";
import { VulkanManager } from "../src/index.ts";
import { BINARY, UNARY, polygamma } from "../../tensor/src/cpu/scalar.ts";
import { boxMullerCos, boxMullerSin, philox4x32, uniformFromWords } from "../../ppl/src/random/index.ts";
import { compile, lavapipe } from "./helpers.ts";

const device = lavapipe();
const manager = new VulkanManager(device.index);
afterAll(() => manager.destroy());

// ---------------------------------------------------------------------------------------------
// Error measures.

/** Spacing of doubles at |v| (v finite). */
function ulp64(v: number): number {
  const a = Math.abs(v);
  if (a < 2 ** -1022) return 2 ** -1074;
  return 2 ** (Math.floor(Math.log2(a)) - 52) * (2 ** Math.floor(Math.log2(a)) > a ? 0.5 : 1);
}
/** Spacing of floats at |v| (normal range; flushed subnormals are treated as normal). */
function ulp32(v: number): number {
  const a = Math.abs(v);
  if (a < 2 ** -126) return 2 ** -149;
  return 2 ** (Math.floor(Math.log2(a)) - 23) * (2 ** Math.floor(Math.log2(a)) > a ? 0.5 : 1);
}

/** Error of `got` against `want` in ulps of `want`; 0 for equal values (NaN = NaN), inf for a wrong special. */
function ulpError(got: number, want: number, dtype: PreludeDType): number {
  if (Number.isNaN(want) || Number.isNaN(got)) return Number.isNaN(want) && Number.isNaN(got) ? 0 : Infinity;
  if (got === want) return 0;
  if (!Number.isFinite(want) || !Number.isFinite(got)) return Infinity;
  return Math.abs(got - want) / (dtype === "f64" ? ulp64(want) : ulp32(want));
}

// ---------------------------------------------------------------------------------------------
// The functions under test.

type Ref = (x: number, y: number) => number;
/** Allowed absolute error at a point, beyond the ulp budget (for zeros of the function etc.). */
type AbsTol = (x: number, y: number, want: number) => number;

interface Fn {
  name: string;
  /** GLSL expression in a, b (of the shader's REAL type). */
  glsl: string;
  ref: Ref;
  /** Points (x, y) per dtype; y is ignored by unary functions. */
  points: (dtype: PreludeDType) => [number, number][];
  /** Allowed error in ulps of the reference. */
  ulps: Record<PreludeDType, number>;
  /** Optional absolute-error allowance, used where relative accuracy is not attainable. */
  abs?: Record<PreludeDType, AbsTol>;
}

const SPECIALS = [0, -0, Infinity, -Infinity, NaN, 1, -1, 0.5, -0.5, 2, 1e-300, -1e-300, 5e-324];

/** Deterministic fast-check samples of doubles in [min, max]. */
function sample(min: number, max: number, n: number, seed: number): number[] {
  return fc.sample(fc.double({ min, max, noNaN: true }), { numRuns: n, seed });
}
/** n points evenly spaced on [a, b]. */
function grid(a: number, b: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => a + ((b - a) * i) / (n - 1));
}
/** n points evenly spaced in log scale on [a, b] (a, b > 0). */
function logGrid(a: number, b: number, n: number): number[] {
  return grid(Math.log(a), Math.log(b), n).map(Math.exp);
}
/** Values near v: v*(1 +- k*2^-52) for k = 1..4 and v +- tiny offsets. */
function near(v: number): number[] {
  const out = [v];
  for (let k = 1; k <= 4; k++) out.push(v * (1 + k * 2 ** -52), v * (1 - k * 2 ** -52));
  for (const d of [1e-15, 1e-12, 1e-9, 1e-6, 1e-3]) out.push(v + d, v - d);
  return out;
}
const unary = (xs: number[]): [number, number][] => xs.map((x) => [x, 0]);
const pairs = (xs: number[], ys: number[]): [number, number][] => xs.map((x, i) => [x, ys[i % ys.length]!]);

/** Domain limits that keep f32 results normal (lavapipe may flush f32 subnormals). */
const lim = (dtype: PreludeDType, f64: number, f32: number) => (dtype === "f64" ? f64 : f32);

const sinpiAbs = (x: number) => Math.abs(Math.sin(Math.PI * (x - 2 * Math.trunc(x / 2))));

const FUNCTIONS: Fn[] = [
  {
    name: "exp", glsl: "ppl_exp(a)", ref: (x) => Math.exp(x), ulps: { f64: 1, f32: 2 },
    points: (d) => unary([
      ...grid(lim(d, -745, -87), lim(d, 709.7, 88.7), 3000), ...sample(lim(d, -745, -87), lim(d, 709.7, 88.7), 2000, 1),
      ...sample(-1e-3, 1e-3, 300, 2), ...SPECIALS, 709.78, 709.79, 710, -745.13, -745.14, -746, 88.72, 88.73, -103.9, -104,
    ]),
  },
  {
    name: "expm1", glsl: "ppl_expm1(a)", ref: (x) => Math.expm1(x), ulps: { f64: 1, f32: 2 },
    points: (d) => unary([
      ...grid(-60, lim(d, 709.7, 88.7), 3000), ...sample(-2, 2, 1000, 3), ...sample(-1e-8, 1e-8, 300, 4),
      ...[0.34, 0.35, 0.7, 1.03, 1.04, -0.34, -0.35, -0.7, -1.03, -1.04, 38.8, 38.9, -38.8, -38.9], ...SPECIALS, 710, -800,
    ]),
  },
  {
    name: "log", glsl: "ppl_log(a)", ref: (x) => Math.log(x), ulps: { f64: 1, f32: 2 },
    points: (d) => unary([
      ...grid(lim(d, -1074, -125), lim(d, 1023, 127), 2000).map((e) => 2 ** e * 1.2345),
      ...sample(0, 4, 1500, 5), ...sample(0.9, 1.1, 500, 6), ...near(1), ...near(2), ...near(0.5), ...SPECIALS, -2,
    ]),
  },
  {
    name: "log1p", glsl: "ppl_log1p(a)", ref: (x) => Math.log1p(x), ulps: { f64: 1, f32: 2 },
    points: (d) => unary([
      ...sample(-1, 3, 2000, 7), ...sample(-1e-6, 1e-6, 500, 8), ...logGrid(1e-30, lim(d, 1e300, 1e38), 1000),
      ...logGrid(1e-30, 1, 500).map((v) => -v), ...near(-1 + 2 ** -20), 0.41, 0.42, -0.29, -0.3, ...SPECIALS, -2,
    ]),
  },
  {
    name: "sqrt", glsl: "ppl_sqrt(a)", ref: (x) => Math.sqrt(x), ulps: { f64: 0, f32: 0 },
    points: (d) => unary([...logGrid(lim(d, 1e-300, 1e-37), lim(d, 1e300, 1e38), 1000), ...SPECIALS]),
  },
  {
    name: "rsqrt", glsl: "ppl_rsqrt(a)", ref: (x) => 1 / Math.sqrt(x), ulps: { f64: 1, f32: 1 },
    points: (d) => unary([...logGrid(lim(d, 1e-300, 1e-37), lim(d, 1e300, 1e37), 1000), ...SPECIALS]),
  },
  {
    name: "sin", glsl: "ppl_sin(a)", ref: (x) => Math.sin(x), ulps: { f64: 1, f32: 2 },
    points: () => unary([
      ...grid(-10, 10, 2000), ...sample(-1e5, 1e5, 2000, 9), ...sample(-1e-3, 1e-3, 200, 10),
      ...Array.from({ length: 200 }, (_, k) => ((k - 100) * Math.PI) / 2), ...SPECIALS,
    ]),
    abs: { f64: () => 0, f32: () => 1e-9 },
  },
  {
    name: "cos", glsl: "ppl_cos(a)", ref: (x) => Math.cos(x), ulps: { f64: 1, f32: 2 },
    points: () => unary([
      ...grid(-10, 10, 2000), ...sample(-1e5, 1e5, 2000, 11), ...sample(-1e-3, 1e-3, 200, 12),
      ...Array.from({ length: 200 }, (_, k) => ((k - 100) * Math.PI) / 2), ...SPECIALS,
    ]),
    abs: { f64: () => 0, f32: () => 1e-9 },
  },
  {
    name: "tanh", glsl: "ppl_tanh(a)", ref: (x) => Math.tanh(x), ulps: { f64: 2, f32: 2 },
    points: () => unary([...grid(-25, 25, 3000), ...sample(-1e-4, 1e-4, 300, 13), ...SPECIALS, 1, -1, 22, 9]),
  },
  {
    name: "sigmoid", glsl: "ppl_sigmoid(a)", ref: (x) => UNARY.sigmoid(x), ulps: { f64: 2, f32: 2 },
    points: (d) => unary([...grid(lim(d, -740, -87), lim(d, 740, 87), 3000), ...sample(-5, 5, 500, 14), ...SPECIALS]),
  },
  {
    name: "softplus", glsl: "ppl_softplus(a)", ref: (x) => UNARY.softplus(x), ulps: { f64: 2, f32: 2 },
    points: (d) => unary([...grid(lim(d, -740, -87), 800, 3000), ...sample(-5, 5, 500, 15), ...SPECIALS]),
  },
  {
    name: "log_sigmoid", glsl: "ppl_log_sigmoid(a)", ref: (x) => UNARY.log_sigmoid(x), ulps: { f64: 2, f32: 2 },
    points: (d) => unary([...grid(-800, lim(d, 740, 87), 3000), ...sample(-5, 5, 500, 16), ...SPECIALS]),
  },
  {
    name: "erf", glsl: "ppl_erf(a)", ref: (x) => UNARY.erf(x), ulps: { f64: 2, f32: 2 },
    points: () => unary([...grid(-7, 7, 3000), ...sample(-3, 3, 1000, 17), ...sample(-1e-6, 1e-6, 200, 18), ...SPECIALS, 0.84375, 1.25, 2.857142857142857, 6]),
  },
  {
    name: "erfc", glsl: "ppl_erfc(a)", ref: (x) => UNARY.erfc(x), ulps: { f64: 2, f32: 3 },
    points: (d) => unary([...grid(-7, lim(d, 27.2, 9.1), 3000), ...sample(-3, lim(d, 27, 9), 1000, 19), ...SPECIALS, 0.84375, 1.25, 2.857142857142857, 28]),
  },
  {
    name: "lgamma", glsl: "ppl_lgamma(a)", ref: (x) => UNARY.lgamma(x), ulps: { f64: 2, f32: 3 },
    points: (d) => unary([
      ...logGrid(1e-30, lim(d, 1e300, 1e36), 1500), ...sample(0, 10, 1500, 20), ...near(1), ...near(2), ...near(1.4616321449683622),
      ...sample(-40, 0, 1000, 21).filter((x) => x !== Math.floor(x)), ...grid(-9.99, -0.01, 500), ...SPECIALS, -3, -1e20,
    ]),
    // Near its zeros (1, 2 and the pairs between negative poles) lgamma is small and only
    // absolute accuracy relative to the magnitude of the terms that cancel is meaningful.
    abs: {
      f64: (x) => (x < 0 ? 1e-14 * (1 + Math.abs(Math.log(Math.PI / (sinpiAbs(x) * Math.abs(x))))) : 1e-16),
      f32: (x) => (x < 0 ? 1e-6 * (1 + Math.abs(Math.log(Math.PI / (sinpiAbs(x) * Math.abs(x))))) : 1e-7),
    },
  },
  {
    name: "digamma", glsl: "ppl_digamma(a)", ref: (x) => polygamma(0, x), ulps: { f64: 4, f32: 4 },
    points: (d) => unary([
      ...logGrid(1e-30, lim(d, 1e300, 1e36), 1500), ...sample(0, 20, 1500, 22), ...near(1.4616321449683622),
      ...sample(-30, 0, 1000, 23).filter((x) => x !== Math.floor(x)), ...SPECIALS, -3,
    ]),
    // For x < 0, psi is the difference of psi(1-x) and pi*cot(pi*x): absolute error scales with those.
    abs: {
      f64: (x) => (x < 0 ? 1e-14 * (Math.abs(polygamma(0, 1 - x)) + Math.PI / Math.abs(Math.tan(Math.PI * x))) : 0),
      f32: (x) => (x < 0 ? 1e-6 * (Math.abs(polygamma(0, 1 - x)) + Math.PI / Math.abs(Math.tan(Math.PI * x))) : 0),
    },
  },
  ...[1, 2, 3].map((n): Fn => ({
    name: `polygamma(${n})`, glsl: `ppl_polygamma(${n}, a)`, ulps: { f64: 8, f32: 8 },
    // The CPU reference overflows to +inf for tiny x > 0 when n = 2; the limit is -inf.
    ref: (x) => (n === 2 && x > 0 && polygamma(n, x) === Infinity ? -Infinity : polygamma(n, x)),
    points: (d) => unary([
      ...logGrid(lim(d, 1e-60, 1e-8), lim(d, 1e60, 1e8), 1500), ...sample(0, 30, 1500, 24 + n),
      ...sample(-20, 0, 500, 28 + n).filter((x) => Math.fround(x) !== Math.floor(Math.fround(x)) && x !== Math.floor(x)),
      ...SPECIALS.filter((x) => x !== -1 && x !== 0),
    ]),
    // For x < 0 (reflection): absolute error relative to the reflected terms.
    abs: {
      f64: (x) => (x < 0 ? 1e-13 * (Math.abs(polygamma(n, 1 - x)) + (Math.PI / sinpiAbs(x)) ** (n + 1) * 6) : 0),
      f32: (x) => (x < 0 ? 1e-5 * (Math.abs(polygamma(n, 1 - x)) + (Math.PI / sinpiAbs(x)) ** (n + 1) * 6) : 0),
    },
  })),
  {
    name: "pow", glsl: "ppl_pow(a, b)", ref: (x, y) => Math.pow(x, y), ulps: { f64: 2, f32: 2 },
    points: (d) => [
      ...pairs(sample(0, 10, 2000, 32), sample(-lim(d, 300, 30), lim(d, 300, 30), 2000, 33)),
      ...pairs(logGrid(1e-30, 1e30, 1000), sample(-lim(d, 10, 1.2), lim(d, 10, 1.2), 1000, 34)),
      ...pairs(sample(-10, 0, 500, 35), Array.from({ length: 41 }, (_, k) => k - 20)),
      ...pairs(near(1), [1e10, -1e10, 1e15, 0.5, 3]),
      ...SPECIALS.flatMap((x) => SPECIALS.map((y): [number, number] => [x, y])),
      ...[[-8, 1 / 3], [2, 1023], [2, 1024], [2, -1074], [2, -1075], [-2, 1023], [10, 308], [10, -323]].map(([a, b]) => [a!, b!] as [number, number]),
    ].filter(([x, y]) => {
      if (d === "f64") return true;
      const v = Math.abs(Math.pow(Math.fround(x), Math.fround(y)));
      return !(v > 0 && v < 2 ** -126) && !(v > 3.4e38 && Number.isFinite(v));
    }),
  },
  {
    name: "atan2", glsl: "ppl_atan2(a, b)", ref: (x, y) => Math.atan2(x, y), ulps: { f64: 1, f32: 2 },
    points: () => [
      ...pairs(sample(-10, 10, 2000, 36), sample(-10, 10, 2000, 37)),
      ...pairs(logGrid(1e-30, 1e30, 500), sample(-1e3, 1e3, 500, 38)),
      ...SPECIALS.flatMap((x) => SPECIALS.map((y): [number, number] => [x, y])),
    ],
  },
  {
    name: "mod", glsl: "ppl_mod(a, b)", ref: (x, y) => BINARY.mod(x, y), ulps: { f64: 0, f32: 0 },
    // Exact while |a/b| < 2^52 (2^23 for f32); larger quotients are documented as inexact.
    points: (d) => [
      ...pairs(sample(-1e6, 1e6, 2000, 39), sample(-100, 100, 2000, 40)),
      ...pairs(sample(-10, 10, 1000, 41), [3, -3, 0.1, -0.1, 2.5, -2.5]),
      ...SPECIALS.flatMap((x) => [3, -3, Infinity, -Infinity, 0, NaN].map((y): [number, number] => [x, y])),
    ].filter(([x, y]) => {
      const q = d === "f64" ? x / y : Math.fround(x) / Math.fround(y);
      return !(Math.abs(q) >= (d === "f64" ? 2 ** 52 : 2 ** 23)) || !Number.isFinite(x) || !Number.isFinite(y);
    }),
  },
  ...(["max", "min"] as const).map((op): Fn => ({
    name: op, glsl: `ppl_${op}(a, b)`, ref: (x, y) => BINARY[op](x, y), ulps: { f64: 0, f32: 0 },
    points: () => [...SPECIALS.flatMap((x) => SPECIALS.map((y): [number, number] => [x, y])), ...pairs(sample(-5, 5, 200, 42), sample(-5, 5, 200, 43))],
  })),
  ...(["sign", "floor", "ceil", "abs", "neg", "square", "reciprocal"] as const).map((op): Fn => ({
    name: op, glsl: `ppl_${op}(a)`, ref: (x) => UNARY[op](x), ulps: { f64: 0, f32: 0 },
    points: () => unary([...SPECIALS, ...sample(-100, 100, 300, 44)]),
  })),
];

// ---------------------------------------------------------------------------------------------
// One shader per dtype evaluates op[i](x[i], y[i]).

function mathShader(dtype: PreludeDType): string {
  const T = dtype === "f64" ? "double" : "float";
  const cases = FUNCTIONS.map((f, k) => `    case ${k}u: r = ${f.glsl}; break;`).join("\n");
  return `#version 450
${preludeSource(dtype)}
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Ops { uint op[]; };
layout(std430, binding = 1) readonly buffer Xs { ${T} xs[]; };
layout(std430, binding = 2) readonly buffer Ys { ${T} ys[]; };
layout(std430, binding = 3) writeonly buffer Out { ${T} outs[]; };
layout(push_constant) uniform Push { uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= n) return;
  ${T} a = xs[i];
  ${T} b = ys[i];
  ${T} r = ${T}(0);
  switch (op[i]) {
${cases}
  }
  outs[i] = r;
}
`;
}

interface Evaluated {
  x: number[];
  y: number[];
  got: number[];
}

/** Runs every function's points for `dtype` in one dispatch. */
async function evaluateAll(dtype: PreludeDType): Promise<Map<string, Evaluated>> {
  const Arr = dtype === "f64" ? Float64Array : Float32Array;
  const ops: number[] = [];
  const xs: number[] = [];
  const ys: number[] = [];
  FUNCTIONS.forEach((f, k) => {
    for (const [x, y] of f.points(dtype)) {
      ops.push(k);
      xs.push(x);
      ys.push(y);
    }
  });
  const n = ops.length;
  const algorithm = manager.algorithm(await compile(mathShader(dtype), { optimize: false }), { buffers: 4, pushConstantSize: 4 });
  const bufOps = manager.bufferFrom(Uint32Array.from(ops));
  const xArr = Arr.from(xs);
  const yArr = Arr.from(ys);
  const bufX = manager.bufferFrom(xArr);
  const bufY = manager.bufferFrom(yArr);
  const bufOut = manager.buffer(n * Arr.BYTES_PER_ELEMENT);
  const push = new Uint32Array([n]);
  const sequence = manager.sequence().dispatch(algorithm, [bufOps, bufX, bufY, bufOut], Math.ceil(n / 64), push);
  await sequence.submit();
  const out = new Arr(bufOut.read());
  const result = new Map<string, Evaluated>();
  FUNCTIONS.forEach((f, k) => {
    const e: Evaluated = { x: [], y: [], got: [] };
    for (let i = 0; i < n; i++) {
      if (ops[i] !== k) continue;
      e.x.push(xArr[i]!); // the inputs as the device saw them (rounded to f32 for f32)
      e.y.push(yArr[i]!);
      e.got.push(out[i]!);
    }
    result.set(f.name, e);
  });
  for (const b of [bufOps, bufX, bufY, bufOut]) b.destroy();
  sequence.destroy();
  algorithm.destroy();
  return result;
}

/** Max error per function, printed at the end for the record. */
const report: string[] = [];
afterAll(() => {
  if (report.length > 0) console.log(`prelude accuracy on ${device.name}\n${report.join("\n")}`);
});

for (const dtype of ["f32", "f64"] as const) {
  describe(`prelude ${dtype} on lavapipe`, () => {
    let results: Map<string, Evaluated> | undefined;
    beforeAll(async () => {
      if (dtype === "f64" && !device.features.shaderFloat64) return;
      results = await evaluateAll(dtype);
    }, 120_000);

    it("device supports the dtype", () => {
      if (dtype === "f64") {
        expect(device.features.shaderFloat64, `${device.name} lacks shaderFloat64: the f64 prelude cannot run`).toBe(true);
      }
    });

    for (const f of FUNCTIONS) {
      it(`${f.name} matches the CPU reference`, () => {
        if (results === undefined) throw new Error(`f64 not supported by ${device.name} (no shaderFloat64)`);
        const e = results.get(f.name)!;
        let worstUlp = 0;
        let worstRel = 0;
        const failures: string[] = [];
        for (let i = 0; i < e.got.length; i++) {
          const x = e.x[i]!;
          const y = e.y[i]!;
          let want = f.ref(x, y);
          if (dtype === "f32") want = Math.fround(want);
          const got = e.got[i]!;
          const err = ulpError(got, want, dtype);
          const absOk = f.abs !== undefined && Number.isFinite(want) && Math.abs(got - want) <= f.abs[dtype](x, y, want);
          if (!absOk) {
            worstUlp = Math.max(worstUlp, err);
            if (want !== 0 && Number.isFinite(want)) worstRel = Math.max(worstRel, Math.abs(got - want) / Math.abs(want));
          }
          if (err > f.ulps[dtype] && !absOk && failures.length < 8) {
            failures.push(`${f.name}(${x}${f.glsl.includes("b") ? `, ${y}` : ""}) = ${got}, want ${want} (${err.toFixed(2)} ulp)`);
          }
        }
        report.push(`${dtype} ${f.name.padEnd(14)} points ${String(e.got.length).padStart(5)}  max ${worstUlp.toFixed(2)} ulp  max rel ${worstRel.toExponential(2)}`);
        expect(failures, failures.join("\n")).toEqual([]);
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Philox4x32-10 and the variates built on it, against packages/ppl/src/random.

const RANDOM_SHADER = (f64: boolean) => `#version 450
${preludeSource(f64 ? "f64" : "f32")}
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { uint inputs[]; };      // counter (4), key (2)
layout(std430, binding = 1) writeonly buffer Words { uvec4 words[]; };
layout(std430, binding = 2) writeonly buffer F32 { vec4 f32s[]; };      // u0, u1, n0, n1
layout(std430, binding = 3) writeonly buffer F64 { ${f64 ? "dvec4" : "vec4"} f64s[]; };
layout(std430, binding = 4) writeonly buffer Raw { float rawU[]; };  // uniform_f32 of the first two input words
layout(push_constant) uniform Push { uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= n) return;
  rawU[i] = ppl_uniform_f32(inputs[6 * i], inputs[6 * i + 1]);
  uvec4 c = uvec4(inputs[6 * i], inputs[6 * i + 1], inputs[6 * i + 2], inputs[6 * i + 3]);
  uvec4 w = ppl_philox4x32(c, uvec2(inputs[6 * i + 4], inputs[6 * i + 5]));
  words[i] = w;
  f32s[i] = vec4(ppl_uniform0_f32(w), ppl_uniform1_f32(w), ppl_normal0_f32(w), ppl_normal1_f32(w));
  ${f64 ? "f64s[i] = dvec4(ppl_uniform0_f64(w), ppl_uniform1_f64(w), ppl_normal0_f64(w), ppl_normal1_f64(w));" : "f64s[i] = vec4(0.0);"}
}
`;

describe("Philox4x32-10 and variates on lavapipe", () => {
  const f64 = device.features.shaderFloat64;
  // Known answers (Random123's kat_vectors), then pseudo-random counters and keys.
  const cases: number[][] = [
    [0, 0, 0, 0, 0, 0],
    [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0],
    [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff],
    // Edges of the f32 uniform (first two words = hi, lo): tiny values, ties (2^23 <= 2 lo + 1 < 2^24),
    // every shift width, and values that round up to 1.
    ...[[0, 0], [0, 1], [0, 2], [0, 0x3fffff], [0, 0x400000], [0, 0x400001], [0, 0x7ffffe], [0, 0x7fffff],
      [0, 0x800000], [0, 0xffffffff], [0x1000, 0], [0xfff, 0xffffffff], [0xfffff000, 0], [0xffffefff, 0xffffffff],
      [0xffffffff, 0xfffffffe], [0xffffffff, 0xffffffff], [0x80000000, 0x80000000]].map(([hi, lo]) => [hi!, lo!, 0, 0, 0, 0]),
    ...Array.from({ length: 53 }, (_, b) => (b < 32 ? [0, 2 ** b - 1 + 2 ** (b > 0 ? b - 1 : 0), 1, 2, 3, 4] : [2 ** (b - 20) >>> 0, 0x80000000, 1, 2, 3, 4])),
    ...fc.sample(fc.array(fc.nat({ max: 0xffffffff }), { minLength: 6, maxLength: 6 }), { numRuns: 20000, seed: 99 }),
  ];
  const n = cases.length;
  let words: Uint32Array;
  let f32s: Float32Array;
  let f64s: Float64Array | undefined;
  let rawU: Float32Array;
  beforeAll(async () => {
    const algorithm = manager.algorithm(await compile(RANDOM_SHADER(f64), { optimize: false }), { buffers: 5, pushConstantSize: 4 });
    const input = manager.bufferFrom(Uint32Array.from(cases.flat()));
    const bufWords = manager.buffer(n * 16);
    const bufF32 = manager.buffer(n * 16);
    const bufF64 = manager.buffer(n * (f64 ? 32 : 16));
    const bufRaw = manager.buffer(n * 4);
    const sequence = manager
      .sequence()
      .dispatch(algorithm, [input, bufWords, bufF32, bufF64, bufRaw], Math.ceil(n / 64), new Uint32Array([n]));
    await sequence.submit();
    words = new Uint32Array(bufWords.read());
    f32s = new Float32Array(bufF32.read());
    if (f64) f64s = new Float64Array(bufF64.read());
    rawU = new Float32Array(bufRaw.read());
    for (const b of [input, bufWords, bufF32, bufF64, bufRaw]) b.destroy();
    sequence.destroy();
    algorithm.destroy();
  }, 120_000);

  it("reproduces Random123's known-answer vectors", () => {
    const hex = (k: number) => Array.from(words.subarray(4 * k, 4 * k + 4), (w) => w.toString(16).padStart(8, "0")).join(" ");
    expect(hex(0)).toBe("6627e8d5 e169c58d bc57ac4c 9b00dbd8");
    expect(hex(1)).toBe("d16cfe09 94fdcceb 5001e420 24126ea1");
    expect(hex(2)).toBe("408f276d 41c83b0e a20bc7c6 6d5451fd");
  });

  it("matches packages/ppl's Philox word for word", () => {
    const out = new Uint32Array(4);
    for (let k = 0; k < n; k++) {
      const c = cases[k]!;
      philox4x32(c[0]!, c[1]!, c[2]!, c[3]!, c[4]!, c[5]!, out);
      for (let j = 0; j < 4; j++) if (words[4 * k + j] !== out[j]) expect.fail(`case ${k} word ${j}: ${words[4 * k + j]} != ${out[j]}`);
    }
  });

  it("f64 uniforms are bit-exact and normals match Box-Muller on the CPU", () => {
    if (f64s === undefined) throw new Error(`f64 not supported by ${device.name} (no shaderFloat64)`);
    let worst = 0;
    for (let k = 0; k < n; k++) {
      const w = words.subarray(4 * k, 4 * k + 4);
      const u0 = uniformFromWords(w[0]!, w[1]!);
      const u1 = uniformFromWords(w[2]!, w[3]!);
      expect(f64s[4 * k]).toBe(u0);
      expect(f64s[4 * k + 1]).toBe(u1);
      worst = Math.max(worst, ulpError(f64s[4 * k + 2]!, boxMullerCos(u0, u1), "f64"), ulpError(f64s[4 * k + 3]!, boxMullerSin(u0, u1), "f64"));
    }
    report.push(`f64 normals: max ${worst.toFixed(2)} ulp from the CPU's Box-Muller over ${2 * n} variates`);
    expect(worst).toBe(0);
  });

  it("f32 uniforms are the f64 ones rounded to float (below 1), normals within a few float ulp", () => {
    let worst = 0;
    for (let k = 0; k < n; k++) {
      const w = words.subarray(4 * k, 4 * k + 4);
      const u0 = uniformFromWords(w[0]!, w[1]!);
      const u1 = uniformFromWords(w[2]!, w[3]!);
      expect(f32s[4 * k]).toBe(Math.min(Math.fround(u0), Math.fround(1 - 2 ** -24)));
      expect(f32s[4 * k + 1]).toBe(Math.min(Math.fround(u1), Math.fround(1 - 2 ** -24)));
      // The float normal starts from the float uniforms; compare with the CPU formula on those.
      const v0 = f32s[4 * k]!;
      const v1 = f32s[4 * k + 1]!;
      // The float rounding of 2*pi*u alone moves the angle by up to ~4e-7, so the error bound is
      // absolute, scaled by the radius r = sqrt(-2 log u0).
      const r = Math.sqrt(-2 * Math.log(v0));
      for (const [got, want] of [[f32s[4 * k + 2]!, boxMullerCos(v0, v1)], [f32s[4 * k + 3]!, boxMullerSin(v0, v1)]] as const) {
        worst = Math.max(worst, Math.abs(got - want) / Math.max(1, r));
      }
    }
    report.push(`f32 normals: max |error| / max(1, r) = ${worst.toExponential(2)} over ${2 * n} variates`);
    expect(worst).toBeLessThan(1e-6);
  });

  it("rounds f32 uniforms correctly for every shift width, ties and values next to 1", () => {
    const below1 = Math.fround(1 - 2 ** -24);
    for (let k = 0; k < n; k++) {
      const [hi, lo] = cases[k]!;
      const want = Math.min(Math.fround(uniformFromWords(hi!, lo!)), below1);
      if (rawU[k] !== want) expect.fail(`uniform_f32(${hi}, ${lo}) = ${rawU[k]}, want ${want}`);
    }
  });
});
