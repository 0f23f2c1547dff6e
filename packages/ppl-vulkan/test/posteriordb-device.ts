import { expect } from "vitest";
import type { CompiledModel } from "@ppl/ppl";
import { failureLines, runPosterior, type PosteriorReport, type PosteriorSettings } from "@ppl/ppl/internals";
import type { GpuNuts } from "../src/index.ts";

/** Run one reference posterior with its transitions on a prepared GPU sampler and expect it to pass the rule. */
export async function passesOnDevice(
  name: string,
  prepare: (compiled: CompiledModel, settings: PosteriorSettings) => Promise<GpuNuts>,
): Promise<PosteriorReport> {
  const report = await runPosterior(name, { runner: prepare });
  expect(report.missing).toEqual([]);
  expect(failureLines(report), `${name}: worst |z| ${report.worstZ.value.toFixed(2)} (${report.worstZ.name})`).toEqual([]);
  expect(report.pass).toBe(true);
  return report;
}
