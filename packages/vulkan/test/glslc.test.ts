import { readdirSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compileGlsl, numberLines, ShaderCompileError, ShaderCompilerMissingError } from "../src/index.ts";

const SHADER = `#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Y { float y[]; };
void main() { y[0] = float(N); }
`;

const savedGlslc = process.env.PPL_GLSLC;
afterEach(() => {
  if (savedGlslc === undefined) delete process.env.PPL_GLSLC;
  else process.env.PPL_GLSLC = savedGlslc;
});

describe("compileGlsl", () => {
  it("compiles GLSL to SPIR-V and caches it on disk by content", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "ppl-spirv-"));
    const spirv = await compileGlsl(SHADER, { cacheDir, defines: { N: 3 } });
    expect(spirv).toBeInstanceOf(Uint32Array);
    expect(spirv[0]).toBe(0x07230203);
    expect(readdirSync(cacheDir).filter((f) => f.endsWith(".spv"))).toHaveLength(1);

    // Different defines are a different kernel.
    const other = await compileGlsl(SHADER, { cacheDir, defines: { N: 4 } });
    expect(Buffer.from(other.buffer).equals(Buffer.from(spirv.buffer))).toBe(false);
    expect(readdirSync(cacheDir).filter((f) => f.endsWith(".spv"))).toHaveLength(2);

    // With glslc gone, a cached kernel still loads (nothing is compiled) ...
    process.env.PPL_GLSLC = "/nonexistent/glslc";
    const cached = await compileGlsl(SHADER, { cacheDir, defines: { N: 3 } });
    expect(Array.from(cached)).toEqual(Array.from(spirv));
    // ... and a new one fails with a message naming the package to install.
    const missing = compileGlsl(SHADER, { cacheDir, defines: { N: 5 } });
    await expect(missing).rejects.toBeInstanceOf(ShaderCompilerMissingError);
    await expect(missing).rejects.toThrow(/install the Debian package glslc/);
  });

  it("uses PPL_CACHE_DIR by default", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "ppl-cache-env-"));
    const saved = process.env.PPL_CACHE_DIR;
    process.env.PPL_CACHE_DIR = cacheDir;
    try {
      await compileGlsl(SHADER, { defines: { N: 9 } });
    } finally {
      if (saved === undefined) delete process.env.PPL_CACHE_DIR;
      else process.env.PPL_CACHE_DIR = saved;
    }
    expect(readdirSync(cacheDir).filter((f) => f.endsWith(".spv"))).toHaveLength(1);
  });

  it("reports compile errors with glslc's message and the numbered source around them", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `// filler line ${i + 1}`);
    lines[0] = "#version 450";
    lines[1] = "layout(local_size_x = 1) in;";
    lines[19] = "void main() { float x = undefined_name; }";
    const source = lines.join("\n");
    let error: unknown;
    try {
      await compileGlsl(source, { cacheDir: mkdtempSync(join(tmpdir(), "ppl-spirv-")) });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ShaderCompileError);
    const message = (error as ShaderCompileError).message;
    expect(message).toMatch(/undeclared identifier/);
    expect(message).toMatch(/:20: error/);
    expect(message).toContain("> 20 | void main() { float x = undefined_name; }");
    expect(message).toContain("  17 | // filler line 17");
    expect(message).not.toContain("filler line 5\n"); // far-away lines are elided
    expect((error as ShaderCompileError).source).toBe(source);
  });

  it("rejects malformed define names", async () => {
    await expect(compileGlsl(SHADER, { defines: { "N=1 -o /tmp/x": 1 } })).rejects.toThrow(RangeError);
  });

  it("numbers lines", () => {
    expect(numberLines("a\nb\nc", [2], 0)).toBe("   ...\n> 2 | b\n   ...");
  });
});
