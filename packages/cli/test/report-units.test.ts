// The report's pieces that need no browser: tick values, grouped warnings, the per-chain density.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CliError } from "../src/exit-codes.ts";
import type { DiagnosticWarning } from "@ppl/ppl";
import { gaussianKde, silvermanBandwidth } from "../src/report/density.ts";
import { Scale } from "../src/report/svg.ts";
import { logTicks, niceTicks, tickStep } from "../src/report/ticks.ts";
import { groupWarnings } from "../src/report/warning-groups.ts";
import { fittedText } from "../src/report/svg.ts";
import { ppcBarsSvg } from "../src/report/svg-ppc-bars.ts";
import { replicatedSets } from "../src/report/svg-ppc-density.ts";
import { logScaled } from "../src/report/log-scale.ts";
import { observationsOf } from "../src/report/observations.ts";
import { chainsFromColumns } from "@ppl/ppl";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

describe("tick values", () => {
  it("gives at least two ticks where rounding the step up gave one (a trace of values in 0.05…0.89)", () => {
    expect(new Scale(0.05, 0.89, 0, 100).ticks(4)).toEqual([0.2, 0.4, 0.6, 0.8]);
    // Asked for two, the nearest step (0.5) has one multiple inside: the step shrinks to 0.2.
    expect(niceTicks(0.05, 0.89, 2)).toEqual([0.2, 0.4, 0.6, 0.8]);
  });

  it("rounds the step to the nearest of 1, 2, 5 × 10^k, as d3-array does", () => {
    expect(tickStep(10, 10)).toBe(1);
    expect(tickStep(1, 3)).toBe(0.5); // 0.333: nearer 0.5 than 0.2 on a log scale
    expect(tickStep(1, 7)).toBe(0.2); // 0.143 ≥ √2 / 10
    expect(tickStep(1, 8)).toBe(0.1); // 0.125 < √2 / 10
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(-3.7, 12.2, 4)).toEqual([0, 5, 10]);
    expect(niceTicks(1, 150, 5)).toEqual([20, 40, 60, 80, 100, 120, 140]);
  });

  it("for any domain and count: two or more ticks inside it, evenly spaced round values that print without float noise", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        fc.integer({ min: 1, max: 10 }),
        (lo, span, count) => {
          const hi = lo + span;
          // Spans below a millionth of the values are beyond what 4-digit tick labels can show.
          fc.pre(hi > lo && span > Math.abs(lo) * 1e-6);
          const t = niceTicks(lo, hi, count);
          expect(t.length).toBeGreaterThanOrEqual(2);
          expect(t.length).toBeLessThanOrEqual(Math.max(5, count * 3));
          for (const v of t) {
            expect(v).toBeGreaterThanOrEqual(lo - span * 1e-9);
            expect(v).toBeLessThanOrEqual(hi + span * 1e-9);
            expect(String(v)).not.toMatch(/\d{9,}/);
          }
          const step = t[1]! - t[0]!;
          const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
          expect([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-4)).toBe(true);
        },
      ),
      { seed: 16, numRuns: 2000 },
    );
  });
});

describe("grouped warnings", () => {
  const w = (kind: DiagnosticWarning["kind"], value: number, extra: Partial<DiagnosticWarning> = {}): DiagnosticWarning => ({ kind, value, threshold: 0, message: `${kind} message`, ...extra });

  it("puts the sampler's problems first and gives one line per criterion listing its parameters", () => {
    const groups = groupWarnings([
      w("rhat", 1.0234, { parameter: "a", threshold: 1.01 }),
      w("ess_bulk", 123.4, { parameter: "a", threshold: 400 }),
      w("rhat", 1.2, { parameter: "b[2]", threshold: 1.01 }),
      w("ess_bulk", 1234.6, { parameter: "c", threshold: 4000 }),
      w("ebfmi", 0.21, { chain: 2, threshold: 0.3 }),
      w("divergences", 7),
      w("ebfmi", 0.1, { chain: 0, threshold: 0.3 }),
      w("treedepth", 3),
    ]);
    expect(groups.map((g) => [g.scope, g.kind])).toEqual([
      ["sampler", "divergences"],
      ["sampler", "treedepth"],
      ["sampler", "ebfmi"],
      ["parameters", "rhat"],
      ["parameters", "ess_bulk"],
    ]);
    expect(groups[0]!.text).toBe("divergences message");
    expect(groups[2]!.text).toMatch(/^E-BFMI below 0.3 in 2 chains: chain 3 \(0.21\), chain 1 \(0.10\)\. /);
    expect(groups[3]!.text).toMatch(/^R-hat above 1.01 for 2 parameters: a \(1.023\), b\[2\] \(1.200\)\. The chains have not mixed/);
    expect(groups[4]!.text).toMatch(/^Bulk-ESS below 400 \(100 per chain, at most 400 in all\) for 2 parameters: a \(123\), c \(1235\)\. /);
  });

  it("is empty without warnings", () => {
    expect(groupWarnings([])).toEqual([]);
  });
});

describe("per-chain density", () => {
  it("integrates to one and peaks near the draws' centre", () => {
    let state = 7;
    const normal = (): number => {
      const u = ((state = (state * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31;
      const v = ((state = (state * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31;
      return 3 + 2 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    };
    const draws = Float64Array.from({ length: 2000 }, normal);
    const h = silvermanBandwidth(draws);
    expect(h).toBeGreaterThan(0.2);
    expect(h).toBeLessThan(0.6);
    const grid = Array.from({ length: 801 }, (_, i) => -7 + (20 * i) / 800);
    const d = gaussianKde(draws, grid, h);
    const integral = d.reduce((a, b) => a + b, 0) * (20 / 800);
    expect(integral).toBeCloseTo(1, 3);
    const peak = grid[d.indexOf(Math.max(...d))]!;
    expect(Math.abs(peak - 3)).toBeLessThan(0.5);
  });

  it("has a positive bandwidth for constant draws and skips non-finite ones", () => {
    expect(silvermanBandwidth([2, 2, 2])).toBeGreaterThan(0);
    expect(gaussianKde([NaN, 1, Infinity], [1], 1)).toEqual([1 / Math.sqrt(2 * Math.PI)]);
  });
});

describe("log axes", () => {
  it("ticks powers of ten, every k-th over many decades, and 1-2-5 multiples inside one decade", () => {
    expect(logTicks(0.03, 400, 5)).toEqual([0.1, 1, 10, 100]);
    expect(logTicks(1e-6, 1e6, 4)).toEqual([1e-6, 1e-2, 100, 1e6]);
    expect(logTicks(1.5, 30)).toEqual([2, 5, 10, 20]);
    // Inside one octave only 0.005 is a 1-2-5 value: the axis reads as a linear one.
    expect(logTicks(0.0021, 0.0059)).toEqual([0.003, 0.004, 0.005]);
    expect(new Scale(1, 100, 0, 200, true).at(10)).toBeCloseTo(100, 9);
  });

  it("for any positive domain: two or more ticks inside it, in increasing order", () => {
    fc.assert(
      fc.property(fc.double({ min: -300, max: 300, noNaN: true }), fc.double({ min: 0.01, max: 30, noNaN: true }), fc.integer({ min: 2, max: 8 }), (e, decades, count) => {
        const lo = 10 ** e;
        const hi = lo * 10 ** decades;
        fc.pre(Number.isFinite(hi) && hi > 0 && lo > 0);
        const t = logTicks(lo, hi, count);
        expect(t.length).toBeGreaterThanOrEqual(2);
        for (let i = 0; i < t.length; i++) {
          expect(t[i]!).toBeGreaterThanOrEqual(lo * (1 - 1e-9));
          expect(t[i]!).toBeLessThanOrEqual(hi * (1 + 1e-9));
          if (i > 0) expect(t[i]!).toBeGreaterThan(t[i - 1]!);
        }
      }),
      { seed: 47, numRuns: 1000 },
    );
  });

  it("--log-scale: names by Stan's rules, 'auto' for positive draws spread over a decade, a draw ≤ 0 refused", () => {
    const chains = (f: (i: number) => number): Float64Array[] => [Float64Array.from({ length: 200 }, (_, i) => f(i))];
    const params = { mu: chains((i) => i - 100), tau: chains((i) => Math.exp((i - 100) / 30)), "s[1]": chains((i) => 1 + i / 1000), "s[2]": chains((i) => 2 + i / 1000) };
    const names = Object.keys(params);
    expect([...logScaled(params, names, undefined)]).toEqual([]);
    expect([...logScaled(params, names, ["s"])]).toEqual(["s[1]", "s[2]"]);
    // tau's 95% quantile is e^6 times its 5% one; s stays within a factor of 1.2.
    expect([...logScaled(params, names, ["auto"])]).toEqual(["tau"]);
    expect(() => logScaled(params, names, ["mu"])).toThrow(CliError);
    expect(() => logScaled(params, names, ["mu"])).toThrow(/--log-scale: 'mu' has a draw of -100; a log axis needs positive draws/);
  });
});

describe("fitted titles", () => {
  it("cuts a text longer than its room with an ellipsis and keeps the whole text as its tooltip", () => {
    expect(fittedText("title", 0, 0, "short", 100, 6.9)).toBe('<text class="title" x="0" y="0">short</text>');
    const long = fittedText("title", 5, 10, "a_very_long_parameter_name[12,34] — autocorrelation", 100, 6.9);
    expect(long).toMatch(/^<text class="title" x="5" y="10"><title>a_very_long_parameter_name\[12,34\] — autocorrelation<\/title>a_very_long_p…<\/text>$/);
    expect(fittedText("title", 0, 0, "<&>", 100)).toContain("&lt;&amp;&gt;");
  });
});

describe("posterior predictive bars", () => {
  it("counts the observed values and the replications' counts of each value", () => {
    // Two observations, one chain of three draws; each replication is (y_rep[1], y_rep[2]) at one draw.
    const yRep = [[Float64Array.from([0, 1, 2])], [Float64Array.from([0, 0, 2])]];
    expect(replicatedSets(yRep, 50).map((s) => Array.from(s))).toEqual([[0, 0], [1, 0], [2, 2]]);
    const svgText = ppcBarsSvg("k", [0, 2], yRep);
    expect(svgText).toContain('data-replications="3"');
    // Observed: one 0, no 1, one 2: three bars, the middle one of height zero.
    const bars = /<path class="observed" fill="[^"]+" d="([^"]+)"/.exec(svgText)![1]!;
    expect(bars.split("M")).toHaveLength(4);
    expect(svgText).toContain("observed k");
  });
});

describe("observations of a run", () => {
  // Columns as the CSV names them (dotted), one chain of two draws: each column's value encodes its name.
  const run = (names: readonly string[]) => chainsFromColumns(names, [names.map((_, k) => Float64Array.from([k, k + 0.5]))]);

  it("pairs each observe term's data, y_rep in row-major order and its share of log_lik, in the header's order", () => {
    const dir = mkdtempSync(join(tmpdir(), "ppl-observations-"));
    const data = join(dir, "data.json");
    writeFileSync(data, JSON.stringify({ Y: [[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]], k: [1, 0], N: 3 }));
    // Columns out of order: the family is sorted by its indices (Y_rep[1,2] before Y_rep[2,1]).
    const names = ["mu", "Y_rep.2.1", "Y_rep.1.1", "Y_rep.1.2", "Y_rep.2.2", "Y_rep.3.1", "Y_rep.3.2", "k_rep.1", "k_rep.2", ...Array.from({ length: 8 }, (_, i) => `log_lik.${i + 1}`)];
    const chains = run(names);
    const obs = observationsOf(chains, { "data.file": data, observed: "Y[3,2] k[2]", int_data: "N,k" });
    expect(obs.notes).toEqual([]);
    const [y, k] = obs.families;
    expect(y!.name).toBe("Y");
    expect(Array.from(y!.observed!)).toEqual([1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
    expect(y!.yRep!.map((e) => e[0]![0])).toEqual([2, 3, 1, 4, 5, 6]);
    expect(y!.logLik!.map((e) => e[0]![0])).toEqual([9, 10, 11, 12, 13, 14]);
    expect([y!.integer, y!.univariate]).toEqual([false, true]);
    expect(k!.logLik!.map((e) => e[0]![0])).toEqual([15, 16]);
    // k's replications take the values 7.5 and 8.5 at the second draw: not counts.
    expect(k!.integer).toBe(false);
  });

  it("says when the run's data file is gone, and leaves log_lik uncut when the terms do not account for it", () => {
    const chains = run(["mu", "y_rep.1", "y_rep.2", "log_lik.1", "log_lik.2", "log_lik.3"]);
    const obs = observationsOf(chains, { "data.file": "/nonexistent/data.json", observed: "y[2]" });
    expect(obs.notes).toEqual(["the run's data file '/nonexistent/data.json' is not there, so the observed values are not drawn (give --data FILE)"]);
    expect(obs.families[0]).toMatchObject({ name: "y", observed: null, logLik: null });
    // A header without `observed` (CmdStan's files): one term per <name>_rep family.
    expect(observationsOf(chains, {}).families.map((f) => f.name)).toEqual(["y"]);
  });
});
