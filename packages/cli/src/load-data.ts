import { modelError } from "./exit-codes.ts";
import { readTextFile } from "./read-file.ts";

/** Reads a Stan-format JSON data file; a missing file is a usage error, invalid JSON a data error. */
export function loadData(path: string | undefined): unknown {
  if (path === undefined) return {};
  const text = readTextFile(path, "data file");
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    // Stan's own JSON reader accepts bare NaN and Infinity; JSON does not, and the data must be finite anyway.
    const bare = /(^|[\s,[:])-?(NaN|Infinity|inf)\b/.test(text) ? " (bare NaN or Infinity is not JSON, and data must be finite numbers: remove or impute those entries)" : "";
    throw modelError(`data file '${path}' is not valid JSON${bare}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
