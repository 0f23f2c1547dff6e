import { preludeSource } from "./prelude.ts";

/** A hand-written file's text that generated shaders include whole. */
export interface IncludedText {
  readonly name: string;
  readonly text: string;
}

/**
 * A generated shader as its golden snapshot keeps it: the math prelude and each `included` text,
 * wherever they appear whole, replaced by one line naming them. The snapshot then shows what the
 * code generator wrote; the hand-written GLSL has tests of its own, and a change to it does not
 * rewrite every snapshot (nor leaves a second copy of it in the tree).
 */
export function goldenSource(source: string, included: readonly IncludedText[] = []): string {
  // The f64 prelude begins with the f32 one, so it goes first.
  const texts: IncludedText[] = [
    { name: "shaders/prelude, float and double", text: preludeSource("f64") },
    { name: "shaders/prelude, float", text: preludeSource("f32") },
    ...included,
  ];
  let out = source;
  for (const { name, text } of texts) out = out.split(text).join(`// (${name}: left out of the golden)`);
  return out;
}
