/**
 * Nested R-hat (Margossian et al. 2023) of a run whose chains were started in superchains: one
 * value per parameter over contiguous groups of chains, the lines `ppl sample` prints after the
 * summary, and a warning where a value reaches the threshold.
 */
import { contiguousSuperchains, rhatNested } from "@ppl/ppl";

/** The threshold the paper suggests for nested R-hat (1 + δ, δ = 0.01). */
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

/** The printed block: a line per parameter, and a warning line for the values at or above the threshold. */
export function nestedRhatLines(values: readonly NestedRhat[], k: number, chains: number): string {
  if (values.length === 0) return "";
  const width = Math.max(...values.map((v) => v.name.length));
  const lines = [`nested R-hat (${k} superchains of ${chains / k} chains):`];
  for (const v of values) lines.push(`  ${v.name.padEnd(width)}  ${Number.isNaN(v.value) ? "NA" : v.value.toFixed(4)}`);
  const high = values.filter((v) => !(v.value < NESTED_RHAT_THRESHOLD));
  if (high.length > 0) {
    lines.push(`warning: nested R-hat is ${NESTED_RHAT_THRESHOLD} or more (or NA) for ${high.map((v) => v.name).join(", ")}: the superchains have not forgotten their initial points; run a longer warmup or more draws`);
  }
  return lines.join("\n") + "\n";
}
