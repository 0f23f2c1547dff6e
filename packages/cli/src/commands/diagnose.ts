/**
 * `ppl diagnose MODEL --data D`: the gradient of the log density (with the Jacobian, on the
 * unconstrained scale) against central finite differences at an initial point, as CmdStan's
 * diagnose method prints it: each coordinate's value, the model's gradient, the finite difference
 * and their difference. Exits 1 when a coordinate's |error| exceeds --error.
 */
import { formatNumber } from "@ppl/ppl";

// Six significant digits, as CmdStan's diagnose prints (C++ streams' default precision).
function sixDigits(x: number): string {
  if (x === 0 || !Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a < 1e-4 || a >= 1e6 ? x.toExponential(5).replace(/\.?0+e/, "e") : String(Number(x.toPrecision(6)));
}
import { approximationModel, initialPoint } from "../approximation-run.ts";
import { ExitCode, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";

/** The options of `ppl diagnose`, as parsed by the command line. */
export interface DiagnoseCommandOptions {
  readonly data?: string;
  /** Finite-difference step (CmdStan's epsilon, 1e-6). */
  readonly epsilon: number;
  /** Largest |gradient − finite difference| that passes (CmdStan's error, 1e-6). */
  readonly error: number;
  readonly init: number | string;
  readonly seed?: number;
}

/** One coordinate of the gradient test. */
export interface GradientCheck {
  readonly value: number;
  readonly model: number;
  readonly finiteDiff: number;
  readonly error: number;
}

/** The log density and each coordinate's gradient against (lp(x + εe_i) − lp(x − εe_i)) / 2ε. */
export function gradientChecks(evaluate: (x: Float64Array, grad: Float64Array) => number, x: Float64Array, epsilon: number): { lp: number; checks: GradientCheck[] } {
  const n = x.length;
  const grad = new Float64Array(n);
  const scratch = new Float64Array(n);
  const lp = evaluate(x, grad);
  const xt = Float64Array.from(x);
  const checks = Array.from({ length: n }, (_, i) => {
    xt[i] = x[i]! + epsilon;
    const up = evaluate(xt, scratch);
    xt[i] = x[i]! - epsilon;
    const down = evaluate(xt, scratch);
    xt[i] = x[i]!;
    const finiteDiff = (up - down) / (2 * epsilon);
    return { value: x[i]!, model: grad[i]!, finiteDiff, error: grad[i]! - finiteDiff };
  });
  return { lp, checks };
}

/** Runs `ppl diagnose`; returns 0, or 1 when a coordinate's error exceeds --error. */
export async function diagnoseCommand(modelPath: string, opts: DiagnoseCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const m = await approximationModel(modelPath, opts.data, true, io);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
  const x = initialPoint(m, opts.init, seed);
  // The objective is −lp; the test reads lp and its gradient.
  const { lp, checks } = gradientChecks((q, g) => {
    const f = m.objective.evaluate(q, g);
    for (let i = 0; i < g.length; i++) g[i] = -g[i]!;
    return -f;
  }, x, opts.epsilon);
  const col = (s: string | number) => (typeof s === "number" ? sixDigits(s) : s).padStart(16);
  const lines = [
    "TEST GRADIENT MODE",
    "",
    ` Log probability=${formatNumber(lp)}`,
    "",
    ` ${"param idx".padStart(10)}${col("value")}${col("model")}${col("finite diff")}${col("error")}`,
    ...checks.map((c, i) => ` ${String(i).padStart(10)}${col(c.value)}${col(c.model)}${col(c.finiteDiff)}${col(c.error)}`),
    "",
  ];
  io.stdout.write(lines.join("\n") + "\n");
  const failed = checks.filter((c) => !(Math.abs(c.error) <= opts.error));
  if (failed.length === 0) return ExitCode.ok;
  io.stderr.write(`ppl: diagnose: ${failed.length} of ${checks.length} gradient coordinates differ from the finite differences by more than --error ${opts.error} (seed ${seed}); a model whose density has a kink or a discontinuity there can give this, as can too small an --epsilon\n`);
  return ExitCode.diagnosticsFailed;
}
