// `ppl summary` on CmdStan's own CSV layout (fixtures from the ppl package).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectChains, readStanCsv, summarize, summaryToJson } from "@ppl/ppl";
import { ROOT, runCli } from "./helpers.ts";

const BERNOULLI = "packages/ppl/test/fixtures/cmdstan-bernoulli.csv";
const DENSE = "packages/ppl/test/fixtures/cmdstan-dense.csv";

function library(paths: string[]) {
  const files = paths.map((p) => readStanCsv(readFileSync(join(ROOT, p), "utf8")));
  const chains = collectChains(files);
  const maxTreeDepth = Number(files[0]!.config["max_depth"]);
  return summaryToJson(summarize(chains.parameters, { ...(chains.sampler ? { sampler: chains.sampler } : {}), maxTreeDepth }));
}

describe.concurrent("ppl summary on CmdStan files", () => {
  it("reads CmdStan's bernoulli output (saved warmup, adaptation block, timing) as the library does", async () => {
    const r = await runCli(["summary", BERNOULLI, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json).toEqual(JSON.parse(JSON.stringify(library([BERNOULLI]))));
    expect(Object.keys(json)).toEqual(["theta", "sampler__"]);
    // The six sampling draws, not the four saved warmup draws.
    expect(json.sampler__.draws_per_chain).toBe(6);
    expect(json.theta.mean).toBeCloseTo((0.247635 + 0.315104 + 0.0914614 + 0.30059 + readLastTwo()) / 6, 12);
  });

  it("prints the table for several files given as chains, with the sampler diagnostics", async () => {
    const r = await runCli(["summary", BERNOULLI, BERNOULLI]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\s+mean\s+MCSE\s+sd\s+MAD\s+5%\s+50%\s+95%\s+ESS_bulk\s+ESS_tail\s+R_hat\n/);
    expect(r.stdout).toMatch(/^theta\s/m);
    expect(r.stdout).toMatch(/Sampler diagnostics \(2 chains × 6 draws\):/);
    expect(r.stdout).toMatch(/divergences: 2 of 12 \(per chain: 1, 1\)/);
  });

  it("reads a dense-metric CmdStan file with matrix names, inf and NaN draws", async () => {
    const r = await runCli(["summary", DENSE, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(Object.keys(json)).toEqual(["mu[1]", "mu[2]", "L[1,1]", "L[2,1]", "L[1,2]", "L[2,2]", "sigma", "sampler__"]);
    expect(json).toEqual(JSON.parse(JSON.stringify(library([DENSE]))));
    expect(json.sigma.mean).toBeNull();
    // The header's max_depth (12), not Stan's default, decides what counts as a tree-depth hit.
    expect(json.sampler__.max_treedepth).toBe(12);
    const table = await runCli(["summary", DENSE]);
    expect(table.stdout).toMatch(/^sigma\s+NA\s/m);
  });
});

// theta's last two sampling draws in the bernoulli fixture.
function readLastTwo(): number {
  const f = readStanCsv(readFileSync(join(ROOT, BERNOULLI), "utf8"));
  const theta = f.draws[f.columns.indexOf("theta")]!;
  return theta[4]! + theta[5]!;
}
