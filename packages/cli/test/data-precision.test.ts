// `ppl sample --data-precision f16`: the bundled logistic regression with more rows (X is 1500 × 3,
// large enough to be stored in 16 bits) on the Vulkan device (lavapipe in CI); the option's errors
// on the CPU backend and on a device without 16-bit storage.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectChains, summarize } from "@ppl/ppl";
import { thrownBy } from "@ppl/tensor/testing";
import { listDevices, usableDevices } from "@ppl/vulkan";
import { chooseBackend } from "../src/choose-backend.ts";
import { CliError, ExitCode } from "../src/exit-codes.ts";
import { hasStackTrace, readCsv, runCli, tempDir } from "./helpers.ts";

const device = usableDevices()[0];

/** Data of the logistic regression example: N rows, alpha = -0.5, beta = (1.2, -0.8, 0.3), outcomes from a fixed sequence. */
function logisticData(N: number): string {
  const X = Array.from({ length: N }, (_, i) => [0, 1, 2].map((k) => Number((Math.sin(1 + i * 7.31 + k * 2.17) * 1.5).toFixed(4))));
  const y = X.map((row, i) => {
    const eta = -0.5 + 1.2 * row[0]! - 0.8 * row[1]! + 0.3 * row[2]!;
    const u = (Math.sin(i * 12.9898 + 78.233) * 43758.5453) % 1;
    return Math.abs(u) < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  });
  const file = join(tempDir(), "logistic-1500.json");
  writeFileSync(file, JSON.stringify({ N, K: 3, X, y }));
  return file;
}

describe.runIf(device?.features.storageBuffer16BitAccess === true)("ppl sample --data-precision f16", () => {
  it("samples with X stored in 16 bits, says so, records it in the CSV header, and finds the posterior", async () => {
    const out = join(tempDir(), "f16");
    const run = await runCli([
      "sample", "examples/logistic_regression.ts", "--data", logisticData(1500), "--backend", "vulkan", "--gpu-shape", "device",
      "--data-precision", "f16", "--chains", "2", "--warmup", "150", "--draws", "100", "--seed", "4", "--output", out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(hasStackTrace(run.stderr)).toBe(false);
    expect(run.stderr).toMatch(/^data precision f16: X \[1500×3\] stored in 16 bits \(each element rounded, relative error ≤ 2\^-11; integers exact\)/m);
    const files = [1, 2].map((c) => readCsv(join(out, `chain-${c}.csv`)));
    for (const f of files) expect(f.config["data_precision"]).toBe("f16");
    const s = summarize(collectChains(files).parameters);
    // 1500 observations pin alpha to about ±0.07 around its true value.
    expect(Math.abs(s.parameters.find((p) => p.name === "alpha")!.mean + 0.5)).toBeLessThan(0.4);
  });
});

describe("--data-precision f16 where it cannot apply", () => {
  it("with --backend cpu: a usage error that says to drop it", async () => {
    const run = await runCli(["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--backend", "cpu", "--data-precision", "f16"]);
    expect(run.code).toBe(ExitCode.usage);
    expect(run.stderr).toMatch(/--data-precision f16 stores data in 16 bits on a GPU, and this run is on the CPU backend: drop --data-precision f16/);
  });

  it.runIf(device !== undefined)("on a device without 16-bit storage: a device error that says to drop it", () => {
    const listing = listDevices();
    const without = { ...listing, devices: listing.devices.map((d) => ({ ...d, features: { ...d.features, storageBuffer16BitAccess: false } })) };
    const error = thrownBy(() => chooseBackend({ backend: "vulkan", device: device!.index, dataPrecision: "f16" }, without), CliError);
    expect(error.exitCode).toBe(ExitCode.device);
    expect(error.message).toMatch(/lacks 16-bit storage \(storageBuffer16BitAccess\), which --data-precision f16 needs: drop --data-precision f16/);
    // The exact default is unaffected.
    expect(chooseBackend({ backend: "vulkan", device: device!.index }, without).backend).toBe("vulkan");
  });
});
