// Fuzzing the command with fast-check, fixed seeds: malformed data against a model's data spec,
// random argument vectors, and truncated or corrupted CSV files into `ppl summary`. The property,
// every time: the exit code is one of the documented ones for that input (never 70, a bug), a
// failure is one clear line on stderr, there is never a stack trace, and a file a finished run
// would not have left is flagged when it is read.
//
// The cases run in this process through main() (milliseconds each, so hundreds fit the budget),
// and a few of each kind also through the real command as a child process. The budget is about a
// minute in all; PPL_LONG=1 runs many more cases.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli.ts";
import { hasStackTrace, PPL_INDEX, runCli, tempDir, type CliResult } from "./helpers.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
/** Cases per property, and the time each property may take before fast-check stops it (a budget, not an assertion). */
const RUNS = LONG ? 20_000 : 3000;
const BUDGET_MS = LONG ? 600_000 : 10_000;
const CHILD_RUNS = LONG ? 60 : 8;

const MODEL = "examples/eight_schools.ts";
const EIGHT = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const QUICK = ["--chains", "1", "--warmup", "3", "--draws", "3", "--quiet"];

let dir: string;
let n = 0;
const file = (name: string, text: string): string => {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
};
let goodCsv: string;

beforeAll(async () => {
  dir = tempDir("ppl-fuzz-");
  // No Vulkan device in this process: --backend auto samples on the CPU, --backend vulkan is exit 4.
  process.env["PPL_VULKAN_ADDON"] = join(dir, "missing.node");
  const r = await inProcess(["sample", MODEL, "--data", "examples/eight_schools.json", "--chains", "1", "--warmup", "30", "--draws", "30", "--seed", "7", "--quiet", "--output", join(dir, "good")]);
  expect(r.code, r.stderr).toBe(0);
  goodCsv = readFileSync(join(dir, "good", "chain-1.csv"), "utf8");
});

/** Runs main(argv) here, capturing what it writes to stdout and stderr. */
async function inProcess(argv: readonly string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  let code: number;
  try {
    code = await main(argv);
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return { code, signal: null, stdout, stderr };
}

/**
 * The property every run must have: an allowed exit code, no stack trace, and a failure stated in
 * one "ppl: " line, the last (notes and the backend line may come before it).
 */
function expectClean(r: CliResult, allowed: readonly number[], what: string, seen?: Set<number | null>): void {
  seen?.add(r.code);
  const context = `${what}\nexit ${r.code}\nstderr: ${r.stderr}`;
  expect(allowed, context).toContain(r.code);
  expect(hasStackTrace(r.stderr), context).toBe(false);
  expect(r.stderr, context).not.toMatch(/internal error/);
  if (r.code !== 0 && r.code !== 1) {
    const lines = r.stderr.split("\n").filter((l) => l !== "");
    expect(lines.filter((l) => l.startsWith("ppl: ")), context).toHaveLength(1);
    expect(lines.at(-1), context).toMatch(/^ppl: \S/);
  }
}

const settings = (seed: number, numRuns = RUNS) => ({ seed, numRuns, interruptAfterTimeLimit: BUDGET_MS, markInterruptAsFailure: false });

// ——— data ———

/** A JSON value of any shape, including the awkward ones (huge, tiny, negative zero, deep). */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1, -1, 8, 1e10, 1e308, -1e308, 5e-324, 2 ** 53, 2 ** 53 + 2, 0.5, "NaN", "inf", "-Infinity", "", "8", "\n"),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.array(fc.oneof(fc.integer({ min: -5, max: 30 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant("x"), fc.constant(null)), { maxLength: 10 }),
  fc.array(fc.array(fc.integer(), { maxLength: 3 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);

/** Keys a data file may hold: the declared ones, near misses, prototype names, odd text. */
const dataKey = fc.oneof(
  fc.constantFrom("J", "y", "sigma", "Y", "j", "sigma ", "constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "", "a\nb", "q"),
  fc.string({ maxLength: 6 }),
);

/** Eight schools' data with some entries changed, removed or added. */
const mutatedData = fc
  .record({
    drop: fc.subarray(["J", "y", "sigma"]),
    set: fc.array(fc.tuple(dataKey, anyJson), { maxLength: 3 }),
    entry: fc.option(fc.tuple(fc.constantFrom("y", "sigma"), fc.nat({ max: 9 }), anyJson), { nil: undefined }),
  })
  .map(({ drop, set, entry }) => {
    const d: Record<string, unknown> = JSON.parse(JSON.stringify(EIGHT));
    for (const k of drop) delete d[k];
    if (entry !== undefined && Array.isArray(d[entry[0]])) (d[entry[0]] as unknown[])[entry[1]] = entry[2];
    // Defined as own properties, as JSON.parse does: '__proto__' is then a key, not the prototype.
    for (const [k, v] of set) Object.defineProperty(d, k, { value: v, enumerable: true, configurable: true, writable: true });
    return JSON.stringify(d);
  });

/** Text that is not quite JSON: cut short, bare NaN, trailing commas, comments, nothing. */
const brokenJson = fc.oneof(
  mutatedData.chain((t) => fc.nat({ max: t.length }).map((k) => t.slice(0, k))),
  mutatedData.map((t) => t.replace(/\d+(\.\d+)?/, "NaN")),
  mutatedData.map((t) => t.replace("}", ",}")),
  mutatedData.map((t) => `// data\n${t}`),
  fc.constantFrom("", " ", "null", "[]", "8", '"J"', "{}", "\u0000", "\ufeff{}"),
  fc.string({ maxLength: 20 }),
);

describe("fuzz: data files against the model's data spec", () => {
  it("in process: exit 0 or 3 (data error), one line, no stack trace", async () => {
    const seen = new Set<number | null>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutatedData, brokenJson), async (text) => {
        const p = file("data.json", text);
        const r = await inProcess(["sample", MODEL, "--data", p, ...QUICK, "--output", join(dir, "data-out")]);
        expectClean(r, [0, 3], `data: ${JSON.stringify(text)}`, seen);
      }),
      settings(16_001),
    );
    // The cases reach both outcomes: data that fit, and data errors.
    expect([...seen].sort()).toEqual([0, 3]);
  });

  it("through the command: the same", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutatedData, brokenJson), async (text) => {
        const p = file("data.json", text);
        const r = await runCli(["sample", MODEL, "--data", p, ...QUICK, "--output", join(dir, "data-out-child")], { PPL_VULKAN_ADDON: join(dir, "missing.node") });
        expectClean(r, [0, 3], `data: ${JSON.stringify(text)}`);
      }),
      settings(16_002, CHILD_RUNS),
    );
  });
});

// ——— argument vectors ———

const models = (): string[] => [
  MODEL,
  "examples/nope.ts",
  "examples",
  file("not-a-model.ts", "export default 42;\n"),
  file("syntax.ts", "export default model({ name: \n"),
  file("throws.ts", `import { model, normal } from ${JSON.stringify(PPL_INDEX)};\nexport default model({ name: "t", data: {}, build(m) { m.param("lp__", normal(0, 1)); } });\n`),
];

/** One option with a value that is valid (mostly), out of range, malformed or missing. */
function option(outputs: readonly string[]): fc.Arbitrary<string[]> {
  const count = fc.oneof({ arbitrary: fc.constantFrom("1", "2", "3"), weight: 4 }, fc.constantFrom("0", "-1", "1e1", "0x2", "1.5", "abc", "", "65537", "9007199254740993", " 1", "+1"));
  const real = fc.oneof({ arbitrary: fc.constantFrom("0.5", "0.9", "1", "1e-1"), weight: 4 }, fc.constantFrom("0", "1.5", "-1", "NaN", "Infinity", "0x1", "", ".8"));
  const pick = (name: string, valid: readonly string[], invalid: readonly string[]) =>
    fc.tuple(fc.constant(name), fc.oneof({ arbitrary: fc.constantFrom(...valid), weight: 4 }, fc.constantFrom(...invalid)));
  return fc.oneof(
    fc.tuple(fc.constantFrom("--chains", "--warmup", "--draws", "--max-depth", "--seed"), count),
    fc.tuple(fc.constant("--device"), fc.constantFrom("0", "1", "x")),
    fc.tuple(fc.constantFrom("--adapt-delta", "--init"), real),
    pick("--backend", ["cpu", "auto", "vulkan"], ["gpu", ""]),
    pick("--dtype", ["f32", "f64"], ["f16"]),
    pick("--metric", ["diag", "dense"], ["unit"]),
    pick("--gpu-shape", ["auto", "thread", "device"], ["warp"]),
    pick("--data", ["examples/eight_schools.json"], ["nope.json", "examples", "README.md"]),
    fc.tuple(fc.constant("--output"), fc.constantFrom(...outputs)),
    fc.constantFrom(["--quiet"], ["--strict"], ["--log-lik"]),
    fc.constantFrom(["--json"], ["--help"], ["--bogus"], ["-x"], ["--"], ["--chains"], ["--chains="]),
  ).map((a) => [...a]);
}

/**
 * The arguments with defaults that keep a run short and inside the test's directory (the random
 * options come after them, so they still override, and counts are capped at the end).
 */
function confined(args: readonly string[], out: string): string[] {
  const [cmd, ...rest] = args;
  if (cmd === "sample") return ["sample", ...rest.slice(0, 1), "--output", join(dir, out), ...rest.slice(1), ...QUICK.slice(0, 6)];
  if (cmd === "report") return ["report", ...rest.slice(0, 1), "-o", join(dir, `${out}.html`), ...rest.slice(1)];
  return [...args];
}

/** A whole argument vector: mostly a known command with its own options, some stray ones. */
function argvs(outputs: readonly string[], models: readonly string[]): fc.Arbitrary<string[]> {
  const good = join(dir, "good");
  const positional = (valid: readonly string[]) =>
    fc.oneof({ arbitrary: fc.constantFrom(...valid).map((p) => [p]), weight: 6 }, fc.array(fc.constantFrom(...models, good, "README.md", "/nonexistent"), { maxLength: 2 }));
  const words = (...lists: string[][]): fc.Arbitrary<string[]> => fc.constantFrom(...lists).map((l) => [...l]);
  const stray = words(["--bogus"], ["-x"], ["--"], ["--chains"], ["--json"], ["--help"], ["--chains="]);
  const options = (own: fc.Arbitrary<string[]>) => fc.array(fc.oneof({ arbitrary: own, weight: 8 }, stray), { maxLength: 4 }).map((o) => o.flat());
  const json = words(["--json"]);
  const command = (name: string, valid: readonly string[], own: fc.Arbitrary<string[]>) =>
    fc.tuple(positional(valid), options(own)).map(([p, o]) => [name, ...p, ...o]);
  return fc.oneof(
    { arbitrary: command("sample", [MODEL], option(outputs)), weight: 4 },
    command("summary", [good, join(good, "chain-1.csv")], json),
    command("report", [good], fc.oneof(fc.tuple(fc.constant("--pairs"), fc.constantFrom("mu,tau", "mu", "nope", ",", "")).map((t) => [...t]), fc.tuple(fc.constantFrom("-o", "--output"), fc.constantFrom(...outputs)).map((t) => [...t]))),
    command("loo", [good], words(["--json"], ["--compare"])),
    options(json).map((o) => ["devices", ...o]),
    words(["smaple"], [], ["--help"], ["help"], ["help", "sample"], ["help", "nope"], ["-h"], ["generate"]),
  );
}

describe("fuzz: random argument vectors", () => {
  it("in process: a documented exit code, one line for a failure, no stack trace", async () => {
    const seen = new Set<number | null>();
    const argv = argvs([join(dir, "argv-a"), join(dir, "argv-b"), "/proc/ppl-fuzz/x", "", file("plain", "x")], models());
    await fc.assert(
      fc.asyncProperty(argv, async (args) => {
        const safe = confined(args, "argv-default");
        const r = await inProcess(safe);
        expectClean(r, [0, 1, 2, 3, 4], `argv: ${JSON.stringify(safe)}`, seen);
      }),
      settings(16_003),
    );
    for (const code of [0, 2, 3]) expect(seen).toContain(code);
  });

  it("through the command: the same", async () => {
    const argv = argvs([join(dir, "argv-c"), "/proc/ppl-fuzz/y"], models());
    await fc.assert(
      fc.asyncProperty(argv, async (args) => {
        const safe = confined(args, "argv-default-child");
        const r = await runCli(safe, { PPL_VULKAN_ADDON: join(dir, "missing.node") });
        expectClean(r, [0, 1, 2, 3, 4], `argv: ${JSON.stringify(safe)}`);
      }),
      settings(16_004, CHILD_RUNS),
    );
  });
});

// ——— CSV files ———

/** A corruption of a Stan CSV file's text. */
const corruption = fc.oneof(
  fc.record({ kind: fc.constant("cut" as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant("byte" as const), at: fc.double({ min: 0, max: 1, noNaN: true }), text: fc.constantFrom("", "x", ",", "\n", "#", "nan", "-", "1e999", "\r", "\u0000", ",,", "é") }),
  fc.record({ kind: fc.constant("drop-line" as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant("dup-line" as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant("header" as const), text: fc.constantFrom("lp__", "mu,mu", "", "lp__,accept_stat__", "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z") }),
);

type Corruption = typeof corruption extends fc.Arbitrary<infer C> ? C : never;

function corrupt(text: string, c: Corruption): string {
  const lines = text.split("\n");
  const pick = (at: number, length: number): number => Math.min(length - 1, Math.floor(at * length));
  switch (c.kind) {
    case "cut":
      return text.slice(0, Math.floor(c.at * text.length));
    case "byte": {
      const i = Math.floor(c.at * text.length);
      return text.slice(0, i) + c.text + text.slice(i + 1);
    }
    case "drop-line":
      lines.splice(pick(c.at, lines.length), 1);
      return lines.join("\n");
    case "dup-line": {
      const i = pick(c.at, lines.length);
      lines.splice(i, 0, lines[i]!);
      return lines.join("\n");
    }
    case "header": {
      const i = lines.findIndex((l) => l.startsWith("lp__,"));
      lines[i] = c.text;
      return lines.join("\n");
    }
  }
}

describe("fuzz: truncated and corrupted CSV files into ppl summary", () => {
  it("in process: exit 0 or 2, one line for a failure, no stack trace, a file cut short always flagged", async () => {
    const seen = new Set<number | null>();
    await fc.assert(
      fc.asyncProperty(fc.array(corruption, { minLength: 1, maxLength: 3 }), fc.boolean(), async (cs, json) => {
        const text = cs.reduce(corrupt, goodCsv);
        const p = file("chain.csv", text);
        const r = await inProcess(["summary", p, ...(json ? ["--json"] : [])]);
        const what = `corruptions: ${JSON.stringify(cs)}`;
        expectClean(r, [0, 2], what, seen);
        if (r.code === 0 && !/Elapsed Time/.test(text)) expect(r.stderr, what).toMatch(/no timing footer/);
      }),
      settings(16_005),
    );
    expect([...seen].sort()).toEqual([0, 2]);
  });

  it("through the command: the same", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(corruption, { minLength: 1, maxLength: 3 }), async (cs) => {
        const text = cs.reduce(corrupt, goodCsv);
        const r = await runCli(["summary", file("chain.csv", text)]);
        expectClean(r, [0, 2], `corruptions: ${JSON.stringify(cs)}`);
        if (r.code === 0 && !/Elapsed Time/.test(text)) expect(r.stderr).toMatch(/no timing footer/);
      }),
      settings(16_006, CHILD_RUNS),
    );
  });
});
