// Variables of draws are written to netCDF a slab of draws at a time (so that an export of
// millions of draws holds a stretch, not the variable): the file reads back the same, value for
// value and type for type, whatever the slab's size, as the variables' values made whole.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chainsFromColumns, inferenceGroup, readNetcdf, runGroups, writeNetcdf } from "../src/index.ts";

describe("writeNetcdf's slabs", () => {
  it("give the file that the whole values give, for slabs of one draw, a few draws and every draw", async () => {
    const names = ["lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__", "mu", "theta.1.1", "theta.2.1", "theta.1.2", "y_rep.1", "y_rep.2", "log_lik.1", "log_lik.2"];
    const chains = 3;
    const draws = [13, 11, 12];
    const columns = Array.from({ length: chains }, (_, c) =>
      names.map((name, k) => Float64Array.from({ length: draws[c]! }, (_, d) => (name === "divergent__" ? (d + c) % 3 === 0 ? 1 : 0 : name.endsWith("__") || name.startsWith("y_rep") ? (d * 7 + k + c) % 11 : Math.sin(1 + c * 100 + d * 10 + k) * 10 ** (k % 5)))),
    );
    const run = chainsFromColumns(names, columns);
    const layout = { observed: [{ name: "y", field: true, pointwise: [2], event: [] }], intData: new Set(["y"]) };
    const groups = runGroups(run, names.slice(0, 7), false, layout);
    // The same groups with each variable's values made whole (no slabs): the plain write.
    const whole = groups.map((g) => inferenceGroup(g.name, g.variables.map((v) => ({ name: v.name, dims: v.dims, shape: v.shape, values: v.values, ...(v.bool ? { bool: true } : {}), ...(v.int ? { int: true } : {}) }))));
    const dir = mkdtempSync(join(tmpdir(), "ppl-netcdf-"));
    await writeNetcdf(join(dir, "whole.nc"), whole, { model: "m" });
    const expected = await readNetcdf(join(dir, "whole.nc"));
    expect(expected.get("posterior")!.get("theta")!.shape).toEqual([3, 11, 2, 2]);
    expect(expected.get("posterior_predictive")!.get("y")!.dtype).toBe(expected.get("sample_stats")!.get("tree_depth")!.dtype);
    for (const slab of [1, 5, 8, 1 << 20]) {
      const path = join(dir, `slab-${slab}.nc`);
      await writeNetcdf(path, groups, { model: "m" }, slab);
      const read = await readNetcdf(path);
      for (const [group, vars] of expected) {
        for (const [name, v] of vars) {
          const got = read.get(group)!.get(name)!;
          expect({ shape: got.shape, dims: got.dims, dtype: got.dtype }, `${group}/${name}, slab ${slab}`).toEqual({ shape: v.shape, dims: v.dims, dtype: v.dtype });
          expect(got.values.every((x, i) => Object.is(x, v.values[i])), `${group}/${name}, slab ${slab}`).toBe(true);
        }
      }
    }
  });
});
