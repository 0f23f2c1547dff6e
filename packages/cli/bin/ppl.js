#!/usr/bin/env node
// Launcher for `ppl` once linked: registers tsx so the TypeScript sources (and model files) load
// with no build step, then runs the entry point in this same process (signals and exit codes
// stay those of the command).
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
