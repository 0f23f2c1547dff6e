import { describe, expect, it } from "vitest";
import { compileModel, type CompiledModel } from "@ppl/ppl";
import type { Node } from "@ppl/tensor";
import { compileStan } from "../src/index.ts";

const HEAD = "data { int N; vector[N] x; vector[N] y; }\nparameters { real mu; real beta; real<lower=0> sigma; }\n";
const N = 12;
const DATA = {
  N,
  x: Array.from({ length: N }, (_, i) => Math.round(100 * Math.sin(1.3 * i + 0.2)) / 100),
  y: Array.from({ length: N }, (_, i) => Math.round(100 * Math.cos(0.7 * i)) / 100),
};

// How many scan nodes the log density's graph holds.
function scans(cm: CompiledModel): number {
  const seen = new Set<Node>();
  const stack: Node[] = [cm.logDensity];
  let count = 0;
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    if (n.op === "scan") count++;
    stack.push(...n.inputs);
  }
  return count;
}

const normalLp = (y: number, m: number, s: number): number => -0.5 * ((y - m) / s) ** 2 - Math.log(s) - 0.5 * Math.log(2 * Math.PI);

describe("the loop pass's scan form", () => {
  it("runs a loop that carries state (two rows back, a row ahead of data, a scratch array, a running sum) as one scan, with the unrolled loop's density", () => {
    const program = `${HEAD}model {
  vector[N] m;
  array[2] real scratch;
  real total = 0;
  m[1] = mu;
  m[2] = mu;
  for (n in 3:N - 1) {
    scratch[1] = m[n - 1] / 2;
    scratch[2] = m[n - 2] / 3;
    m[n] = scratch[1] + scratch[2] + beta * x[n + 1];
    total += x[n - 1];
  }
  m[N] = m[N - 1];
  y ~ normal(m, sigma);
  target += total;
}`;
    const cm = compileModel(compileStan(program, "t.stan"), DATA);
    expect(scans(cm)).toBe(1);
    for (const q of [[0.2, -0.4, 0.3], [-1.1, 0.7, -0.2]]) {
      const [mu, beta, sigma] = [q[0]!, q[1]!, Math.exp(q[2]!)];
      const m = [mu, mu];
      let total = 0;
      for (let n = 3; n <= N - 1; n++) {
        m.push(m[n - 2]! / 2 + m[n - 3]! / 3 + beta * DATA.x[n]!);
        total += DATA.x[n - 2]!;
      }
      m.push(m[N - 2]!);
      const want = DATA.y.reduce((a, v, i) => a + normalLp(v, m[i]!, sigma), 0) + total + q[2]!;
      expect(cm.logDensityAt(q)).toBeCloseTo(want, 9);
    }
  });

  it("traces a loop one iteration at a time where its index is used other than as a first index (x[n] * n)", () => {
    const program = `${HEAD}model {
  vector[N] m;
  m[1] = mu;
  for (n in 2:N) m[n] = m[n - 1] + beta * n;
  y ~ normal(m, sigma);
}`;
    const cm = compileModel(compileStan(program, "t.stan"), DATA);
    expect(scans(cm)).toBe(0);
    const q = [0.2, -0.4, 0.3];
    const m = [q[0]!];
    for (let n = 2; n <= N; n++) m.push(m[n - 2]! + q[1]! * n);
    const want = DATA.y.reduce((a, v, i) => a + normalLp(v, m[i]!, Math.exp(q[2]!)), 0) + q[2]!;
    expect(cm.logDensityAt(q)).toBeCloseTo(want, 9);
  });
});
