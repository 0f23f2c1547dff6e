// --output-format single: every chain in one DIR/draws.csv (a chain__ column leads each row),
// read back by the commands as one Stan CSV file per chain would be.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sampleConfig, type DrawInfo } from "@ppl/ppl";
import { ChainFiles } from "../src/chain-files.ts";
import { DRAWS_FILE, DrawsFile } from "../src/draws-file.ts";
import { readRun } from "../src/read-runs.ts";
import { summaryCommand } from "../src/commands/summary.ts";
import { sampleCommand } from "../src/commands/sample.ts";
import type { SampleCommandOptions } from "../src/commands/sample-options.ts";
import { CLI_NODE_ARGS, ROOT, runCli, tempDir } from "./helpers.ts";

const LONG = process.env["PPL_LONG"] === "1";

// Runs `ppl ARGS` under GNU time; its exit code and peak resident set in MB.
function peakRss(args: readonly string[]): Promise<{ code: number | null; mb: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-v", process.execPath, ...CLI_NODE_ARGS, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      if (m === null) reject(new Error(`no peak resident set in GNU time's output: ${stderr.slice(-2000)}`));
      else resolve({ code, mb: Number(m[1]) / 1024, stderr });
    });
  });
}

const POSTERIOR = "../shared/posteriordb/eight_schools-eight_schools_noncentered";

function draw(chain: number, i: number, values: readonly number[]): DrawInfo {
  return {
    chain, chainId: chain, iteration: 10 + i, warmup: false, position: Float64Array.from(values), lp: values[0]! - 1, acceptStat: 0.5, stepSize: 0.25,
    treeDepth: 2, nLeapfrog: 3, divergent: i % 3 === 0, energy: values[1]! + 2,
  } as DrawInfo;
}

const config = (chain: number) => sampleConfig({ model: "m", numSamples: 4, numWarmup: 10, seed: 1, chainId: chain + 1, numChains: 3, extra: { data_hash: "x" } });

describe("draws.csv", () => {
  it("reads back, chain by chain, bit for bit what chain-N.csv files hold, with each chain's adaptation", () => {
    const value = fc.double({ noNaN: true, min: -1e300, max: 1e300 });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), value, value), { minLength: 3, maxLength: 40 }), (rows) => {
        const a = tempDir();
        const b = tempDir();
        const perChain = new ChainFiles(a, 3, ["x", "y"], config);
        const one = new DrawsFile(b, 3, ["x", "y"], config(0));
        const adaptation = [0, 1, 2].map((c) => ({ stepSize: 0.1 * (c + 1), metric: "diag" as const, invMetric: Float64Array.of(c + 1, 0.5) }));
        adaptation.forEach((x, c) => {
          perChain.writeAdaptation([x], c);
          one.writeAdaptation([x], c);
        });
        // Every chain at least one draw; rows interleaved across chains as the sampler's threads make them.
        const all: Array<[number, number, number]> = [[0, 1, 2], [1, 3, 4], [2, 5, 6], ...rows];
        const counts = [0, 0, 0];
        for (const [c, x, y] of all) {
          const d = draw(c, counts[c]!++, [x, y]);
          perChain.writeDraw(d, [x, y]);
          one.writeDraw(d, [x, y]);
        }
        for (const f of [perChain, one]) {
          f.close({ warmup: 1, sampling: 2 });
          f.release();
        }
        expect(readdirSync(b).sort()).toEqual([DRAWS_FILE]);
        const ra = readRun([a]);
        const rb = readRun([b]);
        expect(rb.files.length).toBe(3);
        rb.files.forEach((f, c) => {
          const g = ra.files[c]!;
          expect(f.columns).toEqual(g.columns);
          expect(rb.chainColumns(c).map((col) => Array.from(col))).toEqual(ra.chainColumns(c).map((col) => Array.from(col)));
          expect(f.config["id"]).toBe(String(c + 1));
          expect(f.adaptation).toEqual({ stepsize: 0.1 * (c + 1), inverseMetric: [c + 1, 0.5] });
          expect(f.timing).toEqual(g.timing);
        });
        expect(rb.chains.drawsPerChain).toBe(ra.chains.drawsPerChain);
        ra.release();
        rb.release();
      }),
      { numRuns: 10 },
    );
  });

  it("drops a last row cut mid-write, and says so", () => {
    const dir = tempDir();
    const f = new DrawsFile(dir, 2, ["x"], config(0));
    for (let i = 0; i < 3; i++) for (const c of [0, 1]) f.writeDraw(draw(c, i, [i + c, 0]), [i + c]);
    // The draws are kept for the summary in the columnar spill on disk, not in memory.
    expect(existsSync(join(dir, ".draws-1.spill"))).toBe(true);
    f.close();
    f.release();
    expect(existsSync(join(dir, ".draws-1.spill"))).toBe(false);
    const path = join(dir, DRAWS_FILE);
    writeFileSync(path, readFileSync(path, "utf8") + "1,0.5,0.9");
    const run = readRun([dir]);
    expect(run.files.map((x) => x.truncated)).toEqual([true, true]);
    expect(run.files.map((x, c) => Array.from(run.chainColumns(c)[x.columns.indexOf("x")]!))).toEqual([[0, 1, 2], [1, 2, 3]]);
    run.release();
  });

  it("1024 chains × 20 draws of ChEES through ppl sample write one file, which ppl summary reads", async () => {
    const out = tempDir();
    const r = await runCli([
      "sample", `${POSTERIOR}/model.stan`, "--data", `${POSTERIOR}/data.json`, "--algorithm", "chees", "--chains", "1024", "--superchains", "32",
      "--warmup", "10", "--draws", "20", "--seed", "5", "--output", out, "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(0);
    // One draws file (auto beyond 256 chains) and the summary; the columnar spill that held the draws is gone.
    expect(readdirSync(out).filter((n) => !n.startsWith(".ppl")).sort()).toEqual([DRAWS_FILE, "summary.json"]);
    let stdout = "";
    const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => true } };
    expect(summaryCommand([out], { json: true }, io)).toBe(0);
    const read = JSON.parse(stdout) as Record<string, { mean: number; rhat_nested?: number; chains?: number; draws_per_chain?: number }>;
    const written = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as typeof read;
    expect(read["sampler__"]!.chains).toBe(1024);
    expect(read["sampler__"]!.draws_per_chain).toBe(20);
    // The summary from the file equals the one the run made from its spill (the file's numbers are exact).
    expect(read["tau"]).toEqual(written["tau"]);
    expect(read["theta[1]"]!.rhat_nested).toBe(written["theta[1]"]!.rhat_nested);
    expect(existsSync(join(out, "chain-1.csv"))).toBe(false);
  }, 120_000);

  it("NUTS with --threads 2 writes the same draws into draws.csv as into chain files: the same summary.json, the same rows per chain", async () => {
    const outputs: string[] = [];
    for (const outputFormat of ["chains", "single"] as const) {
      const out = tempDir();
      const io = { stdout: { write: () => true }, stderr: { write: () => true } };
      const opts = {
        data: `${POSTERIOR}/data.json`, chains: 6, threads: 2, warmup: 150, draws: 40, seed: 9, backend: "cpu", metric: "diag", adaptDelta: 0.8, maxDepth: 10, init: 2,
        output: out, quiet: true, strict: false, refresh: 0, outputFormat,
      } as SampleCommandOptions;
      expect(await sampleCommand(`${POSTERIOR}/model.stan`, opts, io)).toBe(0);
      outputs.push(out);
    }
    const [chains, single] = outputs as [string, string];
    expect(readFileSync(join(single, "summary.json"), "utf8")).toBe(readFileSync(join(chains, "summary.json"), "utf8"));
    const a = readRun([chains]);
    const b = readRun([single]);
    expect(b.files.map((_, i) => b.chainColumns(i).map((c) => Array.from(c)))).toEqual(a.files.map((_, i) => a.chainColumns(i).map((c) => Array.from(c))));
    expect(b.files.map((f) => f.adaptation)).toEqual(a.files.map((f) => f.adaptation));
  }, 120_000);

  // 50 independent normals, 1024 chains: 300 draws of the 57 columns are 140 MB as float64, so a
  // run that held them would peak at least that much higher than one of 20 draws. Streamed to
  // draws.csv and the spill, what grows is the summary's work on one parameter's 307,200 draws
  // (ranks, splits, FFTs: about 60 MB measured), hence the bound of 100 MB.
  it.runIf(LONG && existsSync("/usr/bin/time"))("the peak memory of 1024 chains grows less than their draws between 20 and 300 draws (PPL_LONG=1)", async () => {
    const fixture = join(ROOT, "packages/cli/test/fixtures/memory");
    const rss: number[] = [];
    for (const draws of [20, 300]) {
      const out = tempDir();
      const r = await peakRss([
        "sample", join(fixture, "iid-normal.ts"), "--data", join(fixture, "iid-normal.json"), "--algorithm", "chees", "--chains", "1024",
        "--warmup", "10", "--draws", String(draws), "--seed", "5", "--output", out, "--quiet", "--refresh", "0",
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(out).filter((n) => !n.startsWith(".ppl")).sort()).toEqual([DRAWS_FILE, "summary.json"]);
      rss.push(r.mb);
    }
    expect(rss[1]! - rss[0]!).toBeLessThan(100);
  }, 900_000);
});
