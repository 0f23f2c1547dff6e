import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { summarize } from "../src/diagnostics/index.ts";
import {
  SAMPLER_BLOCK_KEY,
  SAMPLER_COLUMNS,
  chainsFromColumns,
  collectChains,
  fileSink,
  formatNumber,
  fromStanCsvName,
  parseNumber,
  readStanCsv,
  sampleConfig,
  samplerValues,
  stringSink,
  summaryToJson,
  toStanCsvName,
  writeStanCsv,
  writeSummaryJson,
} from "../src/io/index.ts";

const fixture = (name: string): string =>
  readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), "utf8");

const settings = {
  model: "eight_schools",
  numSamples: 3,
  numWarmup: 2,
  seed: 20240501,
  adaptDelta: 0.9,
  maxDepth: 8,
  dataFile: "eight.json",
  extra: { backend: "cpu", dtype: "float64" },
};

/** Same doubles, with -0 distinguished from 0 and NaN equal to NaN. */
function sameDouble(a: number, b: number): boolean {
  return Object.is(a, b);
}

describe("name conversion", () => {
  it("converts bracket and dotted names both ways", () => {
    expect(toStanCsvName("theta[1]")).toBe("theta.1");
    expect(toStanCsvName("L[1,2]")).toBe("L.1.2");
    expect(toStanCsvName("L[1, 2]")).toBe("L.1.2");
    expect(toStanCsvName("mu")).toBe("mu");
    expect(fromStanCsvName("theta.1")).toBe("theta[1]");
    expect(fromStanCsvName("L.1.2")).toBe("L[1,2]");
    expect(fromStanCsvName("lp__")).toBe("lp__");
    expect(fromStanCsvName("a.b")).toBe("a.b");
  });

  it("round-trips random indexed names", () => {
    const ident = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(ident, fc.array(fc.integer({ min: 1, max: 999 }), { maxLength: 4 }), (base, idx) => {
        const bracket = idx.length === 0 ? base : `${base}[${idx.join(",")}]`;
        expect(fromStanCsvName(toStanCsvName(bracket))).toBe(bracket);
      }),
    );
  });
});

describe("number format", () => {
  it("round-trips every double, keeping -0 and non-finite values", () => {
    fc.assert(
      fc.property(fc.double(), (x) => {
        expect(sameDouble(parseNumber(formatNumber(x)), x)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(formatNumber(-0)).toBe("-0");
    expect(formatNumber(3)).toBe("3");
    // Shortest: no decimal with one significant digit fewer reads back as the same double.
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => x !== 0), (x) => {
        const digits = formatNumber(x).replace(/^-/, "").replace(/e.*$/, "").replace(".", "").replace(/^0+/, "").replace(/0+$/, "").length;
        if (digits > 1) expect(Number(x.toPrecision(digits - 1))).not.toBe(x);
      }),
      { numRuns: 2000 },
    );
    expect(formatNumber(NaN)).toBe("NaN");
    expect(formatNumber(-Infinity)).toBe("-inf");
    expect(parseNumber("+inf")).toBe(Infinity);
    expect(parseNumber("")).toBeNaN();
    expect(parseNumber("0x10")).toBeNaN();
  });
});

describe("Stan CSV writer", () => {
  it("writes CmdStan's layout: settings, columns, adaptation, draws, timing", () => {
    const sink = stringSink();
    const w = writeStanCsv(sink, { config: sampleConfig(settings), parameters: ["mu", "theta[1]", "L[1,2]"] });
    w.writeAdaptation({ stepsize: 0.1234, inverseMetric: [1, 0.5, 2] });
    w.writeDraw([-1.5, 0.9, 0.1234, 3, 7, 0, 2.5, 0.25, -0, 1e-300]);
    w.close({ warmup: 1.5, sampling: 2.25 });
    const text = sink.text();
    const lines = text.split("\n");
    expect(lines).toContain("# model = eight_schools");
    expect(lines).toContain("# method = sample (Default)");
    expect(lines).toContain("#   sample");
    expect(lines).toContain("#     num_samples = 3");
    expect(lines).toContain("#     num_warmup = 2");
    expect(lines).toContain("#     thin = 1 (Default)");
    expect(lines).toContain("#       delta = 0.9");
    expect(lines).toContain("#             max_depth = 8");
    expect(lines).toContain("#   seed = 20240501");
    expect(lines).toContain("#   file = eight.json");
    expect(lines).toContain("# backend = cpu");
    expect(lines).toContain(
      "lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,mu,theta.1,L.1.2",
    );
    expect(text).toContain(
      "# Adaptation terminated\n# Step size = 0.1234\n# Diagonal elements of inverse mass matrix:\n# 1, 0.5, 2\n",
    );
    expect(lines).toContain("-1.5,0.9,0.1234,3,7,0,2.5,0.25,-0,1e-300");
    expect(text).toContain(
      "# \n#  Elapsed Time: 1.5 seconds (Warm-up)\n#                2.25 seconds (Sampling)\n#                3.75 seconds (Total)\n",
    );
  });

  it("writes a comment line between draws, which the reader passes over", () => {
    const sink = stringSink();
    const w = writeStanCsv(sink, { config: sampleConfig(settings), parameters: ["mu"] });
    w.writeComment("backend: moved to cpu (f64) after iteration 75");
    w.writeAdaptation({ stepsize: 0.5, inverseMetric: [2] });
    w.writeDraw([-1.5, 0.9, 0.5, 2, 3, 0, 2.5, 0.25]);
    expect(() => w.writeComment("two\nlines")).toThrow(/one line/);
    w.close();
    expect(sink.text()).toContain("\n# backend: moved to cpu (f64) after iteration 75\n# Adaptation terminated\n");
    const csv = readStanCsv(sink.text());
    expect(csv.columns.at(-1)).toBe("mu");
    expect(Array.from(csv.draws.at(-1)!)).toEqual([0.25]);
    expect(csv.draws[0]!.length).toBe(1);
    expect(csv.adaptation).toBeDefined();
  });

  it("rejects rows of the wrong width and writes after close", () => {
    const w = writeStanCsv(stringSink(), { config: [], parameters: ["a"] });
    expect(() => w.writeDraw([1, 2])).toThrow(/8 columns/);
    w.close();
    expect(() => w.writeDraw(new Array(8).fill(0))).toThrow(/closed/);
  });

  it("round-trips random columns and values through the reader", () => {
    const name = fc.tuple(
      fc.stringMatching(/^[a-z][A-Za-z0-9_]{0,6}$/),
      fc.array(fc.integer({ min: 1, max: 20 }), { maxLength: 3 }),
    );
    const value = fc.oneof(
      fc.double(),
      fc.double({ min: -1e-300, max: 1e-300 }),
      fc.constantFrom(0, -0, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER),
      fc.integer(),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { minLength: 1, maxLength: 6, selector: ([b]) => b }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 8 }),
        fc.boolean(),
        fc.infiniteStream(value),
        (names, warmupRows, samplingRows, dense, values) => {
          const params = names.map(([b, idx]) => (idx.length === 0 ? b : `${b}[${idx.join(",")}]`));
          const width = SAMPLER_COLUMNS.length + params.length;
          const take = (): number[] => Array.from({ length: width }, () => values.next().value as number);
          const warmup = Array.from({ length: warmupRows }, take);
          const sampling = Array.from({ length: samplingRows }, take);
          const d = params.length;
          const metric = dense
            ? Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? 1 : 0.1 * (i + j))))
            : Array.from({ length: d }, (_, i) => 1 / (i + 1));
          const sink = stringSink();
          const w = writeStanCsv(sink, {
            config: sampleConfig({ ...settings, saveWarmup: true, numWarmup: warmupRows, numSamples: samplingRows }),
            parameters: params,
          });
          warmup.forEach((r) => w.writeDraw(r));
          w.writeAdaptation({ stepsize: 0.375, inverseMetric: metric });
          sampling.forEach((r) => w.writeDraw(r));
          w.close({ warmup: 0.5, sampling: 0.25 });

          const csv = readStanCsv(sink.text());
          expect(csv.columns).toEqual([...SAMPLER_COLUMNS, ...params.map(toStanCsvName)]);
          expect(csv.columns.map(fromStanCsvName).slice(SAMPLER_COLUMNS.length)).toEqual(params);
          expect(csv.truncated).toBe(false);
          for (let c = 0; c < width; c++) {
            expect(csv.warmupDraws[c]!.length).toBe(warmupRows);
            expect(csv.draws[c]!.length).toBe(samplingRows);
            warmup.forEach((r, i) => expect(sameDouble(csv.warmupDraws[c]![i]!, r[c]!)).toBe(true));
            sampling.forEach((r, i) => expect(sameDouble(csv.draws[c]![i]!, r[c]!)).toBe(true));
          }
          expect(csv.adaptation?.stepsize).toBe(0.375);
          expect(csv.adaptation?.inverseMetric).toEqual(metric);
          expect(csv.timing).toEqual({ warmup: 0.5, sampling: 0.25, total: 0.75 });
          expect(csv.config["seed"]).toBe("20240501");
          expect(csv.config["num_samples"]).toBe(String(samplingRows));
          expect(csv.config["save_warmup"]).toBe("1");
          expect(csv.config["data.file"]).toBe("eight.json");
          expect(csv.config["output.file"]).toBe("output.csv");
          expect(csv.config["backend"]).toBe("cpu");
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("interrupted runs", () => {
  function partialRun(): string {
    const sink = stringSink();
    const w = writeStanCsv(sink, { config: sampleConfig(settings), parameters: ["x[1]", "x[2]"] });
    w.writeAdaptation({ stepsize: 0.5, inverseMetric: [1, 2] });
    for (let i = 0; i < 5; i++) w.writeDraw([-i, 0.9, 0.5, 2, 3, 0, i + 1, i / 3, -i / 7]);
    // No close(): the process died before the footer.
    return sink.text();
  }

  it("parses a stream closed mid-run without the footer", () => {
    const csv = readStanCsv(partialRun());
    expect(csv.draws[0]!.length).toBe(5);
    expect(csv.draws[8]![4]).toBe(-4 / 7);
    expect(csv.timing).toBeUndefined();
    expect(csv.truncated).toBe(false);
  });

  it("drops a final row cut mid-write and reports it", () => {
    const text = partialRun();
    const cut = text.slice(0, text.length - 12);
    const csv = readStanCsv(cut);
    expect(csv.truncated).toBe(true);
    expect(csv.draws[0]!.length).toBe(4);
  });

  it("still rejects a malformed row that is not the last", () => {
    const text = partialRun().replace("\n-1,0.9", "\n-1,0.9,oops");
    expect(() => readStanCsv(text)).toThrow(/line \d+/);
  });

  it("a file sink keeps every row written before the process stops", () => {
    const dir = mkdtempSync(join(tmpdir(), "ppl-io-"));
    try {
      const path = join(dir, "chain-1.csv");
      const w = writeStanCsv(fileSink(path), { config: sampleConfig(settings), parameters: ["mu"] });
      w.writeAdaptation({ stepsize: 0.5, inverseMetric: [1] });
      w.writeDraw([-1, 1, 0.5, 1, 1, 0, 1, 0.25]);
      w.writeDraw([-2, 1, 0.5, 1, 1, 0, 2, 0.5]);
      // Read while still open: nothing sits in a process buffer.
      const csv = readStanCsv(readFileSync(path, "utf8"));
      expect([...csv.draws[7]!]).toEqual([0.25, 0.5]);
      w.close({ warmup: 1, sampling: 1 });
      expect(readStanCsv(readFileSync(path, "utf8")).timing?.total).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("CmdStan's own files", () => {
  it("reads a CmdStan sample file with saved warmup", () => {
    const csv = readStanCsv(fixture("cmdstan-bernoulli.csv"));
    expect(csv.columns).toEqual([...SAMPLER_COLUMNS, "theta"]);
    expect(csv.config["model"]).toBe("bernoulli_model");
    expect(csv.config["method"]).toBe("sample");
    expect(csv.config["num_samples"]).toBe("6");
    expect(csv.config["delta"]).toBe("0.80000000000000004");
    expect(csv.config["max_depth"]).toBe("10");
    expect(csv.config["seed"]).toBe("1234");
    expect(csv.config["file"]).toBe("bernoulli.data.json");
    expect(csv.config["output.file"]).toBe("output.csv");
    expect(csv.config["metric_file"]).toBe("");
    expect(csv.warmupDraws[7]!.length).toBe(4);
    expect(csv.warmupDraws[7]![0]).toBe(0.153062);
    expect(csv.draws[7]!.length).toBe(6);
    expect([...csv.draws[7]!]).toEqual([0.247635, 0.315104, 0.0914614, 0.30059, 0.103926, 0.237419]);
    expect([...csv.draws[5]!]).toEqual([0, 0, 0, 0, 1, 0]);
    expect(csv.adaptation).toEqual({ stepsize: 0.908839, inverseMetric: [0.548269] });
    expect(csv.timing).toEqual({ warmup: 0.002, sampling: 0.004, total: 0.006 });
  });

  it("reads a dense metric, matrix names and non-finite values", () => {
    const csv = readStanCsv(fixture("cmdstan-dense.csv"));
    expect(csv.columns.slice(7).map(fromStanCsvName)).toEqual([
      "mu[1]",
      "mu[2]",
      "L[1,1]",
      "L[2,1]",
      "L[1,2]",
      "L[2,2]",
      "sigma",
    ]);
    expect(csv.warmupDraws[0]!.length).toBe(0);
    expect(csv.draws[0]!.length).toBe(3);
    expect(csv.draws[13]![0]).toBe(1.2e-5);
    expect(csv.draws[13]![1]).toBe(Infinity);
    expect(csv.draws[13]![2]).toBeNaN();
    expect(csv.adaptation?.stepsize).toBe(0.512377);
    expect(csv.adaptation?.inverseMetric).toEqual([
      [1.02341, 0.0124, -0.3],
      [0.0124, 0.87, 0.015],
      [-0.3, 0.015, 2.5e-5],
    ]);
    expect(csv.config["metric"]).toBe("dense_e");
    expect(csv.config["id"]).toBe("2");
    expect(csv.timing?.total).toBe(1.801);
  });

  it("handles CRLF line endings", () => {
    const csv = readStanCsv(fixture("cmdstan-bernoulli.csv").replace(/\n/g, "\r\n"));
    expect(csv.draws[7]!.length).toBe(6);
    expect(csv.timing?.sampling).toBe(0.004);
  });
});

describe("collecting chains and the JSON summary", () => {
  function chainText(seed: number, n: number): string {
    const sink = stringSink();
    const w = writeStanCsv(sink, { config: sampleConfig(settings), parameters: ["mu", "theta[1]"] });
    let s = seed;
    const u = (): number => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 2147483648;
    };
    w.writeAdaptation({ stepsize: 0.5, inverseMetric: [1, 1] });
    for (let i = 0; i < n; i++) {
      w.writeDraw([-u(), u(), 0.5, 3, 7, i === 3 ? 1 : 0, 5 + u(), u() - 0.5, 2 * u()]);
    }
    w.close({ warmup: 1, sampling: 1 });
    return sink.text();
  }

  it("summarizes chains read back from Stan CSV, with a sampler block", () => {
    const files = [chainText(1, 200), chainText(2, 200), chainText(3, 180)];
    const chains = collectChains(files.map(readStanCsv));
    expect(chains.drawsPerChain).toBe(180);
    expect(Object.keys(chains.parameters)).toEqual(["mu", "theta[1]"]);
    const summary = summarize(chains.parameters, { sampler: chains.sampler!, maxTreeDepth: 8 });
    const json = summaryToJson(summary);
    const mu = json["mu"] as unknown as Record<string, number | null>;
    expect(Object.keys(mu)).toEqual(["mean", "mcse_mean", "sd", "mad", "q5", "q50", "q95", "ess_bulk", "ess_tail", "rhat"]);
    expect(mu["mean"]).toBeCloseTo(0, 1);
    const block = json[SAMPLER_BLOCK_KEY] as { divergences: number; chains: number; warnings: Array<{ kind: string }> };
    expect(block.divergences).toBe(3);
    expect(block.chains).toBe(3);
    expect(block.warnings.some((w) => w.kind === "divergences")).toBe(true);
    const text = writeSummaryJson(summary);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(json)));
  });

  it("writes NA as null", () => {
    const summary = summarize({ c: [[1, 1, 1, 1], [1, 1, 1, 1]] });
    const parsed = JSON.parse(writeSummaryJson(summary)) as Record<string, Record<string, unknown>>;
    expect(parsed["c"]!["rhat"]).toBeNull();
    expect(parsed["c"]!["mean"]).toBe(1);
    expect(parsed[SAMPLER_BLOCK_KEY]!["divergences"]).toBeNull();
  });

  it("rejects chains with different columns", () => {
    const a = readStanCsv(chainText(1, 10));
    const b = readStanCsv(fixture("cmdstan-bernoulli.csv"));
    expect(() => collectChains([a, b])).toThrow(/different columns/);
  });
});

describe("sampler columns", () => {
  it("a draw's sampler values come out in SAMPLER_COLUMNS order", () => {
    const out = new Float64Array(SAMPLER_COLUMNS.length);
    const draw = {
      chain: 0, chainId: 0, iteration: 3, warmup: false, position: new Float64Array(1),
      lp: -1.5, acceptStat: 0.9, stepSize: 0.3, treeDepth: 4, nLeapfrog: 15, divergent: true, energy: 2.25,
    };
    samplerValues(draw, out);
    expect(Object.fromEntries(SAMPLER_COLUMNS.map((c, i) => [c, out[i]]))).toEqual({
      lp__: -1.5, accept_stat__: 0.9, stepsize__: 0.3, treedepth__: 4, n_leapfrog__: 15, divergent__: 1, energy__: 2.25,
    });
  });

  it("chainsFromColumns regroups in-memory draws as collectChains regroups files", () => {
    const names = [...SAMPLER_COLUMNS, "theta.1", "theta.2"];
    const chain = (k: number) => names.map((_, c) => Float64Array.from({ length: 5 - k }, (_, i) => 100 * c + 10 * k + i));
    const draws = [chain(0), chain(1)];
    const files = draws.map((d) => ({ ...readStanCsv(`${names.join(",")}\n`), draws: d }));
    expect(chainsFromColumns(names, draws)).toEqual(collectChains(files));
    expect(chainsFromColumns(names, draws).drawsPerChain).toBe(4);
    expect(Object.keys(chainsFromColumns(names, draws).parameters)).toEqual(["theta[1]", "theta[2]"]);
  });
});

describe("readStanCsv's header", () => {
  it("refuses a column without a name or named twice, naming the line and the column", () => {
    expect(() => readStanCsv(",\n")).toThrow("line 1: the header's column 1 has no name");
    expect(() => readStanCsv("# model = m\nlp__,mu,,tau\n1,2,3,4\n")).toThrow("line 2: the header's column 3 has no name");
    expect(() => readStanCsv("lp__,mu,mu\n1,2,3\n")).toThrow("line 1: the header names column 'mu' twice");
  });
});
