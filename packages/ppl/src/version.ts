/** The version InferenceData files record: the @ppl/ppl package's own, read from its package.json so that it has one source. */
import { readFileSync } from "node:fs";

let version: string | undefined;

/** The @ppl/ppl package's version (package.json's "version"), read on first use. */
export function libraryVersion(): string {
  // src/version.ts and the bundle's dist/*.js both lie one folder below the package.
  version ??= (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  return version;
}
