#!/usr/bin/env node
// Launcher for `ppl`: runs the built entry point (dist/, made by `pnpm build`) in this same process,
// so that signals and exit codes stay those of the command. Only the model file a command is given
// is transpiled (src/model-bundle.ts); the CLI and the packages are plain JavaScript.
import { existsSync } from "node:fs";

const entry = new URL("../dist/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("ppl: the CLI is not built (packages/cli/dist/main.js is missing); run `pnpm build` in the repository\n");
  process.exit(70);
}
await import(entry.href);
