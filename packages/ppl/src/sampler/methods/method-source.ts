/**
 * How a run's method reaches a worker thread, where functions cannot be sent: a shipped method by
 * its name (builtin.ts), any other by the module that exports it (SamplingMethod.source), which the
 * worker imports.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SamplerOptionError } from "../errors.ts";
import type { SettingsOptions } from "../settings.ts";
import { builtinMethods } from "./builtin.ts";
import type { MethodSource, SamplingMethod } from "./method.ts";

/** A method as a worker thread is sent it: a shipped method's name, or where to import it from. */
export type WorkerMethod = string | MethodSource;

/** Settings as a worker thread is sent them: the method by name or source. */
export type WorkerSettings = Omit<SettingsOptions, "method"> & { readonly method?: WorkerMethod };

/** How a worker thread finds `method`; null where it cannot (a method of the caller's own, without a source). */
export function workerMethod(method: SamplingMethod<unknown> | string): WorkerMethod | null {
  if (typeof method === "string") return method;
  if (builtinMethods[method.name] === method) return method.name;
  return method.source !== undefined ? { module: method.source.module, export: method.source.export } : null;
}

/** The settings of a group of chains as a worker thread is sent them; throws for a method no worker can find. */
export function workerSettings(options: SettingsOptions): WorkerSettings {
  if (options.method === undefined) return options as WorkerSettings;
  const method = workerMethod(options.method);
  if (method === null) {
    const name = typeof options.method === "string" ? options.method : options.method.name;
    throw new SamplerOptionError(`method: worker threads cannot find method '${name}': give it a source (the module that exports it, e.g. { module: import.meta.url, export: "${name}" }), or leave threads at 1`);
  }
  return { ...options, method };
}

/** The settings a worker thread was sent, with a method given by its source imported (and checked). */
export async function settingsInWorker(options: WorkerSettings): Promise<SettingsOptions> {
  const method = options.method;
  if (method === undefined || typeof method === "string") return options as SettingsOptions;
  return { ...options, method: await importMethod(method) };
}

async function importMethod(source: MethodSource): Promise<SamplingMethod<unknown>> {
  let exports: Record<string, unknown>;
  try {
    await typeScriptLoader(source.module);
    exports = (await import(source.module)) as Record<string, unknown>;
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === "ERR_UNKNOWN_FILE_EXTENSION" ? "a worker thread loads JavaScript without a loader: point source.module at the compiled .js file" : e instanceof Error ? e.message : String(e);
    throw new SamplerOptionError(`method: a worker thread could not import '${source.module}': ${why}`);
  }
  const found = exports[source.export];
  if (!isMethod(found)) {
    throw new SamplerOptionError(`method: '${source.module}' exports no sampling method as '${source.export}' (its exports: ${Object.keys(exports).join(", ") || "none"}); set source.export to the name it is exported under`);
  }
  return found;
}

function isMethod(value: unknown): value is SamplingMethod<unknown> {
  const m = value as Partial<SamplingMethod<unknown>> | null;
  return typeof m === "object" && m !== null && typeof m.name === "string" && typeof m.init === "function" && typeof m.begin === "function" && typeof m.advance === "function" && typeof m.info === "function";
}

let loader: Promise<void> | null = null;

// A method's module may import TypeScript sources (a process run with the "@ppl/source" condition,
// which worker threads inherit, resolves the packages to their sources) in a worker thread that has
// no TypeScript loader (the bundled worker). Node remembers a module that failed to load, so a probe
// file of its own asks first, and tsx's loader (found from the method's module) is registered where
// TypeScript does not load; without tsx the import's own error says what failed.
function typeScriptLoader(module: string): Promise<void> {
  return (loader ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "ppl-ts-probe-"));
    try {
      const probe = join(dir, "probe.ts");
      writeFileSync(probe, "export const probe: number = 1;\n");
      await import(pathToFileURL(probe).href);
    } catch (e) {
      if ((e as { code?: string }).code !== "ERR_UNKNOWN_FILE_EXTENSION") return;
      try {
        // tsx's ESM entry beside the CommonJS one that require resolves.
        const api = createRequire(module).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs");
        const { register } = (await import(pathToFileURL(api).href)) as { register: () => unknown };
        register();
      } catch {
        // No tsx where the method's module is: its import reports what does not load.
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })());
}
