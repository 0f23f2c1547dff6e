// CmdStan's options of `ppl sample` on the GPU sampler (lavapipe in CI): the same cases as on the
// CPU backend (cmdstan-options.test.ts), on the thread-per-chain kernel and on the whole-device shape.
import { describe } from "vitest";
import { usableDevices } from "@ppl/vulkan";
import { cmdstanOptionCases } from "./cmdstan-options-cases.ts";

describe.runIf(usableDevices().length > 0)("ppl sample, CmdStan's options (--backend vulkan)", () => {
  describe("--gpu-shape thread", () => cmdstanOptionCases(["--backend", "vulkan", "--gpu-shape", "thread"]));
  describe("--gpu-shape device", () => cmdstanOptionCases(["--backend", "vulkan", "--gpu-shape", "device"]));
});
