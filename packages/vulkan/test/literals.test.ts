import { describe, expect, it } from "vitest";
import * as T from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { literal } from "../src/codegen/glsl.ts";
import { usableDevices } from "../src/devices.ts";

describe("GLSL literals", () => {
  it("are exact and parenthesized when negative, in every dtype", () => {
    expect(literal(-6.25, "f32")).toBe("(-6.25000000)");
    expect(literal(-0.1, "f64")).toBe("(-0.10000000000000001LF)");
    expect(literal(-3, "i32")).toBe("(-3)");
    expect(literal(2, "i32")).toBe("2");
    expect(literal(-Infinity, "f32")).toBe("uintBitsToFloat(0xff800000u)");
  });
});

// x - (negative constant) once rendered as `x--c`, which GLSL reads as a decrement.
describe.runIf(usableDevices().length > 0)("negative constants in generated kernels", () => {
  it("x - c and x * c with negative c match the interpreter", async () => {
    const backend = await vulkanBackend();
    const x = T.param("x", [3], "f32");
    const outs = [T.sub(x, -6.4), T.mul(x, -2), T.sub(T.neg(x), -1)];
    const exe = await backend.compile(outs);
    const got = await exe.run({ x: [1, -2, 3.5] });
    const want = T.interpret(outs, { x: [1, -2, 3.5] });
    got.forEach((g, i) => expect(Array.from(g.data)).toEqual(Array.from(want[i]!.data)));
  });
});
