/**
 * Formats a number for Stan CSV with the shortest text that reads back as the
 * same double (JavaScript's own number-to-string), keeping the sign of zero and
 * using Stan's spellings for non-finite values.
 */
export function formatNumber(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0 && 1 / x < 0) return "-0";
  return String(x);
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Parses one Stan CSV field; NaN when the text is not a number. */
export function parseNumber(text: string): number {
  const t = text.trim();
  switch (t.toLowerCase()) {
    case "nan":
    case "-nan":
    case "+nan":
      return NaN;
    case "inf":
    case "+inf":
    case "infinity":
    case "+infinity":
      return Infinity;
    case "-inf":
    case "-infinity":
      return -Infinity;
  }
  // A strict pattern: Number() alone would accept "", "0x10" and other non-CSV forms.
  if (!DECIMAL.test(t)) return NaN;
  return Number(t);
}

/** True when `text` is a valid Stan CSV number (including nan and inf spellings). */
export function isNumberText(text: string): boolean {
  const t = text.trim();
  return !Number.isNaN(parseNumber(t)) || /^[+-]?nan$/i.test(t);
}

/** Four significant digits as a summary line shows them (exponent form below 1e-3 and from 1e6 on). */
export function formatFourDigits(v: number): string {
  return v === 0 || (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6) ? String(Number(v.toPrecision(4))) : v.toExponential(3);
}
