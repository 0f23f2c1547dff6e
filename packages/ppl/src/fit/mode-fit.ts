/**
 * The posterior mode of a model, as a TypeScript user reads it (what `optimize(model, data)`
 * resolves to): every variable's value there by name on the constrained scale, the log density,
 * how the optimizer ended, and optimize.csv as `ppl optimize` writes it.
 */
import { ApproximateFit } from "./approximate-fit.ts";
import { FitError } from "./fit-error.ts";

/** A variable's value at the mode with its shape (row-major). */
export interface VariableValue {
  readonly name: string;
  readonly shape: readonly number[];
  readonly values: Float64Array;
}

/** A model's mode found by an optimizer (L-BFGS, BFGS or Newton). */
export class ModeFit {
  /** The model's name. */
  readonly model: string;
  readonly seed: number;
  /** Every variable's element names in column order (mu, theta[1], …). */
  readonly names: readonly string[];
  /** The log density at the mode (lp__: without the log-Jacobian unless the run asked for it). */
  readonly lp: number;
  /** False when the optimizer stopped before a convergence test passed: the point is its last iterate, not a mode. */
  readonly converged: boolean;
  /** CmdStan's message for how the optimizer ended. */
  readonly message: string;
  readonly iterations: number;
  /** Gradient evaluations spent. */
  readonly evaluations: number;
  private readonly file: ApproximateFit;

  constructor(file: ApproximateFit, result: { lp: number; converged: boolean; message: string; iterations: number; evaluations: number }) {
    this.file = file;
    this.model = file.model;
    this.seed = file.seed;
    this.names = file.names;
    this.lp = result.lp;
    this.converged = result.converged;
    this.message = result.message;
    this.iterations = result.iterations;
    this.evaluations = result.evaluations;
  }

  /** The value of one scalar or one element (`theta[3]`) at the mode. */
  value(name: string): number {
    const k = this.names.indexOf(name);
    if (k >= 0) return this.file.draws(name)[0]!;
    this.file.draws(name); // throws the FitError that names the variables
    throw new FitError(`fit.value('${name}'): no such value`);
  }

  /** A whole variable's values at the mode, with its shape. */
  variable(name: string): VariableValue {
    const v = this.file.variable(name);
    return { name, shape: v.shape, values: v.chains[0]! };
  }

  /** The names of the model's variables. */
  variableNames(): string[] {
    return this.file.variableNames();
  }

  /** Writes optimize.csv into `dir` (made if missing) in CmdStan's layout, as `ppl optimize` writes it; returns its path. */
  writeCsv(dir: string): string {
    return this.file.writeCsv(dir);
  }
}
