// Bad input, signals and hostile surroundings, tried through the command as a user would: each ends
// in its documented exit code and one clear line on stderr (never a stack trace), and every file
// left behind is valid or flagged.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { CLI_NODE_ARGS, hasStackTrace, PPL_INDEX, readCsv, ROOT, runCli, startCli, tempDir, type CliResult } from "./helpers.ts";

const MODEL = "examples/eight_schools.ts";
const DATA = "examples/eight_schools.json";
const EIGHT = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const FAST = ["--chains", "1", "--warmup", "20", "--draws", "20", "--quiet", "--backend", "cpu"];
// The tensor package by name, as a user's model imports it (the CLI resolves it to its own copy).
const TENSOR_INDEX = "@ppl/tensor";
// How a shell line starts `ppl` (node's arguments, quoted).
const NODE_ARGS = CLI_NODE_ARGS.map((a) => JSON.stringify(a)).join(" ");

const dir = tempDir("ppl-robust-");
let n = 0;
/** Writes a file into the test's directory and returns its path. */
function file(name: string, text: string): string {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
}
/** A model file importing the ppl package (and, as `t`, the tensor package). */
function modelFile(name: string, body: string): string {
  return file(name, `import { data, interval, model, normal, uniform } from ${JSON.stringify(PPL_INDEX)};\nimport * as t from ${JSON.stringify(TENSOR_INDEX)};\n${body}`);
}
const out = (): string => join(dir, `out-${n++}`);

/** Checks a failure: its exit code, one line on stderr matching `message`, no stack trace, nothing on stdout. */
function expectFailure(r: CliResult, code: number, message: RegExp): void {
  expect(r.code, `stderr: ${r.stderr}`).toBe(code);
  expect(r.stderr.split("\n").filter((l) => l !== ""), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(message);
  expect(hasStackTrace(r.stderr), r.stderr).toBe(false);
  expect(r.stdout).toBe("");
}

/** Runs the command, killing it (and failing) if it has not finished within `ms`: a hang is a failure, not a stuck suite. */
async function runWithin(args: readonly string[], ms = 60_000, env: Record<string, string> = {}): Promise<CliResult> {
  const { child, done } = startCli(args, env);
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  const r = await done;
  clearTimeout(timer);
  if (r.signal === "SIGKILL") throw new Error(`ppl ${args.join(" ")} did not finish within ${ms / 1000} s`);
  return r;
}

/** Complete draw rows on disk so far in a CSV file being written. */
function rowsOnDisk(path: string): number {
  if (!existsSync(path)) return 0;
  const lines = readFileSync(path, "utf8").split("\n");
  const header = lines.findIndex((l) => l.startsWith("lp__,"));
  return header < 0 ? 0 : lines.slice(header + 1, -1).filter((l) => l !== "" && !l.startsWith("#")).length;
}

/** Waits until `ready()` holds (the child still running), or fails after a minute. */
async function waitFor(ready: () => boolean, child: { exitCode: number | null }, done: Promise<CliResult>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error("the run did not get there within 60 s");
    if (child.exitCode !== null) throw new Error(`ppl exited early: ${(await done).stderr}`);
    await sleep(50);
  }
}

describe.concurrent("model files", () => {
  it("1: a parameter named lp__ or stepsize__ is a model error, not a duplicate CSV column", async () => {
    for (const name of ["lp__", "stepsize__"]) {
      const p = modelFile("reserved.ts", `export default model({ name: "r", data: {}, build(m) { m.param(${JSON.stringify(name)}, normal(0, 1)); } });\n`);
      const o = out();
      const r = await runCli(["sample", p, ...FAST, "--output", o]);
      expectFailure(r, 3, new RegExp(`line 3, column \\d+: model 'r': the parameter name '${name}' is reserved \\(names ending in __ are the sampler's columns`));
      expect(existsSync(join(o, "chain-1.csv"))).toBe(false);
    }
  });

  it("3: a model name with a line break is refused, and a data path with one leaves a valid header", async () => {
    const p = modelFile("newline.ts", `export default model({ name: "a\\nb", data: {}, build(m) { m.param("mu", normal(0, 1)); } });\n`);
    expectFailure(await runCli(["sample", p, ...FAST, "--output", out()]), 3, /the name "a\\nb" holds a line break or another control character; give it a one-line name/);

    const sub = join(dir, "odd\nname");
    mkdirSync(sub);
    const data = join(sub, "eight.json");
    writeFileSync(data, JSON.stringify(EIGHT));
    const o = out();
    const r = await runCli(["sample", MODEL, "--data", data, ...FAST, "--output", o]);
    expect(r.code, r.stderr).toBe(0);
    const csv = readCsv(join(o, "chain-1.csv"));
    expect(csv.columns.slice(0, 2)).toEqual(["lp__", "accept_stat__"]);
    expect(csv.config["data.file"]).toBe(data.replace("\n", "\\n"));
    expect(csv.draws[0]).toHaveLength(20);
  });

  it("7: a typo (d.Y) names the file, line, column, the field meant and the source line; PPL_DEBUG=1 adds the stack", async () => {
    const p = modelFile(
      "typo.ts",
      [
        "export default model({",
        '  name: "typo",',
        '  data: { J: data.int(), y: data.vector("J"), sigma: data.vector("J") },',
        "  build(m, d) {",
        '    const mu = m.param("mu", normal(0, 5));',
        "    m.observe((d as any).Y, normal(mu, d.sigma));",
        "  },",
        "});",
        "",
      ].join("\n"),
    );
    const args = ["sample", p, "--data", DATA, ...FAST, "--output", out()];
    const r = await runCli(args);
    expectFailure(r, 3, /^ppl: model file '.*typo.ts', line 8, column \d+: model 'typo': build reads d.Y, but the data spec declares no field 'Y' \(its fields: J, y, sigma\); did you mean d.y\? — at: m.observe\(\(d as any\).Y, normal\(mu, d.sigma\)\);\n$/);
    const debug = await runCli(args, { PPL_DEBUG: "1" });
    expect(debug.code).toBe(3);
    expect(debug.stderr).toMatch(/^ModelError: model 'typo': build reads d.Y/m);
    expect(debug.stderr).toMatch(/typo.ts:8:\d+\)/);
  });

  it("7: a syntax error and an error while the file loads name the line and column", async () => {
    const syntax = modelFile("syntax.ts", "export default model({ name: 'x', data: {}, build(m) { m.param('mu', normal(0, 1))) } });\n");
    expectFailure(await runCli(["sample", syntax, ...FAST]), 3, /syntax.ts', line 3, column \d+: failed to load: Expected .* but found "\)" — at: export default model/);
    const throwing = modelFile("throws.ts", "const x: any = undefined;\nconsole.log(x.foo);\nexport default model({ name: 'x', data: {}, build(m) { m.param('mu', normal(0, 1)); } });\n");
    expectFailure(await runCli(["sample", throwing, ...FAST]), 3, /throws.ts', line 4, column \d+: failed to load: Cannot read properties of undefined \(reading 'foo'\) — at: console.log\(x.foo\);/);
  });

  it("12: interval(1, 1) says to widen it, not to swap the bounds", async () => {
    const p = modelFile("equal.ts", `export default model({ name: "eq", data: {}, build(m) { m.param("x", { constraint: interval(1, 1) }); } });\n`);
    const r = await runCli(["sample", p, ...FAST, "--output", out()]);
    expectFailure(r, 3, /interval: the lower bound 1 must be below the upper bound 1; they are equal, and an interval needs room between its bounds: widen it/);
    expect(r.stderr).not.toMatch(/swap/);
  });
});

describe.concurrent("data", () => {
  it("8: J = 1e10 is a data error naming the entries it sizes (and leaves no output directory)", async () => {
    const p = file("huge.json", JSON.stringify({ ...EIGHT, J: 1e10 }));
    const o = out();
    expectFailure(await runCli(["sample", MODEL, "--data", p, ...FAST, "--output", o]), 3, /^ppl: data file '.*huge.json': 'y' has 8 entries, the model expects J=10000000000\n$/);
    expect(existsSync(o)).toBe(false);
  });

  it.each(["constructor", "__proto__"])("9: a data key %s is rejected like any unknown key", async (key) => {
    const p = file("proto.json", `{"J": 8, "y": ${JSON.stringify(EIGHT.y)}, "sigma": ${JSON.stringify(EIGHT.sigma)}, ${JSON.stringify(key)}: {"a": 1}}`);
    expectFailure(await runCli(["sample", MODEL, "--data", p, ...FAST, "--output", out()]), 3, new RegExp(`'${key}' is not a data field of this model \\(its fields: J, y, sigma\\)`));
  });
});

describe.concurrent("options", () => {
  it("11: --seed above 2^53 − 1 is refused with the limit stated", async () => {
    const r = await runCli(["sample", MODEL, "--data", DATA, "--seed", "9007199254740993"]);
    expectFailure(r, 2, /--seed <n>.*'9007199254740993' is invalid\. expected an integer ≥ 0 \(at most 2\^53 − 1 = 9007199254740991\)/);
    const ok = await runCli(["sample", MODEL, "--data", DATA, ...FAST, "--seed", "9007199254740991", "--output", out()]);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it.each([["--chains", "1e1"], ["--chains", "0x2"], ["--draws", "0b11"], ["--warmup", "1.0"], ["--init", "0x1"]])(
    "13: %s %s is a usage error",
    async (option, value) => {
      expectFailure(await runCli(["sample", MODEL, "--data", DATA, option, value]), 2, new RegExp(`option '${option} <\\w>' argument '${value}' is invalid`));
    },
  );
});

describe.concurrent("the command line's own messages", () => {
  it.each([[[]], [["--"]], [["help", "nope"]], [["smaple"]], [["sample", "--chains"]]])("ppl %j: one line, exit 2", async (args) => {
    const r = await runCli(args);
    expectFailure(r, 2, /^ppl: (give a command: sample, |help: unknown command 'nope'; the commands are sample, |unknown command 'smaple' \(Did you mean sample\?\) |option '--chains <n>' argument missing )/);
  });
});

describe.concurrent("CSV files into ppl summary", () => {
  // One run's CSV file, which each test below edits in its own copy (a string): the same file from
  // one sampling instead of three, each a command start and a compile.
  let goodRun: Promise<string> | undefined;
  const good = (): Promise<string> => (goodRun ??= (async () => {
    const o = out();
    const r = await runCli(["sample", MODEL, "--data", DATA, ...FAST, "--seed", "5", "--output", o]);
    expect(r.code, r.stderr).toBe(0);
    return readFileSync(join(o, "chain-1.csv"), "utf8");
  })());

  it("10: a non-numeric field is named with its column, without a contradiction", async () => {
    const text = await good();
    const lines = text.split("\n");
    const row = lines.findIndex((l) => /^-?\d/.test(l));
    const fields = lines[row]!.split(",");
    fields[8] = "abc";
    lines[row] = fields.join(",");
    const r = await runCli(["summary", file("bad-field.csv", lines.join("\n"))]);
    expectFailure(r, 2, new RegExp(`is not a valid Stan CSV file: Stan CSV line ${row + 1}: field 9 \\(column 'tau'\\) is "abc", not a number\\n$`));
    expect(r.stderr).not.toMatch(/expected \d+ numeric fields/);
  });

  it("14: NaN or infinite draws, and a deterministic that is NaN, give a warning", async () => {
    const p = modelFile("nan-det.ts", `export default model({ name: "nd", data: {}, build(m) { const mu = m.param("mu", normal(0, 1)); m.deterministic("z", t.log(t.sub(-1, t.exp(mu)))); } });\n`);
    const o = out();
    const r = await runCli(["sample", p, ...FAST, "--output", o]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^z\s+NA\s/m);
    expect(r.stdout).toMatch(/- 20 of 20 draws of z are NaN, so its statistics are NA: check the expression that computes it/);

    const text = (await good()).replace(/^(-?[\d.e+-]+,(?:[^,\n]*,){6})[^,\n]*/m, "$1inf");
    const s = await runCli(["summary", file("inf.csv", text)]);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/- 1 of 20 draws of mu are infinite/);
  });

  it("15: a file cut mid-run (no footer, a half row) is read with a note", async () => {
    const text = await good();
    const cut = text.slice(0, text.indexOf("\n# \n#  Elapsed"));
    const half = cut.slice(0, cut.lastIndexOf(",") - 3);
    const p = file("cut.csv", half);
    const r = await runCli(["summary", p]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: the last row of '${p}' was cut off mid-write and is left out`);
    expect(r.stderr).toContain(`note: '${p}' has no timing footer: the run that wrote it did not finish (it was killed, or is still running); the summary covers the draws written so far`);
    expect(r.stdout).toMatch(/Sampler diagnostics \(1 chain × 19 draws\)/);
    const j = await runCli(["summary", p, "--json"]);
    expect(j.stderr).toMatch(/no timing footer/);
    const finished = await runCli(["summary", file("whole.csv", text)]);
    expect(finished.stderr).toBe("");
  });
});

describe.concurrent("output paths", () => {
  it("16: a directory that cannot be created (under /proc) fails at once instead of hanging", async () => {
    const r = await runWithin(["sample", MODEL, "--data", DATA, ...FAST, "--output", "/proc/ppl-test/out"]);
    expectFailure(r, 2, /^ppl: cannot create the output directory '\/proc\/ppl-test\/out': the file system there does not allow creating it; choose another with --output\n$/);
  });

  it("16: a named pipe where a chain file goes, a directory where summary.json goes, a file as the directory", async () => {
    const fifo = out();
    mkdirSync(fifo);
    expect(spawnSync("mkfifo", [join(fifo, "chain-1.csv")]).status).toBe(0);
    const r = await runWithin(["sample", MODEL, "--data", DATA, ...FAST, "--output", fifo]);
    expectFailure(r, 2, /chain-1.csv' exists and is a named pipe \(FIFO\), where the run writes a file; remove it or choose another --output/);

    const d = out();
    mkdirSync(join(d, "summary.json"), { recursive: true });
    expectFailure(await runWithin(["sample", MODEL, "--data", DATA, ...FAST, "--output", d]), 2, /summary.json' exists and is a directory, where the run writes a file/);
    expect(readdirSync(d)).toEqual(["summary.json"]);

    const f = file("plain", "x");
    expectFailure(await runWithin(["sample", MODEL, "--data", DATA, ...FAST, "--output", join(f, "sub")]), 2, /cannot create the output directory '.*plain\/sub': a part of the path is not a directory/);
    expectFailure(await runWithin(["sample", MODEL, "--data", DATA, ...FAST, "--output", ""]), 2, /--output is empty/);
  });

  it("2: 400 chains under a limit of 256 open files: every file is written and closed", async () => {
    const o = out();
    const cmd = `ulimit -n 256 && exec "${process.execPath}" ${NODE_ARGS} sample ${MODEL} --data ${DATA} --chains 400 --output-format chains --warmup 3 --draws 3 --seed 1 --quiet --backend cpu --output "${o}"`;
    const r = await collect(spawn("bash", ["-c", cmd], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const names = readdirSync(o).filter((f) => f.endsWith(".csv"));
    expect(names).toHaveLength(400);
    for (const name of names) {
      const csv = readStanCsv(readFileSync(join(o, name), "utf8"));
      expect(csv.draws[0], name).toHaveLength(3);
      expect(csv.timing?.total, name).toBeGreaterThan(0);
    }
  });
});

describe.concurrent("signals", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)("6: %s once draws are on disk: exit %i, every CSV closed with its footer, summary.json written", async (signal, code) => {
    const o = out();
    const { child, done } = startCli(["sample", MODEL, "--data", DATA, "--chains", "2", "--warmup", "20", "--draws", "1000000", "--seed", "2", "--backend", "cpu", "--output", o]);
    await waitFor(() => rowsOnDisk(join(o, "chain-2.csv")) >= 10, child, done);
    child.kill(signal);
    const r = await done;
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).toMatch(new RegExp(`interrupted by ${signal}: \\d+ of 1000000 draws per chain \\(after 20 of 20 warmup iterations\\) are in 2 valid CSV files in .*, summarized in summary.json`));
    expect(hasStackTrace(r.stderr)).toBe(false);
    for (const c of [1, 2]) {
      const csv = readCsv(join(o, `chain-${c}.csv`));
      expect(csv.truncated).toBe(false);
      expect(csv.timing?.total).toBeGreaterThan(0);
    }
    const summary = JSON.parse(readFileSync(join(o, "summary.json"), "utf8")) as Record<string, unknown>;
    expect(Object.keys(summary)).toContain("mu");
  });

  it("5: SIGINT during warmup says there are no draws, not that ppl summary summarizes them", async () => {
    const o = out();
    const { child, done } = startCli(["sample", MODEL, "--data", DATA, "--chains", "2", "--warmup", "100000000", "--draws", "10", "--backend", "cpu", "--quiet", "--output", o]);
    await waitFor(() => existsSync(join(o, "chain-2.csv")), child, done);
    // The files exist before the handlers are installed; a little later they surely are.
    await sleep(300);
    child.kill("SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/^interrupted by SIGINT during warmup \(after \d+ of 100000000 warmup iterations\): no sampling draws were made, so there is nothing to summarize \(the 2 CSV files in .* hold their headers only\); run again, with fewer --warmup iterations to finish sooner\n$/);
    expect(r.stderr).not.toMatch(/summarizes them/);
    expect(existsSync(join(o, "summary.json"))).toBe(false);
  });
});

describe("pipes", () => {
  it("a reader of stdout that goes away (ppl summary | head) ends the command quietly with 141", async () => {
    const names = Array.from({ length: 3000 }, (_, i) => `x.${i + 1}`);
    const rows = Array.from({ length: 20 }, (_, r) => ["-1", "0.9", "0.5", "2", "3", "0", "1", ...names.map((_, i) => String(Math.sin(r * 7 + i)))].join(","));
    const footer = ["# ", "#  Elapsed Time: 1 seconds (Warm-up)", "#                1 seconds (Sampling)", "#                2 seconds (Total)", "# "];
    const p = file("wide.csv", ["# model = wide", ["lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__", ...names].join(","), ...rows, ...footer, ""].join("\n"));
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, "summary", p], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect(code, stderr).toBe(141);
    expect(stderr).toBe("");
  });
});

describe("terminals", () => {
  it("4: on a terminal 30 columns wide, no progress line is longer than the terminal", () => {
    const o = out();
    // `script` runs the command on a pseudo-terminal, whose width stty sets.
    const cmd = `stty cols 30 rows 20; exec "${process.execPath}" ${NODE_ARGS} sample ${MODEL} --data ${DATA} --backend cpu --chains 2 --warmup 300 --draws 300 --seed 4 --output "${o}"`;
    const r = spawnSync("script", ["-qec", cmd, "/dev/null"], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stdout).toBe(0);
    const rows = r.stdout.split(/\r?\n|\x1b\[\d*A/).map((l) => l.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ""));
    const progress = rows.filter((l) => /^(chain \d|elapsed )/.test(l));
    expect(progress.length).toBeGreaterThan(2);
    for (const l of progress) expect(l.length, JSON.stringify(l)).toBeLessThan(30);
    expect(progress.some((l) => /^chain 1 (warmup|sampling) +\d+\/600/.test(l))).toBe(true);
  });
});

describe.concurrent("the ppl command", () => {
  it("17: `pnpm ppl` prints the error and nothing of pnpm's", async () => {
    const r = await collect(spawn("pnpm", ["ppl", "sample", "examples/nope.ts"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] }));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("ppl: model file 'examples/nope.ts' does not exist; check the path\n");
    expect(r.stdout).toBe("");
  });

  it("17: scripts/link-ppl.sh puts a `ppl` on PATH that runs the command from any directory", async () => {
    const bin = tempDir("ppl-bin-");
    const link = spawnSync("bash", [join(ROOT, "scripts/link-ppl.sh")], { env: { ...process.env, PPL_BIN_DIR: bin }, encoding: "utf8" });
    expect(link.status, link.stderr).toBe(0);
    const env = { ...process.env, PATH: `${bin}:${process.env["PATH"] ?? ""}` };
    const r = await collect(spawn("ppl", ["sample", "nope.ts"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] }));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("ppl: model file 'nope.ts' does not exist; check the path\n");
    const help = await collect(spawn("ppl", ["--help"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] }));
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: ppl/);
  });
});

function collect(child: ReturnType<typeof spawn>): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
