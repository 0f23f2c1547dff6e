import type { Operand } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";

/** The scale of a half-distribution called as (scale) or Stan-style (0, scale); another location is a ModelError. */
export function halfLocation(dist: string, args: readonly Operand[]): Operand {
  if (args.length === 1) return args[0]!;
  if (args.length === 2 && args[0] === 0) return args[1]!;
  throw new ModelError(
    `${dist}: expects (scale) or (0, scale), got ${args.length} arguments${args.length === 2 ? " with a non-zero location" : ""}; ` +
      `a half-distribution is centred at 0 — for another location use truncatedNormal(mu, sigma, { lower })`,
  );
}
