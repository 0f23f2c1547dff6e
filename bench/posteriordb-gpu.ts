/**
 * The posteriordb suite with the transitions on a Vulkan GPU: every chain's NUTS transition is one
 * fused shader (f32 by default); initialization and adaptation on the host, as `ppl sample`
 * runs on a GPU it chose itself: the run starts on the CPU sampler (f64, a thread a chain up to the
 * cores) while the GPU's kernel is built, and moves to the GPU once it is ready unless the CPU is
 * clearly faster a gradient (sampler/pending-runner.ts); the wall time includes the preparation. --gpu-only,
 * --shape or --data-precision f16 keep every posterior on the GPU, as `--backend vulkan` does.
 * Models are imported statically so the program can be bundled.
 * A posterior whose settings need f64 (gp_pois_regr) runs in f64 whatever --dtype says.
 *   tsx bench/posteriordb-gpu.ts [--posteriordb DIR] [--dtype f32|f64] [--seed N] [--shape thread|workgroup|device] [--workgroup threads a chain] [--gpu-only]
 *     [--warmup N --draws N (a shorter run, to time a shape; the rule then usually fails)]
 *     [--data-precision exact|f16 (f16: float data of ≥ 4096 elements stored in 16 bits)] [names…]
 */
import { parseArgs } from "node:util";
import { DEFAULT_SEED, failureLines, reportTable, runPosterior, type PosteriorReport } from "../packages/ppl/src/posteriordb/index.ts";
import { modelDensity, type Model } from "../packages/ppl/src/index.ts";
import { usableDevices } from "../packages/vulkan/src/index.ts";
import { prepareGpuNuts, roundedDataModel, type DataPrecision, type ExecutionShape } from "../packages/ppl-vulkan/src/index.ts";
import arK from "../examples/posteriordb/arK-arK.ts";
import diamonds from "../examples/posteriordb/diamonds-diamonds.ts";
import earnings from "../examples/posteriordb/earnings-logearn_interaction.ts";
import eightSchools from "../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";
import garch from "../examples/posteriordb/garch-garch11.ts";
import gp from "../examples/posteriordb/gp_pois_regr-gp_pois_regr.ts";
import hmm from "../examples/posteriordb/hmm_example-hmm_example.ts";
import kidiq from "../examples/posteriordb/kidiq-kidscore_interaction.ts";
import mixture from "../examples/posteriordb/low_dim_gauss_mix-low_dim_gauss_mix.ts";
import mesquite from "../examples/posteriordb/mesquite-logmesquite.ts";
import sblrc from "../examples/posteriordb/sblrc-blr.ts";

const MODELS: Record<string, Model> = {
  "arK-arK": arK, "diamonds-diamonds": diamonds, "earnings-logearn_interaction": earnings,
  "eight_schools-eight_schools_noncentered": eightSchools, "garch-garch11": garch, "gp_pois_regr-gp_pois_regr": gp,
  "hmm_example-hmm_example": hmm, "kidiq-kidscore_interaction": kidiq, "low_dim_gauss_mix-low_dim_gauss_mix": mixture,
  "mesquite-logmesquite": mesquite, "sblrc-blr": sblrc,
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    posteriordb: { type: "string" }, dtype: { type: "string" }, seed: { type: "string" }, shape: { type: "string" }, workgroup: { type: "string" },
    warmup: { type: "string" }, draws: { type: "string" }, "data-precision": { type: "string" }, "gpu-only": { type: "boolean" },
  },
});
const lengths = {
  ...(values.warmup !== undefined ? { warmup: Number(values.warmup) } : {}),
  ...(values.draws !== undefined ? { draws: Number(values.draws) } : {}),
};
const dtype = (values.dtype ?? "f32") as "f32" | "f64";
const shape = values.shape as ExecutionShape | undefined;
const dataPrecision = (values["data-precision"] ?? "exact") as DataPrecision;
if (dataPrecision !== "exact" && dataPrecision !== "f16") throw new Error(`--data-precision ${dataPrecision}: use exact or f16`);
const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
const startOnCpu = values["gpu-only"] !== true && shape === undefined && values.workgroup === undefined && dataPrecision === "exact";
const device = usableDevices()[0];
if (!device) throw new Error("no Vulkan device");
const names = positionals.length > 0 ? positionals : Object.keys(MODELS);
const reports: PosteriorReport[] = [];
for (const name of names) {
  const report = await runPosterior(name, {
    seed,
    model: MODELS[name],
    settings: lengths,
    runnerPending: startOnCpu,
    ...(values.posteriordb ? { posteriordb: values.posteriordb } : {}),
    runner: async (compiled, settings) => {
      const used = settings.precision === "f64" ? "f64" : dtype;
      const t0 = performance.now();
      const gpu = await prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: used, metric: settings.metric, dataPrecision, ...(shape ? { shape } : {}),
        ...(values.workgroup !== undefined ? { workgroup: Number(values.workgroup) } : {}) });
      // Preparation is mostly compiling the kernels (glslc, then the driver), cached on disk after.
      console.error(`${name}: ${gpu.shape} shape, ${used}, prepared in ${((performance.now() - t0) / 1000).toFixed(2)} s${gpu.note ? `; ${gpu.note}` : ""}`);
      if (dataPrecision === "exact") return { plan: gpu.plan, factory: gpu.factory, hostDensity: (host) => gpu.hostDensity(host), blockIterations: gpu.blockIterations, dispose: () => gpu.dispose() };
      // The host's own evaluations over the data as the device holds them (rounded): one posterior.
      const rounded = await modelDensity(roundedDataModel(compiled, dataPrecision), { backend: "cpu" });
      return { plan: gpu.plan, factory: gpu.factory, hostDensity: () => gpu.hostDensity(rounded), dispose: () => gpu.dispose() };
    },
  });
  reports.push(report);
  console.error(`${report.pass ? "pass" : "FAIL"} ${name}: worst |z| ${report.worstZ.value.toFixed(2)} (${report.worstZ.name}), sd ratio ${report.worstSdRatio.value.toFixed(3)}, ${report.divergences} divergences, ${report.wallSeconds.toFixed(2)} s, ${report.gradientEvaluations} gradients (${(report.gradientEvaluations / report.samplerSeconds).toFixed(0)}/s in the sampler)`);
  for (const f of failureLines(report)) console.error(`  ${f}`);
  const d = report.pendingRunner;
  if (d) {
    const us = (x: number) => `${(x * 1e6).toPrecision(3)} µs`;
    const where = d.reason === "failed" ? `kept on the CPU: the GPU's preparation failed (${d.error})`
      : d.reason === "ended" ? "ended on the CPU before the GPU was ready"
      : d.reason === "short" ? "ended on the CPU, too short to start preparing the GPU"
      : `${d.moved ? "moved to the GPU" : "kept on the CPU"} after iteration ${d.iteration}: ${us(d.runnerSecondsPerGradient)} a gradient of one chain on the GPU, ${us(d.cpuSecondsPerGradient)} on the CPU (${d.threads} threads)`;
    console.error(`  ${where} (${d.seconds.toFixed(2)} s into the run, which took ${report.samplerSeconds.toFixed(2)} s in the sampler)`);
  }
}
console.log(`\nposteriordb on the Vulkan backend (${dtype}, f64 where a posterior needs it${dataPrecision === "f16" ? "; data precision f16" : ""}) — ${device.name}, seed ${seed}, ${new Date().toISOString()}\n`);
console.log(reportTable(reports));
console.log(`\n${reports.filter((r) => r.pass).length}/${reports.length} pass`);
