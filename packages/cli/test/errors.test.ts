// Every user error ends in one clear line on stderr and its exit code, never a stack trace.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hasStackTrace, PPL_INDEX, runCli, tempDir, type CliResult } from "./helpers.ts";

const MODEL = "examples/eight_schools.ts";
const DATA = "examples/eight_schools.json";
const FAST = ["--chains", "1", "--warmup", "5", "--draws", "5", "--quiet"];

let dir: string;
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

beforeAll(() => {
  dir = tempDir();
});

/** Runs the command and checks: the exit code, a message matching `message`, no stack trace, nothing on stdout. */
async function expectFailure(args: string[], code: number, message: RegExp, env: Record<string, string> = {}): Promise<CliResult> {
  const r = await runCli(args, env);
  expect(r.code, `stderr: ${r.stderr}`).toBe(code);
  expect(r.stderr).toMatch(message);
  expect(hasStackTrace(r.stderr), r.stderr).toBe(false);
  expect(r.stdout).toBe("");
  return r;
}

describe.concurrent("usage errors (exit 2)", () => {
  // The parsers' ranges are covered one by one in units.test.ts; these are the cases the command line must show.
  it.each([
    [["--chains", "0"], /--chains <n>.*'0' is invalid.*from 1/],
    [["--adapt-delta", "1.5"], /--adapt-delta <x>.*'1.5' is invalid.*strictly between 0 and 1/],
    [["--draws", "abc"], /--draws <n>.*'abc' is invalid/],
    [["--backend", "gpu"], /--backend.*'gpu' is invalid.*auto, cpu, vulkan/],
    [["--bogus"], /unknown option '--bogus'/],
  ])("sample %j", async (extra, message) => {
    await expectFailure(["sample", MODEL, "--data", DATA, ...extra], 2, message);
  });

  it("a missing model file", async () => {
    await expectFailure(["sample", "examples/nope.ts"], 2, /^ppl: model file 'examples\/nope.ts' does not exist; check the path\n$/);
  });

  it("a missing data file", async () => {
    await expectFailure(["sample", MODEL, "--data", "nope.json"], 2, /^ppl: data file 'nope.json' does not exist; check the path\n$/);
  });

  it("a missing command argument and an unknown command", async () => {
    await expectFailure(["sample"], 2, /missing required argument 'model'/);
    await expectFailure(["smaple"], 2, /unknown command 'smaple'/);
  });

  it("--device with --backend cpu", async () => {
    await expectFailure(["sample", MODEL, "--data", DATA, "--backend", "cpu", "--device", "0"], 2, /--device selects a Vulkan device/);
  });

  // Found before the model is loaded: a model that does not compile (exit 3) does not hide them.
  it.each([
    [["--backend", "cpu", "--device", "0"], /^ppl: --device selects a Vulkan device; it has no meaning with --backend cpu\n$/],
    [["--backend", "cpu", "--gpu-shape", "device"], /^ppl: --gpu-shape lays the sampler out on a GPU; it has no meaning with --backend cpu\n$/],
    [["--backend", "cpu", "--data-precision", "f16"], /^ppl: --data-precision f16 stores data in 16 bits on a GPU, and this run is on the CPU backend/],
    [["--data", "nope.json"], /^ppl: data file 'nope.json' does not exist; check the path\n$/],
    [["--init", "nope-init.json"], /^ppl: init file 'nope-init.json' does not exist; check the path\n$/],
    [["--inv-metric", "nope-metric.json"], /^ppl: inverse metric file 'nope-metric.json' does not exist; check the path\n$/],
  ])("sample %j on a model file that does not compile: the usage error", async (extra, message) => {
    const p = file("syntax-usage.ts", "export default model({ name: \n");
    await expectFailure(["sample", p, ...extra], 2, message);
  });

  it("summary of a missing file, of a file that is not Stan CSV, of a directory without CSV files", async () => {
    await expectFailure(["summary", join(dir, "none.csv")], 2, /none.csv' does not exist/);
    await expectFailure(["summary", file("bad.csv", "lp__,mu\n1,2\n3\n")], 2, /bad.csv' is not a valid Stan CSV file: Stan CSV line 3/);
    await expectFailure(["summary", tempDir()], 2, /holds no .csv files/);
  });
});

describe.concurrent("model and data errors (exit 3)", () => {
  it("a model file that does not default-export a model", async () => {
    const p = file("not-a-model.ts", "export default 42;\n");
    await expectFailure(["sample", p], 3, /default-exports a number; it must end with `export default model\(\{ name, data, build \}\)`/);
    const q = file("no-default.ts", "export const x = 1;\n");
    await expectFailure(["sample", q], 3, /has no default export/);
  });

  it("a model file that does not compile", async () => {
    const p = file("syntax.ts", "export default model({ name: \n");
    await expectFailure(["sample", p], 3, /syntax.ts', line 2, column 1: failed to load: Unexpected end of file\n$/);
  });

  it("data keys missing", async () => {
    const p = file("missing-key.json", JSON.stringify({ J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12] }));
    await expectFailure(["sample", MODEL, "--data", p], 3, /^ppl: data file '.*missing-key.json': 'sigma' is missing; the model expects a vector of J reals ≥ 0\. Add it to the data file\n$/);
  });

  it("data mis-shaped", async () => {
    const p = file("short.json", JSON.stringify({ J: 8, y: [28, 8, -3, 7, -1, 1, 18], sigma: [15, 10, 16, 11, 9, 11, 10, 18] }));
    await expectFailure(["sample", MODEL, "--data", p], 3, /'y' has 7 entries, the model expects J=8/);
  });

  it("data that is not JSON, and no data file where the model needs one", async () => {
    await expectFailure(["sample", MODEL, "--data", file("bad.json", "{J: 8")], 3, /bad.json' is not valid JSON: /);
    await expectFailure(["sample", MODEL, "--data", file("nan.json", '{"J": 1, "y": [NaN], "sigma": [1]}')], 3, /nan.json' is not valid JSON \(bare NaN or Infinity is not JSON/);
    await expectFailure(["sample", MODEL], 3, /no data file was given \(pass --data DATA.json\): 'J' is missing/);
  });

  it("a model whose log density is not finite at any initial point", async () => {
    const p = file(
      "nan.ts",
      `import { model, normal } from ${JSON.stringify(PPL_INDEX)};\n` +
        `export default model({ name: "nan", data: {}, build(m) { const mu = m.param("mu", normal(0, 1)); m.factor(-Infinity); } });\n`,
    );
    await expectFailure(["sample", p, ...FAST], 3, /model 'nan': chain 1: .*Check that the log density is finite/);
  });

  it("a model whose build throws", async () => {
    const p = file(
      "dup.ts",
      `import { model, normal } from ${JSON.stringify(PPL_INDEX)};\n` +
        `export default model({ name: "dup", data: {}, build(m) { m.param("mu", normal(0, 1)); m.param("mu", normal(0, 1)); } });\n`,
    );
    await expectFailure(["sample", p, ...FAST], 3, /dup.ts', line 2, column \d+: model 'dup': the name 'mu' is used twice; give the parameter another name — at: export default model/);
  });
});

describe.concurrent("device errors (exit 4)", () => {
  it("--backend vulkan where no device exists gives the reason", async () => {
    await expectFailure(["sample", MODEL, "--data", DATA, "--backend", "vulkan"], 4, /--backend vulkan: no Vulkan device: the Vulkan addon is not built.*; use --backend cpu/, {
      PPL_VULKAN_ADDON: join(dir, "missing.node"),
    });
  });

  it("--backend auto without a device samples on the CPU and says why", async () => {
    const r = await runCli(["sample", MODEL, "--data", DATA, "--chains", "1", "--warmup", "5", "--draws", "5", "--output", join(dir, "auto")], {
      PPL_VULKAN_ADDON: join(dir, "missing.node"),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^backend: cpu \(f64\) — no Vulkan device: the Vulkan addon is not built/m);
  });

  it("`ppl devices` without a device prints why", async () => {
    const r = await runCli(["devices"], { PPL_VULKAN_ADDON: join(dir, "missing.node") });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^No Vulkan devices: the Vulkan addon is not built/);
    const j = await runCli(["devices", "--json"], { PPL_VULKAN_ADDON: join(dir, "missing.node") });
    expect(JSON.parse(j.stdout)).toMatchObject({ devices: [], reason: expect.stringMatching(/not built/) });
  });
});

describe.concurrent("--help", () => {
  it.each([[[]], [["sample"]], [["report"]]])("ppl %j --help exits 0 with usage", async (cmd) => {
    const r = await runCli([...cmd, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: ppl/);
  });
});
