// The commands that read a run's files (summary, report, export, loo, merge, generate) stream them
// into a columnar spill a line at a time (run-spill.ts): every file's header, its warmup and
// sampling draws and the summary made from the spill equal, bit for bit, what reading each file
// whole (readStanCsv) and regrouping the columns in memory (collectChains) gives.
import { readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatNumber } from "@ppl/ppl";
import { collectChains, readStanCsv, summarizeEach, type Summary } from "@ppl/ppl/diagnostics";
import { readRun, summarizeRun } from "../src/read-runs.ts";
import { summaryCommand } from "../src/commands/summary.ts";
import { tempDir } from "./helpers.ts";

const SAMPLER = ["lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__"];

// One chain's file: header, column line, saved warmup rows, adaptation, sampling rows, footer; comment lines between rows; the last row possibly cut.
interface ChainText {
  readonly warmup: number[][];
  readonly draws: number[][];
  readonly comments: boolean;
  readonly cut: boolean;
  readonly method: "sample" | "variational";
}

function chainText(c: ChainText, id: number, width: number): string {
  const names = [...SAMPLER, ...Array.from({ length: width }, (_, k) => (k === 0 ? "mu" : `theta.${k}`))];
  const row = (values: number[]): string => values.map(formatNumber).join(",") + "\n";
  const lines = [`# model = m\n# method = ${c.method}\n#   sample\n#     num_samples = 100\n#     save_warmup = ${c.warmup.length > 0 ? 1 : 0}\n# id = ${id}\n`, names.join(",") + "\n"];
  for (const w of c.warmup) lines.push(row(w));
  lines.push("# Adaptation terminated\n# Step size = 0.25\n# Diagonal elements of inverse mass matrix:\n# 1, 2.5\n");
  c.draws.forEach((d, i) => {
    lines.push(row(d));
    if (c.comments && i % 3 === 1) lines.push("# a comment between rows\n\n");
  });
  lines.push("# \n#  Elapsed Time: 0.5 seconds (Warm-up)\n#                1.5 seconds (Sampling)\n#                2 seconds (Total)\n");
  const text = lines.join("");
  return c.cut ? text + "1,0.5" : text;
}

const value = fc.oneof(
  { weight: 8, arbitrary: fc.double({ noDefaultInfinity: false }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, 1, 1, 2, Infinity, -Infinity, NaN, 5e-324) },
);

function expectSameStats(a: Summary, b: Summary): void {
  expect(a.parameters.map((p) => p.name)).toEqual(b.parameters.map((p) => p.name));
  a.parameters.forEach((p, i) => {
    for (const [k, v] of Object.entries(p)) expect(Object.is(v, (b.parameters[i] as unknown as Record<string, unknown>)[k]), `${p.name}.${k}`).toBe(true);
  });
  expect(a.sampler).toEqual(b.sampler);
  expect(a.warnings).toEqual(b.warnings);
}

describe("a run's files read into a spill", () => {
  it("hold each file's header and draws, and give the in-memory summary, bit for bit, for any block size", () => {
    const dir = tempDir();
    let n = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 7 }),
        fc.boolean(),
        fc.array(fc.record({ warmup: fc.nat({ max: 4 }), draws: fc.integer({ min: 2, max: 23 }), comments: fc.boolean(), cut: fc.boolean() }), { minLength: 1, maxLength: 4 }),
        fc.array(value, { minLength: 400, maxLength: 400 }),
        (width, saveWarmup, blockRows, variational, shapes, pool) => {
          let at = 0;
          const next = (): number => pool[at++ % pool.length]!;
          const rowOf = (): number[] => [next(), 0.9, 0.25, 3, 7, Math.abs(next()) > 1 ? 1 : 0, next(), ...Array.from({ length: width }, next)];
          const run = `${dir}/r${n++}`;
          const texts = shapes.map((s, c) => {
            const chain: ChainText = {
              warmup: Array.from({ length: saveWarmup > 1 ? s.warmup + 1 : 0 }, rowOf), draws: Array.from({ length: s.draws }, rowOf),
              comments: s.comments, cut: s.cut, method: variational ? "variational" : "sample",
            };
            return chainText(chain, c + 1, width);
          });
          const paths = texts.map((t, c) => {
            const p = `${run}-chain-${c + 1}.csv`;
            writeFileSync(p, t);
            return p;
          });
          const read = readRun(paths, blockRows);
          try {
            const whole = texts.map(readStanCsv).map((f) => (variational ? { ...f, draws: f.draws.map((x) => x.subarray(1)) } : f));
            read.files.forEach((f, c) => {
              const w = whole[c]!;
              expect(f.config).toEqual(w.config);
              expect(f.columns).toEqual(w.columns);
              expect(f.adaptation).toEqual(w.adaptation);
              expect(f.timing).toEqual(w.timing);
              expect(f.truncated).toBe(w.truncated);
              expect(f.drawCount).toBe(w.draws[0]!.length);
              expect(f.warmupCount).toBe(w.warmupDraws[0]!.length);
              const cols = read.chainColumns(c);
              cols.forEach((col, k) => expect(Buffer.from(col.buffer).equals(Buffer.from(Float64Array.from(w.draws[k]!).buffer))).toBe(true));
            });
            const inMemory = collectChains(whole);
            expect(read.chains.drawsPerChain).toBe(inMemory.drawsPerChain);
            if (read.warmup !== undefined) {
              const warm = collectChains(whole.map((f) => ({ ...f, draws: f.warmupDraws })));
              for (const [name, chains] of Object.entries(warm.columns)) {
                read.warmup.columns[name]!.forEach((x, c) => expect(Buffer.from(x.buffer).equals(Buffer.from(Float64Array.from(chains[c]!).buffer))).toBe(true));
              }
            } else expect(whole.every((f) => f.warmupDraws[0]!.length > 0)).toBe(false);
            if (inMemory.drawsPerChain === 0) return;
            const expected = summarizeEach(Object.keys(inMemory.parameters), (p) => inMemory.parameters[p]!, { ...(inMemory.sampler ? { sampler: inMemory.sampler } : {}), maxTreeDepth: 10 });
            expectSameStats(summarizeRun(read), expected);
          } finally {
            read.release();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("leave no spill file behind, in the temporary directory or beside the files, and ppl summary prints what the files hold", () => {
    const dir = tempDir();
    const rows = Array.from({ length: 30 }, (_, i) => [-(i % 5), 0.9, 0.25, 3, 7, 0, 1.5, Math.sin(i), Math.cos(i * 1.7)]);
    for (const c of [1, 2]) writeFileSync(join(dir, `chain-${c}.csv`), chainText({ warmup: [], draws: rows.map((r) => r.map((v) => v * c)), comments: true, cut: false, method: "sample" }, c, 2));
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith(`ppl-run-${process.pid}-`));
    let out = "";
    const io = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: () => true } };
    expect(summaryCommand([dir], { json: true }, io)).toBe(0);
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith(`ppl-run-${process.pid}-`))).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(["chain-1.csv", "chain-2.csv"]);
    const inMemory = collectChains([1, 2].map((c) => readStanCsv(chainText({ warmup: [], draws: rows.map((r) => r.map((v) => v * c)), comments: true, cut: false, method: "sample" }, c, 2))));
    const json = JSON.parse(out) as Record<string, { mean: number; ess_bulk: number }>;
    const expected = summarizeEach(Object.keys(inMemory.parameters), (p) => inMemory.parameters[p]!, { sampler: inMemory.sampler!, maxTreeDepth: 10 });
    expect(json["theta[1]"]!.mean).toBe(expected.parameters.find((p) => p.name === "theta[1]")!.mean);
    expect(json["mu"]!.ess_bulk).toBe(expected.parameters.find((p) => p.name === "mu")!.ess_bulk);
  });
});
