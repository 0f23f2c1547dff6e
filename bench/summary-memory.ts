/**
 * Peak memory and time of the diagnostics summary of long runs, alone: `summarizeEach` over
 * synthetic AR(1) draws (φ = 0.9) that are made again, deterministically, each time a chain is
 * read, so that the draws' source holds nothing and the peak resident set is the summary's own.
 * Run it under GNU time for the peak:
 *
 *   /usr/bin/time -v npx tsx bench/summary-memory.ts [--chains 4] [--draws 1000000] [--parameters 3]
 */
import { parseArgs } from "node:util";
import { summarizeEach, type Draws } from "../packages/ppl/src/diagnostics-entry.ts";

const { values } = parseArgs({ options: { chains: { type: "string" }, draws: { type: "string" }, parameters: { type: "string" } } });
const chains = Number(values.chains ?? 4);
const draws = Number(values.draws ?? 1_000_000);
const parameters = Number(values.parameters ?? 3);

// Chain c of parameter p: an AR(1) series from a xorshift generator seeded by (p, c).
function chainDraws(p: number, c: number): Float64Array {
  let s = (0x9e3779b9 ^ (p * 7919 + c * 104729 + 1)) >>> 0;
  const uniform = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  const out = new Float64Array(draws);
  let x = 0;
  for (let i = 0; i < draws; i++) {
    const z = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    x = 0.9 * x + z;
    out[i] = x + p;
  }
  return out;
}

// [chain][draw] whose chains are made when read.
function lazyDraws(p: number): Draws {
  const out: Float64Array[] = [];
  for (let c = 0; c < chains; c++) Object.defineProperty(out, c, { get: () => chainDraws(p, c), enumerable: true });
  out.length = chains;
  return out;
}

const names = Array.from({ length: parameters }, (_, p) => `x${p + 1}`);
const start = performance.now();
const summary = summarizeEach(names, (name) => lazyDraws(Number(name.slice(1)) - 1));
const seconds = (performance.now() - start) / 1000;
for (const row of summary.parameters) {
  console.log(`${row.name} mean ${row.mean.toPrecision(6)} sd ${row.sd.toPrecision(6)} rhat ${row.rhat.toPrecision(8)} ess_bulk ${row.ess_bulk.toPrecision(8)} ess_tail ${row.ess_tail.toPrecision(8)} mcse_sd ${row.mcse_sd.toPrecision(6)}`);
}
console.log(`${chains} x ${draws} draws, ${parameters} parameters: ${seconds.toFixed(1)} s`);
