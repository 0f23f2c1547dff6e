import type { Op } from "./ops.ts";

/**
 * Elementwise ops that cost about as much as a load: sign changes, comparisons, selects, casts and
 * the four arithmetic ops but division. Recomputing one where its value is needed can beat reading
 * it from memory, which transcendentals (exp, lgamma) and division do not.
 */
const CHEAP: ReadonlySet<string> = new Set<string>([
  "neg", "abs", "sign", "square", "floor", "ceil", "not", "stop_gradient", "cast", "select",
  "add", "sub", "mul", "max", "min", "lt", "le", "gt", "ge", "eq", "ne", "and", "or",
]);

/** True for an elementwise op about as cheap as reading its value from memory. */
export const isCheap = (op: Op): boolean => CHEAP.has(op);
