import { readFileSync } from "node:fs";
import { sample } from "@ppl/ppl";
import model from "./eight_schools.ts";

const data = JSON.parse(readFileSync(new URL("./eight_schools.json", import.meta.url), "utf8"));
const fit = await sample(model, data, { chains: 2, warmup: 300, draws: 200, seed: 11 });
const mu = fit.draws("mu"); // one Float64Array of 200 draws per chain
const theta = fit.variable("theta"); // { shape: [8], chains: draws × 8 values per chain }
const summary = fit.summary(); // what `ppl sample` prints: mean, sd, quantiles, ESS, R-hat
const tau = summary.parameters.find((p) => p.name === "tau")!;
console.log(`mu: ${mu.length} chains of ${mu[0]!.length}; theta has shape [${theta.shape}]`);
console.log(`tau: mean ${tau.mean.toFixed(2)}, R-hat ${tau.rhat.toFixed(3)}`);
console.log(`divergences: ${fit.diagnostics().divergences}`);
console.log(`elpd_loo: ${fit.loo().elpd_loo.toFixed(1)}`);
fit.writeCsv(process.argv[2] ?? "output-api"); // chain-1.csv, chain-2.csv: `ppl summary output-api` reads them
