import { readFileSync } from "node:fs";
import { compileModel, modelDensity, sampleAsync } from "@ppl/ppl";
import { posteriorSettings, loadPosterior } from "/work/main/packages/ppl/src/posteriordb/index.ts";
import model from "/work/main/examples/posteriordb/kidiq-kidscore_interaction.ts";
const post = loadPosterior("kidiq-kidscore_interaction", "/work/shared/posteriordb");
const settings = posteriorSettings("kidiq-kidscore_interaction", post.reference);
const compiled = compileModel(model, post.data);
const density = await modelDensity(compiled, { backend: "cpu" });
for (const threads of []) {
  const t0 = performance.now();
  const r = await sampleAsync(density, { ...settings, seed: 1, threads });
  console.log(threads, ((performance.now() - t0) / 1000).toFixed(2), r.gradientEvaluations.reduce((a, b) => a + b));
}
const { prepareGpuNuts } = await import("/work/main/packages/ppl-vulkan/src/index.ts");
const t0 = performance.now();
const gpu = prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: "f32", metric: settings.metric });
const r = await sampleAsync(density, { ...settings, seed: 1, threads: 2, pendingRunner: { ready: gpu.then((g) => (console.log("ready", performance.now() - t0), { transitionRunner: g.factory, density: g.hostDensity(density), blockIterations: g.blockIterations })), onDecision: (d) => console.log("decided", performance.now() - t0, d.iteration, d.moved) } });
console.log("done", performance.now() - t0, r.threads);
(await gpu).dispose();
process.exit(0);
