/**
 * What a run records to tell that two runs saw the same data: `data_hash`, the SHA-256 of the data
 * file's bytes (a reformatted file counts as other data), which chain groups of one run
 * (`ppl summary DIR1 DIR2 …`, `ppl merge`) and `ppl generate` compare; and `observed_hash`, the
 * SHA-256 of the observed values alone (hashObserved of @ppl/ppl, written with the data layout),
 * which `ppl loo --compare` compares.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** The data file's hash as the CSV header records it: "sha256:…", or "none" without a data file. */
export function hashDataFile(path: string | undefined): string {
  if (path === undefined) return "none";
  return `sha256:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
}

/** A hash as a message shows it: "none", or its kind and first 12 hex digits. */
export function shortHash(hash: string): string {
  return hash.replace(/^(sha256:[0-9a-f]{12})[0-9a-f]+$/, "$1…");
}

/** Two runs' hashes of one key, as the data check reads them: which key both record (observed_hash before data_hash), and whether they agree. */
export function compareDataHashes(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>, keys: readonly string[]): { key: string; same: boolean; a: string; b: string } | undefined {
  const key = keys.find((k) => a[k] !== undefined && b[k] !== undefined);
  if (key === undefined) return undefined;
  return { key, same: a[key] === b[key], a: a[key]!, b: b[key]! };
}
