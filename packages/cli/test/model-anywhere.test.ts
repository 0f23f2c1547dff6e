// A model file anywhere: in a temporary directory outside the repository, with no node_modules
// near it, a model that imports @ppl/ppl and @ppl/tensor by name (and a file of its own) samples
// through the built `ppl` (bin/ppl.js, as a user runs it), which resolves the packages to its own
// copies and keeps the transpiled model in its cache.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { readCsv, ROOT, runCli, runLauncher, tempDir } from "./helpers.ts";

const MODEL = `import { add, mul } from "@ppl/tensor";
import { data, halfCauchy, model, normal } from "@ppl/ppl";
import { MODEL_NAME, PRIOR_SCALE } from "./settings.ts";

export default model({
  name: MODEL_NAME,
  data: { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) },
  build(m, d) {
    const mu = m.param("mu", normal(0, PRIOR_SCALE));
    const tau = m.param("tau", halfCauchy(0, PRIOR_SCALE));
    const thetaTrans = m.param("theta_trans", normal(0, 1), { shape: [d.J] });
    const theta = m.deterministic("theta", add(mu, mul(tau, thetaTrans)));
    m.observe(d.y, normal(theta, d.sigma));
  },
});
`;
const settings = (name: string): string => `export const MODEL_NAME: string = ${JSON.stringify(name)};\nexport const PRIOR_SCALE = 5;\n`;
const ARGS = ["sample", "model.ts", "--data", "data.json", "--backend", "cpu", "--chains", "2", "--warmup", "150", "--draws", "100", "--seed", "11", "--quiet"];

/** Every folder from `dir` up to the file system's root. */
function ancestors(dir: string): string[] {
  const out = [dir];
  while (dirname(out.at(-1)!) !== out.at(-1)) out.push(dirname(out.at(-1)!));
  return out;
}

describe("a model file outside the repository, importing the packages by name", () => {
  const dir = tempDir("ppl-model-anywhere-");
  const cache = tempDir("ppl-model-cache-");
  writeFileSync(join(dir, "model.ts"), MODEL);
  writeFileSync(join(dir, "settings.ts"), settings("anywhere_one"));
  writeFileSync(join(dir, "data.json"), readFileSync(join(ROOT, "examples/eight_schools.json")));
  const env = { PPL_CACHE_DIR: cache };
  const bundles = (): string[] => readdirSync(join(cache, "models")).filter((f) => f.endsWith(".mjs"));

  it("lies outside the repository, with no node_modules in any folder above it", () => {
    expect(relative(ROOT, dir).startsWith("..")).toBe(true);
    expect(ancestors(dir).filter((d) => existsSync(join(d, "node_modules")))).toEqual([]);
  });

  it("samples with the built ppl, run from the model's folder; the transpiled model is cached and reused", async () => {
    // Entries not written for 40 days go when a new one is written; a recent one stays.
    mkdirSync(join(cache, "models"));
    const [stale, recent] = [join(cache, "models", "stale.mjs"), join(cache, "models", "recent.json")];
    writeFileSync(stale, "");
    writeFileSync(recent, "{}");
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    utimesSync(stale, old, old);

    const first = await runLauncher([...ARGS, "--output", "out1"], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    const a = readCsv(join(dir, "out1/chain-1.csv"));
    expect(a.config["model"]).toBe("anywhere_one");
    expect(a.columns).toEqual(expect.arrayContaining(["mu", "tau", "theta_trans.8", "theta.1", "theta.8"]));
    expect(a.draws[a.columns.indexOf("mu")]!.length).toBe(100);
    expect(bundles()).toHaveLength(1);
    expect([existsSync(stale), existsSync(recent)]).toEqual([false, true]);
    const bundle = join(cache, "models", bundles()[0]!);
    const written = statSync(bundle).mtimeMs;

    // The second run loads the cached bundle (not written again) and draws the same.
    const second = await runLauncher([...ARGS, "--output", "out2"], { cwd: dir, env });
    expect(second.code, second.stderr).toBe(0);
    expect(bundles()).toHaveLength(1);
    expect(statSync(bundle).mtimeMs).toBe(written);
    const b = readCsv(join(dir, "out2/chain-1.csv"));
    expect(b.draws.map((d) => Array.from(d))).toEqual(a.draws.map((d) => Array.from(d)));
  });

  it("a change to a file the model imports is seen although the model file itself is unchanged", async () => {
    writeFileSync(join(dir, "settings.ts"), settings("anywhere_two"));
    const r = await runLauncher([...ARGS, "--output", "out3"], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(readCsv(join(dir, "out3/chain-1.csv")).config["model"]).toBe("anywhere_two");
  });

  it("draws as the CLI run from its sources does (the same model, seed and settings)", async () => {
    const built = await runLauncher([...ARGS, "--output", "out4"], { cwd: dir, env });
    expect(built.code, built.stderr).toBe(0);
    const src = await runCli([...ARGS.map((a) => (a === "model.ts" ? join(dir, "model.ts") : a === "data.json" ? join(dir, "data.json") : a)), "--output", join(dir, "out5")], env);
    expect(src.code, src.stderr).toBe(0);
    for (const chain of ["chain-1.csv", "chain-2.csv"]) {
      const [x, y] = [readCsv(join(dir, "out4", chain)), readCsv(join(dir, "out5", chain))];
      expect(y.columns).toEqual(x.columns);
      expect(y.draws.map((d) => Array.from(d))).toEqual(x.draws.map((d) => Array.from(d)));
    }
  });
});

describe("a model with packages of its own", () => {
  it("imports and requires them from its node_modules as Node resolves them, and sees its own import.meta.url", async () => {
    const dir = tempDir("ppl-model-deps-");
    const pkg = join(dir, "node_modules", "prior-scale");
    mkdirSync(pkg, { recursive: true });
    // esbuild alone would take the "module" condition; Node takes "import" (and "require" for require()).
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "prior-scale", version: "1.0.0", exports: { ".": { module: "./module.mjs", import: "./index.mjs", require: "./index.cjs" } } }));
    writeFileSync(join(pkg, "index.mjs"), "export const scale = 5; export const from = 'import';\n");
    writeFileSync(join(pkg, "module.mjs"), "export const scale = 5; export const from = 'module';\n");
    writeFileSync(join(pkg, "index.cjs"), "module.exports = { from: 'require' };\n");
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ name: "with_deps" }));
    writeFileSync(join(dir, "data.json"), readFileSync(join(ROOT, "examples/eight_schools.json")));
    writeFileSync(
      join(dir, "model.ts"),
      MODEL.replace('import { MODEL_NAME, PRIOR_SCALE } from "./settings.ts";', [
        'import { scale as PRIOR_SCALE, from } from "prior-scale";',
        'import settings from "./settings.json";',
        "const MODEL_NAME = [settings.name, from, require(\"prior-scale\").from, import.meta.url.endsWith(\"/model.ts\") ? \"own-url\" : import.meta.url].join(\"-\");",
      ].join("\n")),
    );
    const r = await runLauncher([...ARGS, "--output", "out"], { cwd: dir, env: { PPL_CACHE_DIR: join(dir, "cache") } });
    expect(r.code, r.stderr).toBe(0);
    expect(readCsv(join(dir, "out/chain-1.csv")).config["model"]).toBe("with_deps-import-require-own-url");
  });
});

describe("a model where no cache can be written", () => {
  it("still loads (from a private temporary folder), and an error in it still names its line", async () => {
    const dir = tempDir("ppl-model-nocache-");
    // A file where the cache directory would be: nothing can be created under it.
    const blocked = join(dir, "not-a-directory");
    writeFileSync(blocked, "");
    const source = 'import { model, normal } from "@ppl/ppl";\nexport default model({ name: "twice", data: {}, build(m) {\n  m.param("mu", normal(0, 1));\n  m.param("mu", normal(0, 1));\n} });\n';
    writeFileSync(join(dir, "twice.ts"), source);
    const r = await runLauncher(["sample", "twice.ts", "--output", "out"], { cwd: dir, env: { PPL_CACHE_DIR: blocked } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^ppl: model file 'twice\.ts', line 4, column 5: model 'twice': the name 'mu' is used twice/);
  });
});
