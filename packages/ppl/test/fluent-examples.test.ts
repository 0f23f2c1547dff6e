// The bundled examples are written with the fluent API (mu.add(tau.mul(z)), beta.at(1)). Their
// functional formulations from before the rewrite (fixtures/functional-examples/*.ts up to commit
// d569098) repeated each example line for line, so what they computed is kept instead:
// fixtures/functional-examples.json holds, per example, the constrained names and, at four random
// points q, the log density, its gradient over q and the generated quantities, recorded from the
// functional models by the reference interpreter. Each example gives the same values, so the
// rewrite changed no model: what the posteriordb suite and the README's commands sample is what
// they sampled before.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { grad, interpret, type Bindings } from "@ppl/tensor";
import { FLUENT_METHODS } from "@ppl/tensor/internals";
import { compileModel, isModel, type CompiledModel } from "../src/index.ts";

const ROOT = new URL("../../../", import.meta.url);
const POSTERIORDB = new URL("../shared/posteriordb/", ROOT);

const EXAMPLES: { file: string; data: URL }[] = [
  ...["eight_schools", "hierarchical", "linear_regression", "logistic_regression", "censored_survival"].map((name) => ({
    file: `${name}.ts`,
    data: new URL(`examples/${name}.json`, ROOT),
  })),
  ...[
    "arK-arK", "diamonds-diamonds", "earnings-logearn_interaction", "eight_schools-eight_schools_noncentered", "garch-garch11",
    "gp_pois_regr-gp_pois_regr", "hmm_example-hmm_example", "kidiq-kidscore_interaction", "mesquite-logmesquite", "sblrc-blr",
  ].map((name) => ({ file: `posteriordb/${name}.ts`, data: new URL(`${name}/data.json`, POSTERIORDB) })),
];

/** What a functional formulation computed at one point. */
interface RecordedPoint {
  readonly q: number[];
  readonly lp: number;
  readonly grad: number[];
  readonly generated: number[];
}

const RECORDED = JSON.parse(readFileSync(new URL("fixtures/functional-examples.json", import.meta.url), "utf8")) as Record<
  string, { constrainedNames: string[]; points: RecordedPoint[] }
>;

async function compiled(path: URL, data: unknown): Promise<CompiledModel> {
  const mod = (await import(path.href)) as { default: unknown };
  if (!isModel(mod.default)) throw new Error(`${path.pathname}: the default export is not a model`);
  return compileModel(mod.default, data);
}

/** Log density and its gradient over q at one point, by the reference interpreter. */
function densityAndGrad(c: CompiledModel, q: readonly number[]): { lp: number; grad: number[] } {
  const [g] = grad(c.logDensity, [c.q]);
  const bindings: Bindings = { ...c.dataBindings, q: { dtype: "f64", shape: [c.dim], data: Float64Array.from(q) } };
  const [lp, gq] = interpret([c.logDensity, g!], bindings);
  return { lp: lp!.data[0]!, grad: Array.from(gq!.data) };
}

// Equal up to rounding: the rewrites build the same graphs (hash-consing makes them the same
// nodes), but the check must not depend on that, only on the values.
const close = (a: number, b: number) => Object.is(a, b) || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b));

describe("fluent rewrites of the bundled examples", () => {
  for (const { file, data } of EXAMPLES) {
    test(`${file}: the same log density and gradient as its functional formulation`, async () => {
      const json: unknown = JSON.parse(readFileSync(data, "utf8"));
      const fluent = await compiled(new URL(`examples/${file}`, ROOT), json);
      const recorded = RECORDED[file]!;
      expect(recorded.points).toHaveLength(4);
      expect(fluent.constrainedNames()).toEqual(recorded.constrainedNames);
      for (const b of recorded.points) {
        expect(fluent.dim).toBe(b.q.length);
        const a = densityAndGrad(fluent, b.q);
        expect(close(a.lp, b.lp), `log density ${a.lp} against ${b.lp}`).toBe(true);
        expect(a.grad).toHaveLength(b.grad.length);
        a.grad.forEach((v, i) => expect(close(v, b.grad[i]!), `gradient[${i}] ${v} against ${b.grad[i]}`).toBe(true));
        // Generated quantities (deterministics such as theta) agree too.
        const ga = fluent.generatedAt(b.q);
        expect(ga).toHaveLength(b.generated.length);
        ga.forEach((v, i) => expect(close(v, b.generated[i]!), `generated[${i}]`).toBe(true));
      }
    });
  }
});

describe("the fluent API's documentation", () => {
  test("packages/ppl/README.md's table lists every method, and no other", () => {
    const readme = readFileSync(new URL("packages/ppl/README.md", ROOT), "utf8");
    const start = readme.indexOf("## Tensor values: the fluent API");
    const next = readme.indexOf("\n## ", start + 1);
    const section = readme.slice(start, next < 0 ? undefined : next);
    const table = section.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| Kind"));
    // A method is the name that opens a code span, before any argument list (`cond.select(…)` names select).
    const listed = table.flatMap((line) => [...line.split("|")[2]!.matchAll(/`(?:\w+\.)?(\w+)/g)].map((m) => m[1]!));
    const stanNames = new Set(["inv_logit", "log1p_exp", "log_inv_logit", "inv_Phi", "cumulative_sum", "sort_asc", "sort_desc", "diag_matrix", "rep_vector", "rep_matrix", "quad_form", "quad_form_diag", "trace_quad_form", "mdivide_left", "log_determinant"]);
    expect(listed.filter((n) => !stanNames.has(n)).sort()).toEqual([...FLUENT_METHODS].sort());
  });
});
