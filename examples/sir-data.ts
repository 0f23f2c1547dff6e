// Makes examples/sir.json: the SIR model of examples/sir.ts solved with β = 1.7, γ = 0.5 for a
// population of 763 from one infected person (classical RK4, 1000 steps a day), and a negative-
// binomial count (mean N·I(t), φ = 8, drawn as a Poisson of a gamma) for each of days 1–14, from a
// fixed seed: running it again gives the same file.
//   npx tsx examples/sir-data.ts > examples/sir.json
const N = 763, T = 14, beta = 1.7, gamma = 0.5, phi = 8;

// mulberry32: a small seeded generator, enough for a synthetic data set.
let state = 20251207;
function uniform(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function standardNormal(): number {
  return Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

// Marsaglia and Tsang's gamma(shape ≥ 1, scale 1).
function gammaDraw(shape: number): number {
  const d = shape - 1 / 3, c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = standardNormal(), v = (1 + c * x) ** 3;
    if (v > 0 && Math.log(1 - uniform()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

// Knuth's product of uniforms: fine for the means here (below a few hundred).
function poissonDraw(mean: number): number {
  const limit = Math.exp(-mean);
  let k = 0, p = uniform();
  while (p > limit) {
    k++;
    p *= uniform();
  }
  return k;
}

function solve(): number[] {
  const f = ([s, i]: number[]) => [-beta * s! * i!, beta * s! * i! - gamma * i!, gamma * i!];
  let y = [1 - 1 / N, 1 / N, 0];
  const infected: number[] = [];
  const h = 1e-3;
  for (let day = 1; day <= T; day++) {
    for (let k = 0; k < 1000; k++) {
      const k1 = f(y), k2 = f(y.map((v, j) => v + (h / 2) * k1[j]!)), k3 = f(y.map((v, j) => v + (h / 2) * k2[j]!)), k4 = f(y.map((v, j) => v + h * k3[j]!));
      y = y.map((v, j) => v + (h / 6) * (k1[j]! + 2 * k2[j]! + 2 * k3[j]! + k4[j]!));
    }
    infected.push(y[1]!);
  }
  return infected;
}

const cases = solve().map((i) => poissonDraw((gammaDraw(phi) * N * i) / phi));
process.stdout.write(JSON.stringify({ N, T, ts: Array.from({ length: T }, (_, t) => t + 1), cases }) + "\n");
