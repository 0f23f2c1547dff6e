import { describe, expect, it } from "vitest";
import { goldenSource } from "../src/golden-source.ts";
import { preludeSource } from "../src/prelude.ts";

// Goldens keep the generated code and name the hand-written GLSL it includes instead of copying it.
describe("goldenSource", () => {
  it("replaces the f64 prelude (which begins with the f32 one), the f32 prelude and given texts by one line each", () => {
    const generated = "void main() { b0.v[0] = 1.0; }";
    const f64 = `#version 450\n${preludeSource("f64")}\n${generated}`;
    expect(goldenSource(f64)).toBe(`#version 450\n// (shaders/prelude, float and double: left out of the golden)\n${generated}`);
    const f32 = `#version 450\n${preludeSource("f32")}\nint x;\nconst int A = 1;\n${generated}`;
    expect(goldenSource(f32, [{ name: "a.glsl", text: "const int A = 1;" }])).toBe(
      `#version 450\n// (shaders/prelude, float: left out of the golden)\nint x;\n// (a.glsl: left out of the golden)\n${generated}`,
    );
    expect(goldenSource(generated)).toBe(generated);
  });
});
