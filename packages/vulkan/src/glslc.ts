// GLSL -> SPIR-V through the `glslc` executable (shaderc). Debian's
// libshaderc cannot be linked into the addon (docs/shader-compilation.md), and the
// executable costs ~0.1-0.25 s per kernel, so results are cached on disk by
// the sha256 of (source, options, glslc version): a second run compiles nothing.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rename, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { ShaderCompileError, ShaderCompilerMissingError } from "./errors.ts";

export interface CompileOptions {
  /** Shader stage; only compute shaders are used here. */
  stage?: "comp";
  /** Preprocessor definitions, passed as -DNAME=VALUE. */
  defines?: Readonly<Record<string, string | number | boolean>>;
  /** SPIR-V environment; vulkan1.1 (default) has subgroup operations. */
  targetEnv?: "vulkan1.1" | "vulkan1.2" | "vulkan1.3";
  /** Run glslc's optimizer (-O); default true. */
  optimize?: boolean;
  /** Cache directory; default $PPL_CACHE_DIR, else $XDG_CACHE_HOME/ppl/spirv, else ~/.cache/ppl/spirv. */
  cacheDir?: string;
}

/** The glslc executable: $PPL_GLSLC, or `glslc` on the PATH. */
function glslcPath(): string {
  return process.env.PPL_GLSLC || "glslc";
}

/** The SPIR-V cache directory used when options.cacheDir is not given. */
export function defaultSpirvCacheDir(): string {
  if (process.env.PPL_CACHE_DIR) return process.env.PPL_CACHE_DIR;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "ppl", "spirv");
}

interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

function run(command: string, args: string[], input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      const missing = error.code === "ENOENT" || error.code === "EACCES";
      reject(
        missing
          ? new ShaderCompilerMissingError(
              `cannot run the GLSL compiler '${command}' (${error.code}): install the Debian package glslc ` +
                "(apt-get install glslc) or set PPL_GLSLC to its path",
            )
          : error,
      );
    });
    child.on("close", (code) =>
      resolve({ code, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString("utf8") }),
    );
    // A child that dies early closes stdin; the 'error' it causes is reported above.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input ?? "");
  });
}

let versionPromise: Promise<string> | undefined;

/** glslc's version banner (part of the cache key, so a new compiler recompiles). */
export function glslcVersion(): Promise<string> {
  versionPromise ??= run(glslcPath(), ["--version"]).then((result) => {
    if (result.code !== 0) {
      throw new ShaderCompilerMissingError(`'${glslcPath()} --version' failed: install the Debian package glslc`);
    }
    return result.stdout.toString("utf8").trim();
  });
  // Do not cache a failure: the next call tries again.
  versionPromise.catch(() => (versionPromise = undefined));
  return versionPromise;
}

/** The source with 1-based line numbers, lines near any of `focus` (or all when none) marked with '>'. */
export function numberLines(source: string, focus: readonly number[] = [], context = 3): string {
  const lines = source.split("\n");
  const width = String(lines.length).length;
  const show = (n: number) => focus.length === 0 || focus.some((line) => Math.abs(line - n) <= context);
  const out: string[] = [];
  let skipped = false;
  lines.forEach((text, i) => {
    const n = i + 1;
    if (!show(n)) {
      if (!skipped) out.push("   ...");
      skipped = true;
      return;
    }
    skipped = false;
    out.push(`${focus.includes(n) ? ">" : " "} ${String(n).padStart(width)} | ${text}`);
  });
  return out.join("\n");
}

/** Line numbers glslc blames in its diagnostics ("<stdin>:12: error: ..."). */
function errorLines(diagnostics: string): number[] {
  const lines = new Set<number>();
  for (const match of diagnostics.matchAll(/^[^:\n]*:(\d+):\s*(?:error|warning)/gm)) lines.add(Number(match[1]));
  return [...lines].sort((a, b) => a - b);
}

function definesArgs(defines: CompileOptions["defines"]): string[] {
  return Object.entries(defines ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new RangeError(`invalid GLSL define name '${name}'`);
      const text = typeof value === "boolean" ? (value ? "1" : "0") : String(value);
      if (/[\r\n]/.test(text)) throw new RangeError(`GLSL define ${name} must be one line`);
      return `-D${name}=${text}`;
    });
}

function toWords(bytes: Buffer): Uint32Array {
  if (bytes.byteLength % 4 !== 0 || bytes.byteLength < 20) throw new Error("glslc produced a truncated SPIR-V module");
  // Copy into a fresh, aligned buffer (a Node Buffer may sit at any offset of a pool).
  const words = new Uint32Array(bytes.byteLength / 4);
  new Uint8Array(words.buffer).set(bytes);
  return words;
}

/**
 * Saves a generated source that failed to compile where a reader can open it at the line the
 * error names: a fresh private directory under the system's temporary one (never a shared,
 * predictable path). "<stdin>" when it cannot be written, so the error is still thrown.
 */
async function saveFailedSource(source: string, key: string): Promise<string> {
  try {
    const dir = await mkdtemp(join(tmpdir(), "ppl-glsl-"));
    const file = join(dir, `kernel-${key.slice(0, 12)}.comp`);
    await writeFile(file, source);
    return file;
  } catch {
    return "<stdin>";
  }
}

/** Compiles GLSL to SPIR-V words with glslc, using the on-disk cache; throws ShaderCompileError with numbered source. */
export async function compileGlsl(source: string, options: CompileOptions = {}): Promise<Uint32Array> {
  const stage = options.stage ?? "comp";
  const targetEnv = options.targetEnv ?? "vulkan1.1";
  const optimize = options.optimize ?? true;
  const args = [`-fshader-stage=${stage}`, `--target-env=${targetEnv}`, ...definesArgs(options.defines)];
  if (optimize) args.push("-O");

  const version = await glslcVersion();
  const key = createHash("sha256").update(JSON.stringify({ source, args, version })).digest("hex");
  const cacheDir = options.cacheDir ?? defaultSpirvCacheDir();
  const cacheFile = join(cacheDir, `${key}.spv`);
  try {
    return toWords(await readFile(cacheFile));
  } catch {
    // Not cached (or unreadable): compile.
  }

  const result = await run(glslcPath(), [...args, "-", "-o", "-"], source);
  if (result.code !== 0) {
    const file = await saveFailedSource(source, key);
    const diagnostics = result.stderr.trim().replace(/^<stdin>:/gm, `${file}:`);
    const lines = errorLines(diagnostics);
    const line = lines[0] ?? 0;
    const first = /^[^\n]*:\d+:\s*error:\s*(.*)$/m.exec(diagnostics)?.[1] ?? diagnostics.split("\n")[0] ?? "";
    const where = line > 0 ? `${file}:${line}: ${first.trim()}: \`${(source.split("\n")[line - 1] ?? "").trim()}\`` : `${file}: ${first.trim()}`;
    throw new ShaderCompileError(
      `GLSL compile error at ${where}\n${diagnostics}\n\nsource (${lines.length ? "lines around the error" : "all lines"}):\n` +
        numberLines(source, lines),
      diagnostics,
      source,
      file,
      line,
    );
  }
  const words = toWords(result.stdout);
  // Write-then-rename so concurrent compiles never read half a file.
  try {
    await mkdir(cacheDir, { recursive: true });
    const temporary = `${cacheFile}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(temporary, result.stdout);
    await rename(temporary, cacheFile);
  } catch {
    // A read-only or full cache directory only costs recompiles.
  }
  return words;
}
