/**
 * `observed_hash`, which a run's CSV header records: the SHA-256 of the observed values alone
 * (each observed field's name, shape and values as f64), which `ppl loo --compare` compares to tell
 * that two runs conditioned on the same observations, since models of the same observations may
 * read other data files (more covariates, other constants).
 */
import { createHash } from "node:crypto";
import type { TensorValue } from "@ppl/tensor";

/** The hash of the observed fields' values ("sha256:…"), in the order of the observe terms. */
export function hashObserved(fields: readonly { name: string; value: TensorValue }[]): string {
  const h = createHash("sha256");
  for (const { name, value } of fields) {
    h.update(`${name}[${value.shape.join(",")}]\n`);
    h.update(new Uint8Array(value.data.buffer, value.data.byteOffset, value.data.byteLength));
  }
  return `sha256:${h.digest("hex")}`;
}
