/**
 * The op conformance suite against the Vulkan backend, as a program (for machines without the
 * test runner, such as the GPU machine): prints one JSON line per dtype with the passed and failed
 * cases.   tsx bench/gpu-conformance.ts [--runs N] [--dtypes f32,f64] [--filter REGEX (cases whose name matches)]
 */
import { runConformance } from "../packages/tensor/src/testing/index.ts";
import { usableDevices, vulkanBackend } from "../packages/vulkan/src/index.ts";

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const runs = Number(opt("runs", "10"));
// A device command has minutes, and f64's whole suite takes longer there: a part of it by name.
const filter = new RegExp(opt("filter", ""));
const device = usableDevices()[0];
if (!device) throw new Error("no Vulkan device");
const backend = await vulkanBackend();
for (const dtype of opt("dtypes", "f32,f64").split(",") as ("f32" | "f64")[]) {
  if (dtype === "f64" && !device.features.shaderFloat64) continue;
  const t0 = performance.now();
  const report = await runConformance(backend, { dtype, numRuns: runs, seed: 42, throwOnFailure: false, filter: (name) => filter.test(name) });
  console.log(JSON.stringify({
    suite: "op-conformance", device: backend.device, dtype, runs_per_case: runs,
    passed: report.passed.length, failed: report.failed.length, seconds: +((performance.now() - t0) / 1000).toFixed(1),
    failures: report.failed.map((f) => `${f.name}: ${f.message.slice(0, 2500)}`),
  }));
}
