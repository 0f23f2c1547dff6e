import { lastInitialPoint, nonFiniteTerm, type CompiledModel, type InitializationError } from "@ppl/ppl";
import { locateInModel } from "./source-location.ts";

/** What the sampler was given to find initial points, for explaining a failure. */
export interface InitSettings {
  readonly seed: number;
  readonly initRadius: number;
  /** The chains' given initial points (unconstrained), by chain from `firstChain`, when an init file gave them. */
  readonly given: readonly ArrayLike<number>[] | undefined;
  readonly firstChain: number;
}

/**
 * Which term of the log density was −∞ or NaN (or had a gradient that was not finite) at the last
 * point the failing chain tried, where the model file declares it, and the distribution argument
 * outside its support there, as a sentence
 * ("At the last point tried, the prior of parameter 'sigma' (normal), line 9, is -Infinity: normal:
 * sigma is -9.5, but must be positive."); "" when every term and gradient is finite there.
 */
export function explainInitFailure(e: InitializationError, compiled: CompiledModel, modelPath: string, s: InitSettings): string {
  const given = s.given?.[e.chain - s.firstChain];
  const q = lastInitialPoint(compiled.dim, e.chain, { seed: s.seed, initRadius: s.initRadius, ...(given !== undefined ? { given } : {}) });
  let found;
  try {
    found = nonFiniteTerm(compiled, q);
  } catch {
    // The explanation is a courtesy: a term the reference interpreter cannot evaluate leaves the message as it was.
    return "";
  }
  if (found === undefined) return "";
  const at = locateInModel(found.term.site, modelPath);
  const where = at === null ? "" : `, line ${at.line}${at.text === "" ? "" : ` (${at.text})`},`;
  const why = found.argument === undefined ? "" : `: ${found.argument}`;
  const point = given !== undefined ? "the given initial point" : "the last point tried";
  if (found.gradient !== undefined) {
    return ` At ${point}, ${found.term.label}${where} is ${found.value}, but its gradient with respect to ${found.gradient.wrt} is ${found.gradient.value}${why}.`;
  }
  return ` At ${point}, ${found.term.label}${where} is ${found.value}${why}.`;
}
