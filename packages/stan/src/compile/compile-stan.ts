import { basename } from "node:path";
import { model, type Model } from "@ppl/ppl";
import type { Node } from "@ppl/tensor";
import { checkStan, type CheckedProgram } from "../check/check.ts";
import { parseStan } from "../syntax/parser.ts";
import { SourceFile } from "../syntax/source.ts";
import { dataSpecOf } from "./data-spec.ts";
import { refuseUnsupported } from "./refuse.ts";
import { Tracer } from "./tracer.ts";
import { KnownValues } from "./known.ts";

/** Parses and checks a Stan program, refusing what the compiler does not support (each with its line). */
export function checkedStan(source: string, fileName = "model.stan"): CheckedProgram {
  const src = new SourceFile(source, fileName);
  const checked = checkStan(parseStan(source, fileName), src);
  refuseUnsupported(checked);
  return checked;
}

/**
 * Compiles a Stan program into the model the TypeScript API builds: its data block becomes the
 * data spec, its parameters are declared with their constraints, transformed parameters and
 * generated quantities are reported, and ~ and target += make the log density (normalizing
 * constants included, as every density of the library has them). Throws a StanError (file:line:
 * column) for a syntax or semantic error or an unsupported construct.
 */
export function compileStan(source: string, fileName = "model.stan"): Model {
  const checked = checkedStan(source, fileName);
  const spec = dataSpecOf((checked.program.blocks.data ?? []).flatMap((s) => (s.kind === "decl" ? [s] : [])), checked.source);
  return model({
    name: basename(fileName).replace(/\.stan$/, "") || "model",
    data: spec,
    build(m, d, values) {
      new Tracer(checked, checked.source, m, new KnownValues(values)).run(d as Readonly<Record<string, number | Node>>);
    },
  });
}
