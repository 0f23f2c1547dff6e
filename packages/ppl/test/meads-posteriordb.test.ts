/**
 * MEADS from random initial points in (−2, 2) on the posteriordb posteriors it failed before its
 * travel-in phase (narrow posteriors far from the initial points: arK, kidiq_interaction,
 * sblrc-blr) and on eight schools: the posteriordb rule with 256 chains in 16 superchains and the
 * bench's MEADS run, 2000 + 500 iterations of one leapfrog step (PPL_LONG=1: minutes). The
 * whole suite is bench/posteriordb-layer.ts --algorithm meads (docs/many-chain-hmc.md).
 */
import { describe, expect, it } from "vitest";
import { failureLines, runPosterior } from "../src/posteriordb/index.ts";

const NAMES = ["arK-arK", "kidiq-kidscore_interaction", "sblrc-blr", "eight_schools-eight_schools_noncentered"];

describe.runIf(process.env["PPL_LONG"])("MEADS from random initial points (PPL_LONG=1)", () => {
  for (const name of NAMES) {
    it(`meets the posteriordb rule on ${name} with 256 chains in 16 superchains, 2000 + 500 iterations`, async () => {
      const r = await runPosterior(name, { method: "meads", superchains: 16, settings: { chains: 256, warmup: 2000, draws: 500 } });
      expect(failureLines(r), `worst |z| ${r.worstZ.value.toFixed(2)} (${r.worstZ.name})`).toEqual([]);
      expect(r.pass).toBe(true);
      expect(r.divergences).toBe(0);
    }, 900_000);
  }
});
