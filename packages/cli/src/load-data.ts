import { modelError } from "./exit-codes.ts";
import { readTextFile } from "./read-file.ts";

/** Reads a Stan-format JSON data file; a missing file is a usage error, invalid JSON a data error. */
export function loadData(path: string | undefined): unknown {
  if (path === undefined) return {};
  const text = readTextFile(path, "data file");
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw modelError(`data file '${path}' is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}
