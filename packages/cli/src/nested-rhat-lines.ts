/**
 * Nested R-hat (Margossian et al. 2023) of a run whose chains were started in superchains: one
 * value per parameter over contiguous groups of chains, the lines `ppl sample` and `ppl summary`
 * print after the summary, a warning where a value reaches the threshold, and the `rhat_nested`
 * entries of the JSON summary.
 */
import { contiguousSuperchains, rhatNested, type SummaryJson } from "@ppl/ppl";
import { usageError } from "./exit-codes.ts";

/**
 * The threshold for nested R-hat, 1 + δ with δ = 0.01 as the paper uses it. Why δ = 0.01 (see
 * docs/many-chain-hmc.md): nR̂² = 1 + B̂ν/Ŵν, and for stationary chains B̂ν/Ŵν ≈ τ/(N·M) (the
 * variance of a superchain's mean over the posterior variance), so nR̂ < 1.01 asks each superchain
 * for about N·M/τ ≥ 50 effective draws.
 */
export const NESTED_RHAT_THRESHOLD = 1.01;

/** A parameter's nested R-hat. */
export interface NestedRhat {
  readonly name: string;
  readonly value: number;
}

/** Nested R-hat of each parameter's draws ([chain][draw]) over k contiguous superchains. */
export function nestedRhats(parameters: Readonly<Record<string, readonly Float64Array[]>>, names: readonly string[], k: number): NestedRhat[] {
  return names.flatMap((name) => {
    const draws = parameters[name];
    if (!draws) return [];
    return [{ name, value: rhatNested(draws, contiguousSuperchains(draws.length, k)) }];
  });
}

/** The parameters whose nested R-hat is at or above the threshold, or NA. */
export function highNestedRhats(values: readonly NestedRhat[]): NestedRhat[] {
  return values.filter((v) => !(v.value < NESTED_RHAT_THRESHOLD));
}

/** The printed block: a line per parameter, and a warning line for the values at or above the threshold. */
export function nestedRhatLines(values: readonly NestedRhat[], k: number, chains: number): string {
  if (values.length === 0) return "";
  const width = Math.max(...values.map((v) => v.name.length));
  const lines = [`nested R-hat (${k} superchains of ${chains / k} chains):`];
  for (const v of values) lines.push(`  ${v.name.padEnd(width)}  ${Number.isNaN(v.value) ? "NA" : v.value.toFixed(4)}`);
  const high = highNestedRhats(values);
  if (high.length > 0) {
    lines.push(`warning: nested R-hat is ${NESTED_RHAT_THRESHOLD} or more (or NA) for ${high.map((v) => v.name).join(", ")}: the superchains have not forgotten their initial points; run a longer warmup or more draws`);
  }
  return lines.join("\n") + "\n";
}

/** The JSON summary with `rhat_nested` (null for NA) added to each parameter that has a value. */
export function withNestedRhat(json: SummaryJson, values: readonly NestedRhat[]): SummaryJson {
  const out: SummaryJson = { ...json };
  for (const v of values) {
    const entry = out[v.name];
    if (entry !== undefined && "mean" in entry) out[v.name] = { ...entry, rhat_nested: Number.isFinite(v.value) ? v.value : null };
  }
  return out;
}

/**
 * The number of superchains of a run: `given` (ppl summary --superchains) or the `superchains`
 * key `ppl sample --superchains` writes into each file's header; undefined when neither says.
 */
export function runSuperchains(files: readonly { readonly config: Readonly<Record<string, string>> }[], chains: number, given?: number): number | undefined {
  const header = files[0]?.config["superchains"];
  const k = given ?? (header !== undefined ? Number(header) : undefined);
  if (k === undefined) return undefined;
  if (!Number.isInteger(k) || k < 2 || chains % k !== 0) {
    const from = given !== undefined ? `--superchains ${given}` : `the files' header (superchains = ${header})`;
    throw usageError(`${from} does not divide the run's ${chains} chains into equal groups of at least 2; give --superchains with a divisor of ${chains}`);
  }
  return k;
}
