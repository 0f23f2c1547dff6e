// The README's "Use from TypeScript" block is examples/api.ts, which runs, and whose draws are the
// draws `ppl sample` makes with the same seed and settings, bit for bit.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { ROOT, runCli } from "./helpers.ts";

const EXAMPLE = join(ROOT, "examples/api.ts");

function readmeBlock(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Use from TypeScript"));
  const m = /```ts\n([\s\S]*?)```\n/.exec(section);
  if (m === null) throw new Error("README.md: the section 'Use from TypeScript' has no ```ts block");
  return m[1]!;
}

function runExample(out: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // On the sources (the "@ppl/source" condition), as the tests run.
  const child = spawn(process.execPath, ["--conditions=@ppl/source", "--import", "tsx", EXAMPLE, out], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the TypeScript API's example", () => {
  it("is the README's block, word for word", () => {
    expect(readmeBlock()).toBe(readFileSync(EXAMPLE, "utf8"));
  });

  it("runs, and its draws and summary equal ppl sample's with the same seed", async () => {
    const api = mkdtempSync(join(tmpdir(), "api-example-"));
    const cli = mkdtempSync(join(tmpdir(), "api-cli-"));
    const ran = await runExample(api);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^mu: 2 chains of 200; theta has shape \[8\]\ntau: mean \d+\.\d\d, R-hat \d\.\d{3}\ndivergences: \d+\nelpd_loo: -\d+\.\d\n$/);
    const r = await runCli([
      "sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--chains", "2", "--warmup", "300", "--draws", "200",
      "--seed", "11", "--backend", "cpu", "--output", cli, "--quiet",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    for (const file of ["chain-1.csv", "chain-2.csv"]) {
      const a = readStanCsv(readFileSync(join(api, file), "utf8"));
      const b = readStanCsv(readFileSync(join(cli, file), "utf8"));
      expect(a.columns).toEqual(b.columns);
      a.columns.forEach((c, k) => expect(Array.from(a.draws[k]!), `${file} ${c}`).toEqual(Array.from(b.draws[k]!)));
      expect(a.adaptation).toEqual(b.adaptation);
    }
    // The printed summary of tau is the CLI's summary.json's, to the digits printed.
    const tau = (JSON.parse(readFileSync(join(cli, "summary.json"), "utf8")) as Record<string, { mean: number; rhat: number }>)["tau"]!;
    expect(ran.stdout).toContain(`tau: mean ${tau.mean.toFixed(2)}, R-hat ${tau.rhat.toFixed(3)}`);
  });
});
