// Which `ppl` the CLI tests start as a child process: the built one (packages/cli/bin/ppl.js, which
// runs dist/ and the other packages' dist/) or the sources under tsx (which, through tsconfig's
// paths, runs every package's src/). The built CLI starts in about a third of the time (no
// TypeScript to transpile at each start), and the tests start it a few hundred times. `pnpm test`
// builds first, so there the two are the same code; a developer who edits a source and runs vitest
// alone must not test an older build, so the built CLI is used only when no source file of the
// packages it runs is newer than that package's build. PPL_TEST_CLI=source or =built chooses
// explicitly (=built runs the build even when it is older than the sources).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The packages the CLI runs, each built to dist/ by its own `pnpm build`. */
const PACKAGES = ["tensor", "ppl", "vulkan", "ppl-vulkan", "stan", "cli"] as const;

/** How to start `ppl`: node's arguments before the command's, and why this one. */
export interface CliEntry {
  readonly nodeArgs: readonly string[];
  readonly built: boolean;
  readonly reason: string;
}

/** The entry the tests start `ppl` from, under the repository root `root` (see the file's comment). */
export function chooseCliEntry(root: string, choice: string | undefined = process.env["PPL_TEST_CLI"]): CliEntry {
  const launcher = join(root, "packages/cli/bin/ppl.js");
  const source: CliEntry = { nodeArgs: ["--import", "tsx", join(root, "packages/cli/src/main.ts")], built: false, reason: "" };
  if (choice === "source") return { ...source, reason: "PPL_TEST_CLI=source" };
  if (choice === "built") return { nodeArgs: [launcher], built: true, reason: "PPL_TEST_CLI=built" };
  if (choice !== undefined && choice !== "") throw new Error(`PPL_TEST_CLI='${choice}': expected 'source' or 'built' (or unset, to use the build when it is current)`);
  const stale = staleBuild(root);
  if (stale !== undefined) return { ...source, reason: `${stale}; running the sources under tsx (run \`pnpm build\` to test the faster built CLI)` };
  return { nodeArgs: [launcher], built: true, reason: "every package's dist/ is newer than its src/" };
}

// Why the build cannot stand for the sources, or undefined when it can.
function staleBuild(root: string): string | undefined {
  for (const name of PACKAGES) {
    const pkg = join(root, "packages", name);
    // esbuild writes every output of a build, so an entry's time is the build's time.
    const entry = join(pkg, "dist", name === "cli" ? "main.js" : "index.js");
    if (!existsSync(entry)) return `packages/${name} is not built (${entry} is missing)`;
    const builtAt = statSync(entry).mtimeMs;
    const newer = newerSource(join(pkg, "src"), builtAt);
    if (newer !== undefined) return `packages/${name}/dist is older than ${newer.slice(root.length)}`;
  }
  return undefined;
}

// The first file under `dir` modified after `time`, if any.
function newerSource(dir: string, time: number): string | undefined {
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!f.isFile()) continue;
    const path = join(f.parentPath, f.name);
    if (statSync(path).mtimeMs > time) return path;
  }
  return undefined;
}
