import { cast, odeRK45, reshape, type Node } from "@ppl/tensor";
import type { Expr, FunDef } from "../syntax/ast.ts";
import type { Span } from "../syntax/source.ts";
import { DEFAULT_MAX_STEPS, ODE_SOLVERS } from "../library/ode.ts";
import { materialize, readsParams, type Val } from "./values.ts";

/** What an ODE call needs of the evaluator. */
export interface OdeHost {
  eval(e: Expr): Val;
  staticNumber(e: Expr, what: string): number;
  callUser(f: FunDef, args: readonly Val[], span: Span): Val;
  userFunction(e: Expr): FunDef;
  at<T>(span: Span, what: string, f: () => T): T;
}

const asVector = (v: Val): Node => {
  const n = materialize(v);
  return cast(reshape(n, [n.size]), "f64");
};

/**
 * A call of one of Stan's ODE solvers, solved by odeRK45: the user's right-hand side is traced once
 * over the solver's placeholders. Arguments that depend on parameters are passed as the solver's
 * theta (their sensitivities are integrated); data and ints are read from the closure.
 */
export function odeCall(host: OdeHost, e: Expr & { kind: "call" }): Node {
  const s = ODE_SOLVERS[e.name]!;
  const f = host.userFunction(e.args[0]!);
  const y0 = asVector(host.eval(e.args[1]!));
  const t0 = materialize(host.eval(e.args[2]!));
  const ts = asVector(host.eval(e.args[3]!));
  const tolAt = s.legacy ? (e.args.length === 10 ? 7 : undefined) : s.tolerances ? 4 : undefined;
  const tol = (k: number, what: string, fallback: number) => (tolAt === undefined ? fallback : host.staticNumber(e.args[tolAt + k]!, `an ODE solver's ${what}`));
  const opts = { rtol: tol(0, "relative tolerance", 1e-6), atol: tol(1, "absolute tolerance", 1e-6), maxSteps: Math.round(tol(2, "maximum number of steps", DEFAULT_MAX_STEPS)) };
  // The arguments the right-hand side takes after (t, y).
  const extras = s.legacy ? e.args.slice(4, 7) : e.args.slice(tolAt === undefined ? 4 : 7);
  const values = extras.map((a) => host.eval(a));
  const variable = values.map((v) => readsParams(v));
  const theta = values.flatMap((v, k) => (variable[k] ? [cast(materialize(v), "f64")] : []));
  const n = y0.size;
  return host.at(e.span, `'${e.name}'`, () =>
    odeRK45(
      (t, y, th) => {
        let next = 0;
        const args = values.map((v, k) => (variable[k] ? th[next++]! : v));
        const dy = asVector(host.callUser(f, [t, y, ...args], e.span));
        if (dy.size !== n) throw new Error(`the right-hand side '${f.name}' returned ${dy.size} derivatives for a state of ${n}`);
        return dy;
      },
      y0, t0, ts, theta, opts,
    ),
  );
}
