/** Which NUTS kernel variants the device's pipeline compiler accepts (a diagnostic for driver failures). */
import { compileModel } from "../packages/ppl/src/index.ts";
import { anchorLogistic } from "./anchor-models.ts";
import { compileGlsl, VulkanManager } from "../packages/vulkan/src/index.ts";
import { nutsProgram } from "../packages/ppl-vulkan/src/index.ts";

const logistic = anchorLogistic;
const manager = new VulkanManager();
for (const [N, D] of [[1000, 10], [100, 10], [20, 10], [1000, 2], [100000, 100]] as const) {
  const X = Array.from({ length: N }, (_, i) => Array.from({ length: D }, (_, j) => Math.sin(i * 7 + j)));
  const y = Array.from({ length: N }, (_, i) => i % 2);
  const m = compileModel(logistic, { N, D, X, y });
  for (const shape of ["thread", "workgroup"] as const) {
    for (const maxDepth of [10, 3]) {
      if (N === 100000 && shape === "thread") continue;
      const p = nutsProgram(m.logDensity, m.q, { chains: 4, maxDepth, dtype: "f32", shape });
      let result = "ok";
      try {
        const spirv = await compileGlsl(p.source, { optimize: false });
        manager.algorithm(spirv, { buffers: 8 + (shape === "workgroup" ? 1 : 0) + p.data.length, pushConstantSize: 8 }).destroy();
      } catch (e) {
        result = e instanceof Error ? e.message.slice(0, 200) : String(e);
      }
      console.log(JSON.stringify({ N, D, shape, maxDepth, result }));
    }
  }
}
