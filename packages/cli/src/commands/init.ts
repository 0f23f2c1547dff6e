/**
 * `ppl init DIR`: scaffolds a model project: a model, its data, a tsconfig.json whose paths point
 * at the declarations of the packages ppl runs on (so that an editor and `tsc` type-check the
 * model with no install and no hand-made links) and a package.json whose scripts check and sample it.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { ExitCode, usageError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { modelCompilerOptions } from "../own-declarations.ts";

/** Options of `ppl init`. */
export interface InitCommandOptions {
  /** Write into a directory that already holds files (never over a file of the scaffold). */
  readonly force?: boolean;
  readonly quiet?: boolean;
}

/** The files of a new project, by name. */
export const SCAFFOLD_FILES = ["model.ts", "data.json", "tsconfig.json", "package.json"] as const;

const MODEL = `// A linear regression: y[n] ~ normal(alpha + beta * x[n], sigma).
//   ppl check model.ts --data data.json
//   ppl sample model.ts --data data.json
import { data, halfNormal, model, normal } from "@ppl/ppl";

export default model({
  name: "linear_regression",
  data: {
    N: data.int({ lower: 1 }),
    x: data.vector("N"),
    y: data.vector("N"),
  },
  build(m, d) {
    const alpha = m.param("alpha", normal(0, 10));
    const beta = m.param("beta", normal(0, 10));
    const sigma = m.param("sigma", halfNormal(5));
    m.observe(d.y, normal(alpha.add(beta.mul(d.x)), sigma));
  },
});
`;

const DATA = { N: 10, x: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], y: [1.1, 2.9, 5.2, 6.8, 9.1, 11.2, 12.8, 15.1, 17.2, 18.9] };

/** Runs `ppl init DIR`: writes the scaffold; a usage error (2) when DIR holds a file of the same name, or other files without --force. */
export function initCommand(dir: string, opts: InitCommandOptions, io: CommandIO): ExitCodeValue {
  const abs = resolve(dir);
  if (existsSync(abs)) {
    const taken = SCAFFOLD_FILES.filter((f) => existsSync(join(abs, f)));
    if (taken.length > 0) throw usageError(`'${dir}' already has ${taken.join(", ")}; ppl init writes no file over another: choose a new directory`);
    if (!opts.force && readdirSync(abs).length > 0) throw usageError(`'${dir}' is not empty; choose a new directory, or add --force to add the project's files to it`);
  }
  mkdirSync(abs, { recursive: true });
  const name = basename(abs).toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[._-]+/, "") || "ppl-model";
  const files: Record<(typeof SCAFFOLD_FILES)[number], string> = {
    "model.ts": MODEL,
    "data.json": JSON.stringify(DATA) + "\n",
    "tsconfig.json": JSON.stringify({ compilerOptions: modelCompilerOptions(), include: ["*.ts"] }, null, 2) + "\n",
    "package.json": JSON.stringify({
      name, private: true, type: "module",
      scripts: { check: "ppl check model.ts --data data.json", sample: "ppl sample model.ts --data data.json --output output" },
    }, null, 2) + "\n",
  };
  for (const f of SCAFFOLD_FILES) writeFileSync(join(abs, f), files[f]);
  if (!opts.quiet) {
    io.stderr.write(`wrote ${SCAFFOLD_FILES.join(", ")} to ${dir}; the tsconfig.json points @ppl/ppl and @ppl/tensor at the declarations of this ppl, so an editor type-checks model.ts as it is\n`);
    io.stderr.write(`next: ppl check ${join(dir, "model.ts")} --data ${join(dir, "data.json")}\n`);
  }
  return ExitCode.ok;
}
