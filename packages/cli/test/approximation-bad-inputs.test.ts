// The approximation commands on inputs they cannot approximate, each command on each input: a
// model with no parameters and a model whose only parameter is discrete (a TypeScript model and a
// Stan program) are model errors (exit 3) naming the fix, with no CSV; a density without a maximum
// (target += x) is a run that did not succeed (exit 5) whose message says why, its CSV absent
// (laplace, pathfinder) or valid and marked as not converged (optimize, variational); a singular
// Hessian at the mode is laplace's exit 5 with no CSV. The exit codes are the ones the commands'
// --help and packages/cli/README.md document. The commands run in process (a child process costs
// seconds to start).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { laplaceCommand } from "../src/commands/laplace.ts";
import { optimizeCommand, OPTIMIZE_DEFAULTS } from "../src/commands/optimize.ts";
import { pathfinderCommand } from "../src/commands/pathfinder.ts";
import { variationalCommand } from "../src/commands/variational.ts";
import { CliError } from "../src/exit-codes.ts";
import type { CommandIO } from "../src/io.ts";
import { readCsv, tempDir } from "./helpers.ts";
import { writeModelFile } from "./normal-posterior.ts";

const tmp = tempDir("ppl-bad-inputs-");
const stan = (name: string, code: string): string => {
  const p = join(tmp, `${name}.stan`);
  writeFileSync(p, code);
  return p;
};

const MODELS = {
  none: writeModelFile(tmp, "none", `model({ name: "none", data: {}, build() {} })`),
  discrete: writeModelFile(tmp, "discrete", `model({ name: "discrete", data: {}, build(m) { m.param("k", poisson(3)); } })`, "model, poisson"),
  discreteStan: stan("discrete", "parameters {\n  int<lower=0> k;\n}\nmodel {\n  k ~ poisson(3);\n}\n"),
  unbounded: stan("unbounded", "parameters {\n  real x;\n}\nmodel {\n  target += x;\n}\n"),
} as const;

type Method = "optimize" | "laplace" | "pathfinder" | "variational";
const METHODS: readonly Method[] = ["optimize", "laplace", "pathfinder", "variational"];
const common = { init: 2, seed: 1, quiet: true, backend: "cpu" } as const;

/** Runs `ppl METHOD MODEL --output OUT` in process with the command's defaults and `more`: the exit code (a CliError's for a failure) and stderr. */
async function run(method: Method, model: string, out: string, more: Record<string, unknown> = {}): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const io: CommandIO = { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) } };
  const opts = { ...common, output: out, ...more };
  try {
    const code = await {
      optimize: () => optimizeCommand(model, { ...OPTIMIZE_DEFAULTS, algorithm: "lbfgs", jacobian: false, ...opts }, io),
      laplace: () => laplaceCommand(model, { draws: 100, jacobian: true, ...opts }, io),
      pathfinder: () => pathfinderCommand(model, { numPaths: 4, draws: 100, psisResample: true, numElboDraws: 25, historySize: 5, maxLbfgsIters: 1000, ...opts }, io),
      variational: () => variationalCommand(model, {
        algorithm: "meanfield", iter: 10000, gradSamples: 1, elboSamples: 100, eta: 1, adaptEngaged: true, adaptIter: 50, tolRelObj: 0.01, evalElbo: 100, draws: 100, ...opts,
      }, io),
    }[method]();
    return { code, stderr };
  } catch (e) {
    if (e instanceof CliError) return { code: e.exitCode, stderr: stderr + e.message };
    throw e;
  }
}

describe("the approximation commands on inputs they cannot approximate", () => {
  it.each(METHODS)("%s: a model with no parameters, or only a discrete one, is exit 3 naming the fix, and writes no CSV", async (method) => {
    const cases: readonly [keyof typeof MODELS, RegExp][] = [
      ["none", /build declared no parameters; declare at least one with m\.param/],
      ["discrete", /parameter 'k': poisson is a distribution over integers; parameters must be continuous — marginalize the discrete variable or observe it as data/],
      ["discreteStan", /discrete\.stan:2:\d+: semantic error: parameter 'k' is an int; parameters must be real \(marginalize discrete parameters out\)/],
    ];
    for (const [model, message] of cases) {
      const out = join(tmp, `${method}-${model}`);
      const r = await run(method, MODELS[model], out);
      expect(r.code, `${model}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(message);
      expect(existsSync(join(out, `${method}.csv`))).toBe(false);
    }
  });

  it("a density without a maximum: optimize and variational exit 5 with their file marked, laplace and pathfinder exit 5 without one", async () => {
    const outs = Object.fromEntries(METHODS.map((m) => [m, join(tmp, `${m}-unbounded`)])) as Record<Method, string>;
    const opt = await run("optimize", MODELS.unbounded, outs.optimize);
    expect(opt.code, opt.stderr).toBe(5);
    expect(opt.stderr).toMatch(/ppl: optimize did not converge: Line search failed: the objective function \(the negative log density\) kept decreasing along the search direction .* it may have no minimum/);
    expect(readFileSync(join(outs.optimize, "optimize.csv"), "utf8")).toMatch(/did not converge/);
    expect(readCsv(join(outs.optimize, "optimize.csv")).draws[1]!.length).toBe(1);

    const lap = await run("laplace", MODELS.unbounded, outs.laplace);
    expect(lap.code, lap.stderr).toBe(5);
    expect(lap.stderr).toMatch(/kept decreasing along the search direction/);
    expect(lap.stderr).toMatch(/find it with `ppl optimize --jacobian`/);
    expect(existsSync(join(outs.laplace, "laplace.csv"))).toBe(false);

    const pf = await run("pathfinder", MODELS.unbounded, outs.pathfinder);
    expect(pf.code, pf.stderr).toBe(5);
    expect(pf.stderr).toMatch(/all 4 Pathfinder paths failed: L-BFGS could not start \(Line search failed: the objective function .* kept decreasing/);
    expect(existsSync(join(outs.pathfinder, "pathfinder.csv"))).toBe(false);

    // The ELBO grows without bound too: the relative test never passes (1000 iterations here).
    const vi = await run("variational", MODELS.unbounded, outs.variational, { iter: 1000 });
    expect(vi.code, vi.stderr).toBe(5);
    expect(vi.stderr).toMatch(/ppl: variational did not converge: the maximum number of iterations \(--iter 1000\) was reached/);
    expect(readFileSync(join(outs.variational, "variational.csv"), "utf8")).toMatch(/# ADVI did not converge/);
    expect(readCsv(join(outs.variational, "variational.csv")).draws[0]!.length).toBe(101);
  });
});
