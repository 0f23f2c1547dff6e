// The API reference (typedoc.json, `pnpm docs:api` writes it to docs/api/): typedoc reads the public
// entry points (@ppl/ppl, @ppl/ppl/runner, @ppl/tensor, @ppl/ppl-vulkan) with its validation as
// errors, so an exported function, class, method, interface, type or constant without a doc
// comment, a link to nothing or a public type that is not exported fails here. The reflections it
// writes as JSON are then checked on their own: every function's signature carries a comment.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
// typedoc is the repository root's dev dependency (its package exports no bin path to resolve).
const TYPEDOC = join(ROOT, "node_modules/typedoc/bin/typedoc");

/** A reflection of typedoc's JSON output, as far as this test reads it. */
interface Reflection {
  readonly name: string;
  readonly kind: number;
  readonly comment?: unknown;
  readonly signatures?: readonly Reflection[];
  readonly children?: readonly Reflection[];
}

// typedoc's ReflectionKind.Function.
const FUNCTION = 64;

describe("the API reference", () => {
  it("builds from the four entry points with no warning, and every exported function has a doc comment", () => {
    const json = join(mkdtempSync(join(tmpdir(), "api-reference-")), "api.json");
    // The reflections as JSON only: the HTML (`pnpm docs:api`) is not written.
    const run = spawnSync(process.execPath, [TYPEDOC, "--options", join(ROOT, "typedoc.json"), "--json", json], { cwd: ROOT, encoding: "utf8" });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(/\[warning\]|\[error\]/);
    const project = JSON.parse(readFileSync(json, "utf8")) as Reflection;
    const modules = project.children ?? [];
    expect(modules.map((m) => m.name).sort()).toEqual(["@ppl/ppl", "@ppl/ppl-vulkan", "@ppl/ppl/runner", "@ppl/tensor"]);
    const undocumented = modules.flatMap((m) =>
      (m.children ?? []).filter((r) => r.kind === FUNCTION && r.comment === undefined && !(r.signatures ?? []).some((s) => s.comment !== undefined)).map((r) => `${m.name}.${r.name}`),
    );
    expect(undocumented).toEqual([]);
    const ppl = modules.find((m) => m.name === "@ppl/ppl")!;
    expect(ppl.children!.map((r) => r.name)).toEqual(expect.arrayContaining(["sample", "Fit", "model", "normal", "approximate"]));
  }, 300_000);
});
