// `ppl check` type-checks a model file anywhere against the declarations ppl runs on and builds it
// with its data; `ppl init` scaffolds a project that an editor's `tsc` checks clean and that samples.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "./helpers.ts";

const BAD = `import { data, model, normal, diagMatrix } from "@ppl/ppl";

export default model({
  name: "bad",
  data: { N: data.int({ lower: 1 }), y: data.vector("N") },
  build(m, d) {
    const sigma = diagMatrix;
    const mu = m.param("mu", normal("0", 5));
    m.observe(d.y, normal(mu, 1));
  },
});
`;

function tsc(dir: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", dir], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (out += s));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

describe("ppl check", () => {
  it("reports type errors at file:line:column, and names the package of a name imported from the wrong one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ppl-check-"));
    const file = join(dir, "bad.ts");
    writeFileSync(file, BAD);
    const r = await runCli(["check", file]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${file}:1:31: error TS2305: Module '"@ppl/ppl"' has no exported member 'diagMatrix'. ('diagMatrix' is exported by @ppl/tensor: import { diagMatrix } from "@ppl/tensor")`);
    expect(r.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:8:37: error TS2345: Argument of type 'string' is not assignable`));
    expect(r.stderr).toContain(`model file '${file}': 2 type errors`);
    expect(r.stdout).toBe("");
    // ppl sample --typecheck: the same errors, and the run never starts.
    const out = join(dir, "out");
    const s = await runCli(["sample", file, "--typecheck", "--backend", "cpu", "--output", out]);
    expect(s.code).toBe(3);
    expect(s.stderr).toContain(`${file}:8:37: error TS2345`);
    expect(s.stderr).toContain(`ppl: --typecheck: model file '${file}' has 2 type errors (above)`);
    expect(existsSync(out)).toBe(false);
  }, 240_000);
});

describe("ppl init", () => {
  it("scaffolds a project that tsc and ppl check pass and that samples; data errors read as ppl sample's; an existing project is kept", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "ppl-init-")), "project");
    const made = await runCli(["init", dir, "--quiet"]);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    for (const f of ["model.ts", "data.json", "tsconfig.json", "package.json"]) expect(existsSync(join(dir, f)), f).toBe(true);
    expect((await tsc(dir))).toEqual({ code: 0, out: "" });
    const checked = await runCli(["check", join(dir, "model.ts"), "--data", join(dir, "data.json")]);
    expect(checked.stderr).toContain("model 'linear_regression' builds with the data of");
    expect(checked.code).toBe(0);
    const out = join(dir, "output");
    const sampled = await runCli(["sample", join(dir, "model.ts"), "--data", join(dir, "data.json"), "--chains", "1", "--warmup", "100", "--draws", "20", "--backend", "cpu", "--seed", "1", "--output", out, "--quiet"]);
    expect(sampled.code).toBe(0);
    expect(readFileSync(join(out, "chain-1.csv"), "utf8")).toContain("alpha,beta,sigma");

    const wrong = join(dir, "wrong.json");
    writeFileSync(wrong, JSON.stringify({ N: 3, x: [1, 2], y: [1, 2, 3] }));
    const bad = await runCli(["check", join(dir, "model.ts"), "--data", wrong, "--quiet"]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(new RegExp(`^ppl: data file '${wrong.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}': .*'x'`));

    const again = await runCli(["init", dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already has model.ts, data.json, tsconfig.json, package.json");
  }, 400_000);
});
