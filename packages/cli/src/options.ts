/**
 * Parsers for option values. Each throws commander's InvalidArgumentError with the allowed range,
 * so a bad value ends in one line naming the option and exit code 2.
 */
import { InvalidArgumentError } from "commander";

// Decimal digits only: Number() would also take "1e1", "0x2" and "0b1", which are not what
// anyone means by a count; and BigInt compares a seed beyond 2^53 − 1 exactly, where Number() would
// round it to another seed.
const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** An integer in [min, max], written in decimal digits. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text) => {
    const t = text.trim();
    if (!INTEGER.test(t) || BigInt(t) < BigInt(min) || BigInt(t) > BigInt(max)) {
      const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min} (at most 2^53 − 1 = ${max})` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`expected an integer ${range}, in decimal digits.`);
    }
    return Number(t);
  };
}

/** A decimal number strictly between lo and hi. */
export function openInterval(lo: number, hi: number): (text: string) => number {
  return (text) => {
    const v = Number(text.trim());
    if (!DECIMAL.test(text.trim()) || !(v > lo && v < hi)) throw new InvalidArgumentError(`expected a number strictly between ${lo} and ${hi}.`);
    return v;
  };
}

/** A finite decimal number ≥ 0. */
export function nonNegative(text: string): number {
  const v = Number(text.trim());
  if (!DECIMAL.test(text.trim()) || !Number.isFinite(v) || v < 0) throw new InvalidArgumentError("expected a finite number ≥ 0.");
  return v;
}

/** A comma-separated list of names. */
export function nameList(text: string): string[] {
  const names = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (names.length === 0) throw new InvalidArgumentError("expected comma-separated parameter names, e.g. mu,tau.");
  return names;
}

/** `--init`: a finite number ≥ 0 is the radius of random initial values (as CmdStan's init=R); anything else is the path of a JSON file of initial values. */
export function initOption(text: string): number | string {
  const t = text.trim();
  if (DECIMAL.test(t)) return nonNegative(t);
  // A number not in decimal digits (0x1, Infinity, NaN) is a mistyped radius, not a file name.
  if (t === "" || Number.isFinite(Number(t)) || /^[+-]?(nan|inf|infinity)$/i.test(t)) {
    throw new InvalidArgumentError("expected a radius ≥ 0 in decimal digits, or the path of a JSON file of initial values.");
  }
  return text;
}

/** A finite decimal number > 0. */
export function positive(text: string): number {
  const v = Number(text.trim());
  if (!DECIMAL.test(text.trim()) || !Number.isFinite(v) || v <= 0) throw new InvalidArgumentError("expected a finite number > 0.");
  return v;
}

/** `--percentiles`: comma-separated percentiles strictly between 0 and 100, as CmdStan's stansummary takes them (e.g. 2.5,50,97.5). */
export function percentileList(text: string): number[] {
  const parts = text.split(",").map((s) => s.trim());
  const values = parts.map(Number);
  if (parts.length === 0 || parts.some((p, i) => !DECIMAL.test(p) || !(values[i]! > 0 && values[i]! < 100))) {
    throw new InvalidArgumentError("expected comma-separated percentiles strictly between 0 and 100, e.g. 2.5,50,97.5.");
  }
  return values;
}
