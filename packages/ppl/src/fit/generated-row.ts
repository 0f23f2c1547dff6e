/**
 * The columns an approximation's file holds after its leading ones: the constrained parameters and
 * deterministics, then the model's generated quantities evaluated at each draw with random numbers
 * from the seed's streams (chain 0, the draw's index), as `ppl generate` would give them again.
 */
import { generatedEvaluator } from "../generate/generated.ts";
import type { CompiledModel } from "../model/compile.ts";
import { stanNames } from "../model/stan-names.ts";

/** Column names, variable shapes and each draw's row (constrained values, then generated quantities from the seed's streams, chain 0). */
export function generatedColumnsOf(compiled: CompiledModel, seed: number): { names: string[]; shapes: Map<string, readonly number[]>; row(draw: number, reported: Float64Array): Float64Array } {
  const shapes = new Map<string, readonly number[]>(compiled.generatedInfo.map((g) => [g.name, g.shape]));
  const quantities = compiled.recorded.quantities;
  for (const q of quantities) shapes.set(q.name, q.shape);
  if (quantities.length === 0) return { names: compiled.constrainedNames(), shapes, row: (_d, reported) => Float64Array.from(reported) };
  const ev = generatedEvaluator(compiled, { seed, predictive: false });
  const names = [...compiled.constrainedNames(), ...quantities.flatMap((q) => stanNames(q.name, q.shape))];
  return {
    names, shapes,
    row(draw, reported) {
      const out = new Float64Array(reported.length + ev.names.length);
      out.set(reported);
      out.set(ev.at(0, draw, reported), reported.length);
      return out;
    },
  };
}

