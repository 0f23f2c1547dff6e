// Bad data and bad arguments are the user's errors, never ppl's: an index out of range, a wrongly
// typed argument, a log density that is −∞ at every initial point and a NaN datum each end in exit
// 3 and one line that names the cause (through the command, as a user runs it), and a fuzz over
// data files for two example models (random shapes, types, out-of-range indices, NaN, ±Inf) never
// gives exit 70 (in this process, through main(), so that hundreds of cases take seconds).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli.ts";
import { hasStackTrace, PPL_INDEX, runCli, tempDir, type CliResult } from "./helpers.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const QUICK = ["--chains", "1", "--warmup", "3", "--draws", "3", "--quiet", "--backend", "cpu"];
const HIERARCHICAL = "examples/hierarchical.ts";
const EIGHT = "examples/eight_schools.ts";
const hierarchicalData = JSON.parse(readFileSync("examples/hierarchical.json", "utf8")) as { N: number; G: number; group: number[]; x: number[]; y: number[] };

let dir: string;
let n = 0;
const file = (name: string, text: string): string => {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
};

beforeAll(() => {
  dir = tempDir("ppl-data-errors-");
});

/** One line on stderr, "ppl: " and the message, exit 3, nothing on stdout, no stack trace. */
function expectDataOrModelError(r: CliResult, message: RegExp): void {
  expect(r.code, r.stderr).toBe(3);
  expect(hasStackTrace(r.stderr), r.stderr).toBe(false);
  const lines = r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("backend:"));
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(message);
  expect(r.stdout).toBe("");
}

describe.concurrent("through the command: exit 3 and one line naming the cause", () => {
  it("a group index past G: the entry, its value and the 1-based range; no output directory", async () => {
    const data = file("bad-index.json", JSON.stringify({ ...hierarchicalData, group: [9, ...hierarchicalData.group.slice(1)] }));
    const out = join(dir, "bad-index-out");
    const r = await runCli(["sample", HIERARCHICAL, "--data", data, "--output", out, ...QUICK]);
    expectDataOrModelError(r, /^ppl: data file '.*bad-index\.json': 'group\[1\]' is 9, but it indexes G = 8 entries, so it must lie in 1\.\.8 \(1-based, as at\(\) reads it\); fix the entry; declaring the range in the data spec \(lower: 1, upper: "G"\) makes the data check say so$/);
    expect(existsSync(out)).toBe(false);
  });

  it("a bound that names a data field (upper: \"G\") is checked as Stan's int<upper=G>", async () => {
    const model = file("bounded.ts", readFileSync(HIERARCHICAL, "utf8").replace('group: data.intVector("N", { lower: 1 })', 'group: data.intVector("N", { lower: 1, upper: "G" })').replace('"@ppl/ppl"', JSON.stringify(PPL_INDEX)));
    const data = file("bounded.json", JSON.stringify({ ...hierarchicalData, group: [...hierarchicalData.group.slice(0, -1), 12] }));
    const r = await runCli(["sample", model, "--data", data, "--output", join(dir, "bounded-out"), ...QUICK]);
    expectDataOrModelError(r, /^ppl: data file '.*bounded\.json': 'group\[120\]' is 12, above the upper bound G = 8 of 'group'$/);
  });

  it("a wrongly typed argument: normal(\"0\", 5) at its line", async () => {
    const model = file(
      "bad-argument.ts",
      `import { model, normal } from ${JSON.stringify(PPL_INDEX)};\n\nexport default model({\n  name: "bad_argument",\n  data: {},\n  build(m) {\n    m.param("mu", normal("0" as unknown as number, 5));\n  },\n});\n`,
    );
    const r = await runCli(["sample", model, "--output", join(dir, "bad-argument-out"), ...QUICK]);
    expectDataOrModelError(r, /^ppl: model file '.*bad-argument\.ts', line 7, column \d+: normal: 'mu' must be a number or a tensor, got the string "0"; write 0 without quotes — at: m\.param\("mu", normal\("0" as unknown as number, 5\)\);$/);
  });

  it("a log density that is not finite at any initial point: the term, its line and the argument out of support", async () => {
    const model = file(
      "negative-scale.ts",
      `import { data, model, normal } from ${JSON.stringify(PPL_INDEX)};\n\nexport default model({\n  name: "negative_scale",\n  data: { N: data.int(), y: data.vector("N") },\n  build(m, d) {\n    const mu = m.param("mu", normal(0, 1));\n    const s = m.param("s", normal(0, 1));\n    m.observe(d.y, normal(mu, s.sub(10)));\n  },\n});\n`,
    );
    const data = file("negative-scale.json", JSON.stringify({ N: 3, y: [1, 2, 3] }));
    const r = await runCli(["sample", model, "--data", data, "--output", join(dir, "negative-scale-out"), "--seed", "3", ...QUICK]);
    expectDataOrModelError(
      r,
      /^ppl: model 'negative_scale': chain 1: log density was not finite at 100 random initial points in \(-2, 2\); check the model's support and data\. At the last point tried, observe\(y, normal\), line 9 \(m\.observe\(d\.y, normal\(mu, s\.sub\(10\)\)\);\), is NaN: normal: sigma is -\d+(\.\d+)?(e-?\d+)?, but must be positive\. Check that the log density is finite/,
    );
  });

  it("a NaN datum in Stan's JSON spelling, read by an observe term", async () => {
    const y = [...hierarchicalData.y];
    y[3] = "NaN" as unknown as number;
    const data = file("nan.json", JSON.stringify({ ...hierarchicalData, y }));
    const r = await runCli(["sample", HIERARCHICAL, "--data", data, "--output", join(dir, "nan-out"), ...QUICK]);
    expectDataOrModelError(r, /^ppl: data file '.*nan\.json': 'y\[4\]' is NaN, and observe\(y, normal\) reads it: the log density would be NaN at every point\. Remove the entry, or leave it out of the term \(a missing value can be a parameter of the model\)$/);
  });
});

// ——— fuzz ———

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

/** An entry of a data array: mostly plausible numbers, sometimes NaN, ±Inf in Stan's spellings, or the wrong type. */
const entry = (lo: number, hi: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: fc.integer({ min: lo, max: hi }), weight: 12 },
    { arbitrary: fc.double({ min: lo, max: hi, noNaN: true }), weight: 4 },
    fc.constantFrom<unknown>("NaN", "Inf", "-Inf", "inf", "-inf", "Infinity", "nan", NaN, null, "x", "", true, [1], {}),
  );

/** An array whose length is often the size it should have, sometimes not. */
const arrayOf = (size: number, item: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary: fc.array(item, { minLength: size, maxLength: size }), weight: 6 }, fc.array(item, { maxLength: size + 2 }), item);

/** Hierarchical data: N and G small, group indices around 1..G (0, G + 1 and beyond included), x and y with NaN and infinities. */
const hierarchical = fc
  .record({ N: fc.integer({ min: 0, max: 6 }), G: fc.integer({ min: 0, max: 4 }), drop: fc.option(fc.constantFrom("N", "G", "group", "x", "y"), { nil: undefined }) })
  .chain(({ N, G, drop }) =>
    fc.record({
      N: fc.oneof({ arbitrary: fc.constant<unknown>(N), weight: 8 }, entry(-2, 8)),
      G: fc.oneof({ arbitrary: fc.constant<unknown>(G), weight: 8 }, entry(-2, 8)),
      group: arrayOf(N, fc.oneof({ arbitrary: fc.integer({ min: 1, max: Math.max(1, G) }), weight: 8 }, entry(-1, G + 3))),
      x: arrayOf(N, entry(-3, 3)),
      y: arrayOf(N, entry(-3, 3)),
    }).map((d) => {
      const out: Record<string, unknown> = { ...d };
      if (drop !== undefined) delete out[drop];
      return out;
    }),
  );

/** Eight schools' data: J small, y and sigma with NaN, infinities, negative scales, wrong lengths and types. */
const eightSchools = fc.integer({ min: 0, max: 5 }).chain((J) =>
  fc.record({
    J: fc.oneof({ arbitrary: fc.constant<unknown>(J), weight: 8 }, entry(-2, 8)),
    y: arrayOf(J, entry(-30, 30)),
    sigma: arrayOf(J, fc.oneof({ arbitrary: fc.integer({ min: 1, max: 20 }), weight: 8 }, entry(-2, 20))),
  }),
);

const RUNS = LONG ? 3000 : 150;
const settings = (seed: number) => ({ seed, numRuns: RUNS, interruptAfterTimeLimit: LONG ? 600_000 : 8000, markInterruptAsFailure: false });

describe("fuzz: data files for example models", () => {
  for (const [name, model, data, seed] of [["hierarchical", HIERARCHICAL, hierarchical, 48_3], ["eight schools", EIGHT, eightSchools, 48_6]] as const) {
    it(`${name}: exit 0 or 3, never 70; a failure is one line; an index out of range is named as data`, async () => {
      const seen = new Set<number>();
      let indexErrors = 0;
      await fc.assert(
        fc.asyncProperty(data, async (d) => {
          const text = JSON.stringify(d);
          const p = file("fuzz.json", text);
          const r = await inProcess(["sample", model, "--data", p, ...QUICK, "--output", join(dir, `fuzz-${name}`)]);
          const context = `data: ${text}\nexit ${r.code}\nstderr: ${r.stderr}`;
          seen.add(r.code ?? -1);
          expect([0, 3], context).toContain(r.code);
          expect(r.stderr, context).not.toMatch(/internal error|this is a bug/);
          expect(hasStackTrace(r.stderr), context).toBe(false);
          if (r.code === 3) expect(r.stderr.split("\n").filter((l) => l.startsWith("ppl: ")), context).toHaveLength(1);
          if (r.stderr.includes("indexes")) indexErrors++;
          if (r.stderr.includes("indexes")) expect(r.stderr, context).toMatch(/ppl: data file '[^']*': 'group\[\d+\]' is -?\d+, but it indexes G = \d+ entries, so it must lie in 1\.\.\d+/);
        }),
        settings(seed),
      );
      expect([...seen].sort()).toEqual([0, 3]);
      // The cases reach the index check (eight schools reads no index).
      if (model === HIERARCHICAL) expect(indexErrors).toBeGreaterThan(0);
    });
  }
});
