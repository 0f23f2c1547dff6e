import { scaled, sumExpr } from "./context.ts";

/** An array walked by a batched kernel: its base offset and the stride of each output batch axis (0 where it broadcasts). */
export interface BatchOperand {
  readonly offset: string;
  readonly strides: readonly number[];
}

/**
 * Loops over the batch axes of a batched op (matmul, triangular solve). Returns the loop headers,
 * the closing braces, and for each operand the expression of its offset inside the loops.
 */
export function batchLoops(prefix: string, batch: readonly number[], operands: readonly BatchOperand[]): { open: string[]; close: string[]; offsets: string[] } {
  const open: string[] = [];
  const close: string[] = [];
  const terms: (string | number)[][] = operands.map((o) => [o.offset]);
  batch.forEach((d, a) => {
    if (d <= 1) return;
    const q = `${prefix}q${a}`;
    open.push(`${"  ".repeat(open.length)}for (let ${q} = 0; ${q} < ${d}; ${q}++) {`);
    operands.forEach((o, k) => terms[k]!.push(scaled(q, o.strides[a]!)));
  });
  for (let i = open.length - 1; i >= 0; i--) close.push(`${"  ".repeat(i)}}`);
  return { open, close, offsets: terms.map((t) => sumExpr(...t)) };
}

/** Strides of the batch axes of an operand of shape [...b, r, c] broadcast against `batch` (0 where broadcast), in elements. */
export function batchStrides(shape: readonly number[], strides: readonly number[], batch: readonly number[]): number[] {
  const rank = shape.length - 2;
  const off = batch.length - rank;
  return batch.map((_, a) => {
    const i = a - off;
    return i < 0 || shape[i] === 1 ? 0 : strides[i]!;
  });
}

/** Indent lines by `depth` levels. */
export function indent(lines: readonly string[], depth: number): string[] {
  const pad = "  ".repeat(depth);
  return lines.map((l) => pad + l);
}
