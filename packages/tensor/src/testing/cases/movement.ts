import fc from "fast-check";
import { abs, exp, mul, tanh } from "../../api/elementwise.ts";
import { sum } from "../../api/reduce.ts";
import { broadcastTo, concat, pad, reshape, slice, transpose, type SliceSpec } from "../../api/shape-ops.ts";
import { sizeOf } from "../../ir/shape.ts";
import { broadcastableTo, floats, permutationArb, shapeArb } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { exactTol, transcendentalTol } from "../tolerance.ts";

/** Reshape, broadcast_to, transpose, slice, concat and pad; each output raw and through an elementwise consumer (strided reads in fused loops). */
export function movementCases(): ConformanceCase[] {
  return [
    {
      name: "reshape (random factorization)",
      ops: ["reshape"],
      tolerance: transcendentalTol,
      arbitrary: (dtype) =>
        fc.tuple(shapeArb(1, 3), fc.integer({ min: 0, max: 1000 })).chain(([shape, seed]) =>
          instanceArb(dtype, [{ name: "x", shape, values: floats(-3, 3) }], ([x]) => {
            const target = factorize(sizeOf(shape), seed);
            const r = reshape(x!, target);
            return { outputs: [r, exp(r), reshape(tanh(x!), target)] };
          }),
        ),
    },
    {
      name: "broadcast_to",
      ops: ["broadcast_to"],
      tolerance: transcendentalTol,
      arbitrary: (dtype) =>
        shapeArb(0, 3).chain((target) =>
          broadcastableTo(target).chain((shape) =>
            instanceArb(dtype, [{ name: "x", shape, values: floats(-3, 3) }], ([x]) => {
              const b = broadcastTo(x!, target);
              return { outputs: [b, exp(b)] };
            }),
          ),
        ),
    },
    {
      name: "transpose (random permutations)",
      ops: ["transpose"],
      tolerance: transcendentalTol,
      arbitrary: (dtype) =>
        shapeArb(2, 4).chain((shape) =>
          permutationArb(shape.length).chain((perm) =>
            instanceArb(dtype, [{ name: "x", shape, values: floats(-3, 3) }], ([x]) => {
              const t = transpose(x!, perm);
              return { outputs: [t, exp(t), transpose(exp(x!), perm)] };
            }),
          ),
        ),
    },
    {
      name: "slice with steps",
      ops: ["slice"],
      tolerance: transcendentalTol,
      arbitrary: (dtype) =>
        shapeArb(1, 3, 7).chain((shape) =>
          fc
            .tuple(...shape.map((d) => fc.tuple(fc.integer({ min: -d, max: d - 1 }), fc.integer({ min: 0, max: d }), fc.integer({ min: 1, max: 3 }))))
            .chain((specs) =>
              instanceArb(dtype, [{ name: "x", shape, values: floats(-3, 3) }], ([x]) => {
                const sl: SliceSpec[] = specs.map(([start, len, step]) => ({ start, stop: start < 0 ? undefined : start + len, step }));
                const s = slice(x!, sl);
                return { outputs: [s, exp(s), slice(transpose(x!), [...sl].reverse())] };
              }),
            ),
        ),
    },
    {
      name: "concat along a random axis",
      ops: ["concat"],
      tolerance: transcendentalTol,
      arbitrary: (dtype) =>
        shapeArb(1, 3).chain((shape) =>
          fc.tuple(fc.integer({ min: 0, max: shape.length - 1 }), fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 3 })).chain(([axis, lens]) => {
            const shapes = lens.map((l) => shape.map((d, i) => (i === axis ? l : d)));
            return instanceArb(
              dtype,
              shapes.map((s, k) => ({ name: `x${k}`, shape: s, values: floats(-3, 3) })),
              (xs) => ({ outputs: [concat(xs, axis), exp(concat([xs[0]!, exp(xs[1]!)], axis))] }),
            );
          }),
        ),
    },
    {
      name: "pad with random widths and value",
      ops: ["pad"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        shapeArb(1, 3).chain((shape) =>
          fc
            .tuple(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })), { minLength: shape.length, maxLength: shape.length }), floats(-3, 3))
            .chain(([widths, value]) =>
              instanceArb(dtype, [{ name: "x", shape, values: floats(-3, 3) }], ([x]) => {
                const p = pad(x!, widths, value);
                const p3 = pad(mul(x!, 3), widths, value);
                return { outputs: [p, mul(p, 2), sum(p3)], scales: [undefined, undefined, mul(sum(abs(p3)), p3.size)] };
              }),
            ),
        ),
    },
    {
      // Nothing to read: every entry is padding.
      name: "pad of an empty tensor",
      ops: ["pad"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 2 }), floats(-3, 3)).chain(([n, w, value]) =>
          instanceArb(dtype, [{ name: "x", shape: [n, 0], values: floats(-3, 3) }], ([x]) => {
            const p = pad(x!, [[0, 1], [w, 0]], value);
            return { outputs: [p, mul(p, 2)] };
          }),
        ),
    },
  ];
}

// A shape with `size` elements, from a seed: split size into random factors.
function factorize(size: number, seed: number): number[] {
  const out: number[] = [];
  let rest = size;
  let s = seed;
  for (let f = 2; f <= rest; f++) {
    while (rest % f === 0) {
      s = (s * 1103515245 + 12345) % 2147483648;
      if (s % 2 === 0 || out.length === 0) out.push(f);
      else out[out.length - 1]! *= f;
      rest /= f;
    }
  }
  if (seed % 3 === 0) out.unshift(1);
  return out.length ? out : [1];
}
