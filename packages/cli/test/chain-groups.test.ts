// Chain groups of one run: `ppl sample --first-chain K` in separate processes, merged by
// `ppl summary DIR1 DIR2`, `ppl report` and `ppl merge`, equal one run of all chains.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readCsv, runCli, tempDir } from "./helpers.ts";

const MODEL = "examples/eight_schools.ts";
const DATA = "examples/eight_schools.json";

// The rows of a CSV file that are not comments: the column names and every draw, as written.
function rows(path: string): string[] {
  return readFileSync(path, "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

async function sample(out: string, extra: readonly string[], data = DATA): Promise<void> {
  const r = await runCli(["sample", MODEL, "--data", data, "--backend", "cpu", "--warmup", "150", "--draws", "100", "--seed", "11", "--quiet", "--output", out, ...extra]);
  expect(r.code, r.stderr).toBe(0);
}

describe("ppl sample --first-chain, ppl summary DIR1 DIR2, ppl merge", () => {
  const root = tempDir("ppl-groups-");
  const full = join(root, "full");
  const a = join(root, "a");
  const b = join(root, "b");

  beforeAll(async () => {
    await Promise.all([
      sample(full, ["--chains", "4"]),
      sample(a, ["--chains", "2", "--first-chain", "0"]),
      sample(b, ["--chains", "2", "--first-chain", "2"]),
    ]);
  }, 120_000);

  it("two runs of chains 0–1 and 2–3 write the draws of a 4-chain run, row for row, with ids 3 and 4 in the second", () => {
    for (const [dir, ids] of [[a, [1, 2]], [b, [3, 4]]] as const) {
      for (const id of ids) {
        const file = join(dir, `chain-${id}.csv`);
        expect(rows(file)).toEqual(rows(join(full, `chain-${id}.csv`)));
        const config = readCsv(file).config;
        expect(config["id"]).toBe(String(id));
        expect(config["data_hash"]).toMatch(/^sha256:[0-9a-f]{64}$/);
      }
    }
  });

  it("ppl summary A B gives the 4-chain run's summary; ppl merge A B -o M leaves the 4-chain run's files and summary", async () => {
    const whole = await runCli(["summary", "--json", full]);
    expect(whole.code, whole.stderr).toBe(0);
    const merged = await runCli(["summary", "--json", a, b]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toBe(whole.stdout);

    const m = join(root, "merged");
    const mr = await runCli(["merge", a, b, "-o", m]);
    expect(mr.code, mr.stderr).toBe(0);
    expect(mr.stderr).toMatch(/^merged 4 chains from 2 directories into .*chain-1\.csv, chain-2\.csv, chain-3\.csv, chain-4\.csv, summary\.json\)$/m);
    for (let id = 1; id <= 4; id++) expect(rows(join(m, `chain-${id}.csv`))).toEqual(rows(join(full, `chain-${id}.csv`)));
    expect(readFileSync(join(m, "summary.json"), "utf8")).toBe(readFileSync(join(full, "summary.json"), "utf8"));
    const ms = await runCli(["summary", "--json", m]);
    expect(ms.stdout).toBe(whole.stdout);
  });

  it("ppl report takes the chain groups too", async () => {
    const html = join(root, "report.html");
    const r = await runCli(["report", a, b, "-o", html]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(html, "utf8")).toContain("tau");
  });

  it("refuses groups of another seed, of other data, or one group twice, in one line naming what differs", async () => {
    const otherSeed = join(root, "seed");
    const r0 = await runCli(["sample", MODEL, "--data", DATA, "--backend", "cpu", "--warmup", "20", "--draws", "10", "--seed", "12", "--quiet", "--chains", "2", "--first-chain", "2", "--output", otherSeed]);
    expect(r0.code, r0.stderr).toBe(0);
    // The same values, written differently: another file's bytes, so another data hash.
    const data = join(root, "data.json");
    writeFileSync(data, JSON.stringify(JSON.parse(readFileSync(DATA, "utf8")), null, 4));
    const otherData = join(root, "data");
    const r1 = await runCli(["sample", MODEL, "--data", data, "--backend", "cpu", "--warmup", "150", "--draws", "100", "--seed", "11", "--quiet", "--chains", "2", "--first-chain", "2", "--output", otherData]);
    expect(r1.code, r1.stderr).toBe(0);

    const seed = await runCli(["summary", a, otherSeed]);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toMatch(/^ppl: the files are not chains of one run: (num_samples|num_warmup|seed) is \d+ in '.*' but \d+ in '.*'; merge only chain groups sampled with the same model, data, seed and settings/);
    expect(seed.stderr.trim().split("\n")).toHaveLength(1);

    const hash = await runCli(["merge", a, otherData, "-o", join(root, "m2")]);
    expect(hash.code).toBe(2);
    expect(hash.stderr).toMatch(/^ppl: the files are not chains of one run: data_hash is sha256:\w+ in '.*' but sha256:\w+ in '.*data\/chain-3\.csv'/);

    const twice = await runCli(["report", a, a, "-o", join(root, "r2.html")]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/^ppl: the files are not chains of one run: chain id 1 is in both '.*chain-1\.csv' and '.*chain-1\.csv'; give each chain once/);
  });
});
