import { PASS_RULE } from "./pass-rule.ts";
import type { PosteriorReport } from "./run-posterior.ts";

/** A Markdown table of suite results: one row per posterior, worst z-score and sd ratio with their parameters. */
export function reportTable(reports: readonly PosteriorReport[]): string {
  const header = "| posterior | result | worst \\|z\\| | sd ratio furthest from 1 | divergences | gradients | wall s | settings |";
  const rule = "|---|---|---|---|---:|---:|---:|---|";
  const rows = reports.map((r) => {
    const s = r.settings;
    const settings = `${s.metric}, δ=${s.adaptDelta}, depth ${s.maxDepth}`;
    const result = r.pass ? "pass" : `**FAIL**${failedNames(r)}`;
    return `| ${r.name} | ${result} | ${fmt(r.worstZ.value, 2)} (${r.worstZ.name}) | ${fmt(r.worstSdRatio.value, 3)} (${r.worstSdRatio.name}) | ${r.divergences} | ${r.gradientEvaluations} | ${fmt(r.wallSeconds, 2)} | ${settings} |`;
  });
  return [header, rule, ...rows].join("\n");
}

/** A one-line verdict per failed parameter, for logs. */
export function failureLines(r: PosteriorReport): string[] {
  const lines = r.missing.map((m) => `${r.name}: ${m} is not reported by the model`);
  for (const c of r.checks) {
    if (c.pass) continue;
    lines.push(
      `${r.name}: ${c.name} mean ${c.mean.toPrecision(6)} (ref ${c.refMean.toPrecision(6)}), z=${fmt(c.z, 2)} (max ${PASS_RULE.maxZ}); ` +
        `sd ${c.sd.toPrecision(4)} (ref ${c.refSd.toPrecision(4)}), ratio ${fmt(c.sdRatio, 3)} (allowed ${PASS_RULE.minSdRatio}–${PASS_RULE.maxSdRatio})`,
    );
  }
  return lines;
}

function failedNames(r: PosteriorReport): string {
  const names = [...r.missing, ...r.checks.filter((c) => !c.pass).map((c) => c.name)];
  return names.length === 0 ? "" : ` (${names.slice(0, 4).join(", ")}${names.length > 4 ? ", …" : ""})`;
}

function fmt(x: number, digits: number): string {
  return Number.isFinite(x) ? x.toFixed(digits) : String(x);
}
