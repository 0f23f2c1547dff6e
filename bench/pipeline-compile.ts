/**
 * How long does the driver take to build a compute pipeline from our SPIR-V, and does glslc's
 * optimizer (-O) change that? For each GLSL compute shader given (e.g. the sources a run sent to
 * glslc, saved by a wrapper set as PPL_GLSLC), it compiles the source with and without -O (timing
 * glslc), then creates the pipeline from each SPIR-V `--reps` times, printing one JSON line per
 * shader and variant: glslc seconds, SPIR-V bytes, pipeline creation seconds (each rep).
 * PIPELINE_STATS=1 adds the driver's pipeline statistics. Run with the driver's own shader cache off (NVIDIA: __GL_SHADER_DISK_CACHE=0) so that every
 * creation compiles; the first creation of a variant is the cold figure.
 *
 *   tsx bench/pipeline-compile.ts [--reps 2] FILE.comp...
 */
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { VulkanManager } from "../packages/vulkan/src/index.ts";

const { values, positionals } = parseArgs({ options: { reps: { type: "string" } }, allowPositionals: true });
const reps = Number(values.reps ?? 2);
const glslc = process.env.PPL_GLSLC ?? "glslc";
const manager = new VulkanManager(undefined, { pipelineStatistics: process.env.PIPELINE_STATS === "1" });
for (const file of positionals) {
  const source = readFileSync(file, "utf8");
  // The pipeline layout needs as many storage buffers as the shader declares.
  const bindings = new Set([...source.matchAll(/binding\s*=\s*(\d+)/g)].map((m) => Number(m[1])));
  const buffers = bindings.size === 0 ? 1 : Math.max(...bindings) + 1;
  for (const optimize of [false, true]) {
    const args = ["-fshader-stage=comp", "--target-env=vulkan1.1", ...(optimize ? ["-O"] : []), "-", "-o", "-"];
    const t0 = performance.now();
    const out = spawnSync(glslc, args, { input: source, maxBuffer: 1 << 28 });
    const glslcSeconds = (performance.now() - t0) / 1000;
    if (out.status !== 0) {
      console.log(JSON.stringify({ file, optimize, error: out.stderr.toString().slice(0, 300) }));
      continue;
    }
    const bytes = out.stdout;
    const spirv = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const create: number[] = [];
    let stats: unknown = null;
    for (let r = 0; r < reps; r++) {
      const t1 = performance.now();
      const a = manager.algorithm(spirv, { buffers, pushConstantSize: 8 });
      create.push(+((performance.now() - t1) / 1000).toFixed(3));
      // PIPELINE_STATS=1: what the driver made of it (registers, spills), where it reports that.
      if (r === 0) stats = a.statistics()?.map((e) => Object.fromEntries(e.statistics.map((x) => [x.name, x.value]))) ?? null;
      a.destroy();
    }
    console.log(JSON.stringify({ file, optimize, source_bytes: source.length, glslc_s: +glslcSeconds.toFixed(3), spirv_bytes: bytes.byteLength, create_s: create, stats }));
  }
}
manager.destroy();
