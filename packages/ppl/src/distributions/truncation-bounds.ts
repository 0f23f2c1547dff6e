import type { Operand } from "@ppl/tensor";

/** Bounds of a truncation (truncatedNormal, truncated) or limits of a censoring (observeCensored); either may be left out. */
export interface TruncationBounds {
  lower?: Operand;
  upper?: Operand;
}
