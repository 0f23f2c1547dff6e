import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  autocovariance,
  averageRanks,
  ebfmi,
  essBasic,
  essBulk,
  essTail,
  mad,
  mcseMean,
  mcseQuantile,
  mcseSd,
  mean,
  median,
  normalQuantile,
  quantile,
  rankNormalize,
  rhat,
  rhatBasic,
  samplerDiagnostics,
  sd,
  splitChains,
  summarize,
  summarizeParameter,
  toChainMatrix,
} from "../src/diagnostics/index.ts";
import { ParameterDraws } from "../src/diagnostics/parameter-draws.ts";
import { sortOrder } from "../src/diagnostics/sort-order.ts";

// CI places shared/ beside the clone, so resolve it relative to this file.
const FIXTURE_DIR = fileURLToPath(new URL("../../../../shared/diagnostics", import.meta.url));

interface Fixture {
  case: string;
  chains: number;
  draws: number;
  x: number[][];
  expected: Record<string, number | null>;
}

function loadFixtures(): Array<[string, Fixture]> {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(FIXTURE_DIR, f), "utf8")) as Fixture]);
}

/** The README's tolerance: relative 1e-6, absolute 1e-9 near zero, NA for NA. */
function expectMatch(label: string, got: number, expected: number | null): void {
  if (expected === null) {
    expect(Number.isNaN(got), `${label}: expected NA, got ${got}`).toBe(true);
    return;
  }
  const tol = Math.max(1e-6 * Math.abs(expected), 1e-9);
  expect(Math.abs(got - expected), `${label}: expected ${expected}, got ${got}`).toBeLessThanOrEqual(tol);
}

const STATISTICS: Record<string, (x: number[][]) => number> = {
  mean: (x) => mean(x.flat()),
  sd: (x) => sd(x.flat()),
  median: (x) => median(x.flat()),
  mad: (x) => mad(x.flat()),
  "5": (x) => quantile(x.flat(), 0.05),
  "95": (x) => quantile(x.flat(), 0.95),
  rhat: (x) => rhat(x),
  rhat_basic: (x) => rhatBasic(x),
  ess_bulk: (x) => essBulk(x),
  ess_tail: (x) => essTail(x),
  ess_basic: (x) => essBasic(x),
  mcse_mean: (x) => mcseMean(x),
  mcse_sd: (x) => mcseSd(x),
  mcse_q5: (x) => mcseQuantile(x, 0.05),
  mcse_q95: (x) => mcseQuantile(x, 0.95),
};

const SUMMARY_KEYS: Record<string, keyof ReturnType<typeof summarizeParameter>> = {
  mean: "mean",
  sd: "sd",
  median: "median",
  mad: "mad",
  "5": "q5",
  "95": "q95",
  rhat: "rhat",
  rhat_basic: "rhat_basic",
  ess_bulk: "ess_bulk",
  ess_tail: "ess_tail",
  ess_basic: "ess_basic",
  mcse_mean: "mcse_mean",
  mcse_sd: "mcse_sd",
  mcse_q5: "mcse_q5",
  mcse_q95: "mcse_q95",
};

describe("reference diagnostics from posterior 1.4.0", () => {
  const fixtures = loadFixtures();

  it("finds all 36 reference cases", () => {
    expect(fixtures.length).toBe(36);
  });

  for (const [file, fx] of fixtures) {
    it(`${file}: every statistic matches`, () => {
      expect(fx.x.length).toBe(fx.chains);
      for (const [key, expected] of Object.entries(fx.expected)) {
        const f = STATISTICS[key];
        expect(f, `unknown statistic ${key}`).toBeDefined();
        expectMatch(`${file} ${key}`, f!(fx.x), expected);
      }
    });

    it(`${file}: summarizeParameter agrees, also with Float64Array chains`, () => {
      const s = summarizeParameter("x", fx.x.map((c) => Float64Array.from(c)));
      for (const [key, expected] of Object.entries(fx.expected)) {
        expectMatch(`${file} summary ${key}`, s[SUMMARY_KEYS[key]!] as number, expected);
      }
      expect(s.q50).toBe(s.median);
    });
  }
});

describe("building blocks", () => {
  it("splits odd-length chains dropping the middle draw", () => {
    const m = splitChains(toChainMatrix([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]));
    expect(m.chains).toBe(4);
    expect(m.iterations).toBe(2);
    expect([...m.values]).toEqual([1, 2, 6, 7, 4, 5, 9, 10]);
  });

  it("averages ranks of ties", () => {
    expect([...averageRanks([3, 1, 3, 2])]).toEqual([3.5, 1, 3.5, 2]);
  });

  it("autocovariance by FFT equals the direct sum", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 2, maxLength: 60 }), (x) => {
        const acov = autocovariance(x);
        const n = x.length;
        const m = x.reduce((a, b) => a + b, 0) / n;
        let direct0 = 0;
        for (let i = 0; i < n; i++) direct0 += (x[i]! - m) ** 2;
        if (direct0 / n < 1e-12) return; // constant enough that only the zero branch is meaningful
        for (let t = 0; t < n; t++) {
          let s = 0;
          for (let i = 0; i + t < n; i++) s += (x[i]! - m) * (x[i + t]! - m);
          expect(Math.abs(acov[t]! - s / n)).toBeLessThanOrEqual(1e-9 * (direct0 / n));
        }
      }),
    );
  });

  it("rejects chains of different lengths", () => {
    expect(() => rhat([[1, 2, 3], [1, 2]])).toThrow(/same number of draws/);
  });

  it("returns NA for constant or non-finite draws", () => {
    const constant = [[1, 1, 1, 1], [1, 1, 1, 1]];
    expect(rhat(constant)).toBeNaN();
    expect(essBulk(constant)).toBeNaN();
    expect(rhatBasic([[1, 2, NaN, 4], [1, 2, 3, 4]])).toBeNaN();
    expect(essBasic([[1, 2, Infinity, 4], [1, 2, 3, 4]])).toBeNaN();
  });
});

// Draws that exercise the shared intermediates' special cases: ties, both zeros, infinities.
const awkwardValue = fc.oneof(
  fc.double({ min: -5, max: 5, noNaN: true }),
  fc.constantFrom(0, -0, 1, -1, 2.5, Infinity, -Infinity, 5e-324, -5e-324),
);

describe("shared intermediates equal the statistics computed on their own", () => {
  it("the radix order sorts as the typed-array sort does (-0 before +0, infinities at the ends)", () => {
    fc.assert(
      fc.property(fc.array(awkwardValue, { maxLength: 300 }), (xs) => {
        const values = Float64Array.from(xs);
        const order = sortOrder(values);
        const sorted = Float64Array.from(order, (i) => values[i]!);
        // toEqual does not tell -0 from +0, so they are compared spelled out.
        const spelled = (a: Float64Array): Array<number | string> => [...a].map((v) => (Object.is(v, -0) ? "-0" : v));
        expect(spelled(sorted)).toEqual(spelled(Float64Array.from(xs).sort()));
        // Stable: equal bit patterns keep their positions' order.
        for (let k = 1; k < order.length; k++) if (Object.is(sorted[k], sorted[k - 1])) expect(order[k]!).toBeGreaterThan(order[k - 1]!);
      }),
    );
  });

  it("rank normalization through the order gives averageRanks' normal scores", () => {
    fc.assert(
      fc.property(fc.array(awkwardValue, { minLength: 1, maxLength: 200 }), (xs) => {
        const m = toChainMatrix([xs]);
        const s = xs.length;
        const expected = [...averageRanks(xs)].map((r) => normalQuantile((r - 3 / 8) / (s - 2 * (3 / 8) + 1)));
        expect([...rankNormalize(m).values]).toEqual(expected);
      }),
    );
  });

  it("the folded draws' merged sort is the sort of the folded draws", () => {
    fc.assert(
      fc.property(fc.array(awkwardValue, { minLength: 1, maxLength: 200 }), (xs) => {
        const p = ParameterDraws.of([xs]);
        const merged = p.foldedSorted();
        // An infinite median leaves NaN in the folded draws (Inf - Inf): no merge then.
        if (!Number.isFinite(p.quantile(0.5))) expect(merged).toBeNull();
        else expect([...merged!]).toEqual([...Float64Array.from(p.folded().values).sort()]);
      }),
    );
  });

  it("summarizeParameter gives each statistic's own value, bit for bit", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 40 }), fc.array(awkwardValue, { minLength: 160, maxLength: 160 }), (chains, n, pool) => {
        const x = Array.from({ length: chains }, (_, c) => Array.from({ length: n }, (_, i) => pool[(c * n + i) % pool.length]!));
        const s = summarizeParameter("x", x);
        const own: Record<string, number> = {
          mean: mean(x.flat()), sd: sd(x.flat()), median: median(x.flat()), mad: mad(x.flat()), q5: quantile(x.flat(), 0.05), q95: quantile(x.flat(), 0.95),
          rhat: rhat(x), rhat_basic: rhatBasic(x), ess_bulk: essBulk(x), ess_tail: essTail(x), ess_basic: essBasic(x),
          mcse_mean: mcseMean(x), mcse_sd: mcseSd(x), mcse_q5: mcseQuantile(x, 0.05), mcse_q95: mcseQuantile(x, 0.95),
        };
        for (const [key, value] of Object.entries(own)) expect(Object.is(s[key as keyof typeof s], value), `${key}: ${String(s[key as keyof typeof s])} vs ${value}`).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

// Small deterministic generator so properties see realistic, non-degenerate chains.
function normals(seed: number, chains: number, n: number): number[][] {
  let s = seed >>> 0 || 1;
  const uniform = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  return Array.from({ length: chains }, () =>
    Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform())),
  );
}

describe("properties", () => {
  const seeds = fc.integer({ min: 1, max: 2 ** 31 - 1 });

  it("R-hat and ESS are invariant to a common shift", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: -1000, max: 1000 }), (seed, shift) => {
        // Draws on a 2^-20 grid shifted by an integer keep every difference exact,
        // so the rank-based statistics must agree exactly.
        const x = normals(seed, 4, 60).map((c) => c.map((v) => Math.round(v * 2 ** 20) / 2 ** 20));
        const y = x.map((c) => c.map((v) => v + shift));
        expect(rhat(y)).toBe(rhat(x));
        expect(essBulk(y)).toBe(essBulk(x));
        expect(essTail(y)).toBe(essTail(x));
        expect(rhatBasic(y)).toBeCloseTo(rhatBasic(x), 8);
        expect(essBasic(y) / essBasic(x)).toBeCloseTo(1, 8);
      }),
      { numRuns: 30 },
    );
  });

  it("bulk and tail diagnostics are invariant to monotone transforms", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const x = normals(seed, 4, 50);
        const y = x.map((c) => c.map((v) => Math.exp(v)));
        expect(essBulk(y)).toBe(essBulk(x));
        expect(essTail(y)).toBe(essTail(x));
      }),
      { numRuns: 20 },
    );
  });

  it("ESS of iid draws is large and R-hat near 1", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const x = normals(seed, 4, 500);
        const total = 2000;
        expect(essBulk(x)).toBeGreaterThan(0.5 * total);
        expect(essBulk(x)).toBeLessThanOrEqual(total * Math.log10(total));
        expect(essTail(x)).toBeGreaterThan(0.3 * total);
        expect(rhat(x)).toBeLessThan(1.02);
      }),
      { numRuns: 10 },
    );
  });

  it("a shifted chain inflates R-hat", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const x = normals(seed, 4, 200);
        x[0] = x[0]!.map((v) => v + 3);
        expect(rhat(x)).toBeGreaterThan(1.1);
      }),
      { numRuns: 10 },
    );
  });

  it("MCSEs are non-negative and scale with the draws", () => {
    fc.assert(
      fc.property(seeds, fc.double({ min: 0.01, max: 100, noNaN: true }), (seed, scale) => {
        const x = normals(seed, 2, 100);
        const y = x.map((c) => c.map((v) => v * scale));
        expect(mcseMean(y) / mcseMean(x)).toBeCloseTo(scale, 6);
        expect(mcseSd(y) / mcseSd(x)).toBeCloseTo(scale, 6);
        expect(mcseQuantile(x, 0.05)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 20 },
    );
  });
});

describe("sampler diagnostics and warnings", () => {
  it("counts divergences and tree-depth hits, computes E-BFMI", () => {
    const d = samplerDiagnostics(
      {
        divergent: [[0, 1, 0, 0], [0, 0, 0, 1]],
        treedepth: [[3, 10, 10, 2], [1, 2, 3, 4]],
        energy: [[1, 2, 1, 2], [1, 1.1, 1.2, 1.3]],
      },
      10,
    );
    expect(d.divergences).toBe(2);
    expect(d.divergencesPerChain).toEqual([1, 1]);
    expect(d.treeDepthHits).toBe(2);
    expect(d.treeDepthHitsPerChain).toEqual([2, 0]);
    // Chain 1: squared differences sum to 3, squared deviations to 1.
    expect(d.ebfmi[0]).toBeCloseTo(3, 12);
    // Chain 2: a slow drift gives 3 * 0.01 / 0.05 = 0.6.
    expect(d.ebfmi[1]).toBeCloseTo(0.6, 12);
    expect(ebfmi([5])).toBeNaN();
  });

  it("warns at the usual thresholds with structured objects", () => {
    const good = normals(7, 4, 500);
    const stuck = normals(8, 4, 500);
    stuck[0] = stuck[0]!.map((v) => v + 5);
    const ar = normals(9, 4, 500).map((c) => {
      const out: number[] = [];
      let prev = 0;
      for (const e of c) out.push((prev = 0.995 * prev + e));
      return out;
    });
    const energy = normals(10, 4, 500).map((c) => {
      const out: number[] = [];
      let prev = 0;
      for (const e of c) out.push((prev = 0.95 * prev + e));
      return out;
    });
    const zeros = good.map((c) => c.map(() => 0));
    const divergent = zeros.map((c) => [...c]);
    divergent[2]![17] = 1;
    const treedepth = zeros.map((c) => c.map(() => 4));
    treedepth[1]![3] = 8;
    const s = summarize({ good, stuck, ar }, { sampler: { divergent, treedepth, energy }, maxTreeDepth: 8 });
    expect(s.chains).toBe(4);
    expect(s.drawsPerChain).toBe(500);
    expect(s.parameters.map((p) => p.name)).toEqual(["good", "stuck", "ar"]);
    const kinds = (param: string): string[] => s.warnings.filter((w) => w.parameter === param).map((w) => w.kind);
    expect(kinds("good")).toEqual([]);
    expect(kinds("stuck")).toContain("rhat");
    expect(kinds("ar")).toContain("ess_bulk");
    const div = s.warnings.find((w) => w.kind === "divergences");
    expect(div?.value).toBe(1);
    expect(div?.message).toMatch(/1 of 2000 transitions/);
    const td = s.warnings.find((w) => w.kind === "treedepth");
    expect(td?.value).toBe(1);
    expect(td?.threshold).toBe(8);
    const eb = s.warnings.filter((w) => w.kind === "ebfmi");
    expect(eb.length).toBe(4);
    expect(eb[0]!.chain).toBe(0);
    for (const w of s.warnings) expect(w.message.length).toBeGreaterThan(20);
    expect(s.sampler?.maxTreeDepth).toBe(8);
  });

  it("summarize without sampler columns gives no sampler block", () => {
    const s = summarize(new Map([["a", normals(3, 2, 100)]]));
    expect(s.sampler).toBeUndefined();
    expect(s.parameters[0]!.name).toBe("a");
  });
});
