/**
 * Parsers for option values. Each throws commander's InvalidArgumentError with the allowed range,
 * so a bad value ends in one line naming the option and exit code 2.
 */
import { InvalidArgumentError } from "commander";

/** An integer in [min, max]. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text) => {
    const v = Number(text.trim());
    if (text.trim() === "" || !Number.isInteger(v) || v < min || v > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`expected an integer ${range}.`);
    }
    return v;
  };
}

/** A number strictly between lo and hi. */
export function openInterval(lo: number, hi: number): (text: string) => number {
  return (text) => {
    const v = Number(text.trim());
    if (text.trim() === "" || !(v > lo && v < hi)) throw new InvalidArgumentError(`expected a number strictly between ${lo} and ${hi}.`);
    return v;
  };
}

/** A finite number ≥ 0. */
export function nonNegative(text: string): number {
  const v = Number(text.trim());
  if (text.trim() === "" || !Number.isFinite(v) || v < 0) throw new InvalidArgumentError("expected a finite number ≥ 0.");
  return v;
}

/** A comma-separated list of names. */
export function nameList(text: string): string[] {
  const names = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (names.length === 0) throw new InvalidArgumentError("expected comma-separated parameter names, e.g. mu,tau.");
  return names;
}
