// The READMEs' Stan sections: the documented program is examples/stan/eight_schools.stan and runs
// as shown; the documented refusals are what ppl prints for such programs.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "./helpers.ts";

const EXAMPLE = "examples/stan/eight_schools.stan";
const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");

describe("the documented Stan example", () => {
  it("README shows examples/stan/eight_schools.stan, and the command it shows samples it", async () => {
    const program = read(EXAMPLE);
    expect(read("README.md")).toContain("```stan\n" + program + "```");
    for (const doc of ["README.md", "packages/cli/README.md"]) expect(read(doc)).toContain(`ppl sample ${EXAMPLE} --data examples/eight_schools.json`);
    const out = tempDir();
    const r = await runCli(["sample", EXAMPLE, "--data", "examples/eight_schools.json", "--chains", "1", "--warmup", "150", "--draws", "100", "--seed", "2", "--output", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const header = readFileSync(join(out, "chain-1.csv"), "utf8").split("\n").find((l) => l.startsWith("lp__"))!.split(",");
    expect(header).toEqual(expect.arrayContaining(["mu", "tau", "theta_tilde.1", "theta.8"]));
  });

  it("the refusals packages/cli/README.md shows are ppl's messages, with exit code 3", async () => {
    const doc = read("packages/cli/README.md");
    const programs: Record<string, string> = {
      "t.stan:3:19": "data { int N; vector[N] y; }\nparameters { real mu; real<lower=0> sigma; }\nmodel { target += algebra_solver(mu, sigma); }",
      // The loop carries state (carried), so that no form of the loop pass takes it.
      "t.stan:4:3": `data { int N; vector[N] y; }
parameters { real mu; }
model { real carried = 0;
  for (n in 1:N) {
    vector[2] g;
    g[1] = normal_lpdf(y[n] | mu + carried, 1);
    g[2] = normal_lpdf(y[n] | -mu, 1);
    carried = 0.5 * carried + g[1];
    target += log_sum_exp(g);
  }
}`,
    };
    const dir = tempDir();
    const data = join(dir, "data.json");
    writeFileSync(data, JSON.stringify({ N: 4000, y: Array.from({ length: 4000 }, (_, i) => Math.sin(i)) }));
    for (const [place, text] of Object.entries(programs)) {
      const line = doc.split("\n").find((l) => l.startsWith(`${place}: not supported`));
      expect(line, `packages/cli/README.md documents the refusal at ${place}`).toBeDefined();
      writeFileSync(join(dir, "t.stan"), text);
      const r = await runCli(["sample", join(dir, "t.stan"), "--data", data, "--chains", "1", "--output", join(dir, "out"), "--quiet"]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(line!.slice("t.stan".length));
    }
  });
});
