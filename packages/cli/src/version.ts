/** The version `ppl --version` prints: the CLI package's own, read from its package.json so that it has one source. */
import { readFileSync } from "node:fs";

/** The @ppl/cli package's version (package.json's "version"). */
export const PPL_VERSION: string = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
