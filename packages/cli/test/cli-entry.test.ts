// The CLI tests run the built `ppl` only when it is built from the current sources: a source file
// newer than its package's build sends them to the sources under tsx, saying which file.
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chooseCliEntry } from "./cli-entry.ts";
import { tempDir } from "./helpers.ts";

const PACKAGES = ["tensor", "ppl", "vulkan", "ppl-vulkan", "stan", "cli"];
const BUILT_AT = new Date("2026-01-02T00:00:00Z");
const EDITED_BEFORE = new Date("2026-01-01T00:00:00Z");

// A repository whose every package has a nested source file older than its build.
function repository(): string {
  const root = tempDir("ppl-cli-entry-") + "/";
  for (const name of PACKAGES) {
    const pkg = join(root, "packages", name);
    mkdirSync(join(pkg, "src", "nested"), { recursive: true });
    mkdirSync(join(pkg, "dist"));
    const source = join(pkg, "src", "nested", "module.ts");
    writeFileSync(source, "export {};\n");
    utimesSync(source, EDITED_BEFORE, EDITED_BEFORE);
    const entry = join(pkg, "dist", name === "cli" ? "main.js" : "index.js");
    writeFileSync(entry, "export {};\n");
    utimesSync(entry, BUILT_AT, BUILT_AT);
  }
  return root;
}

describe("the CLI the tests start", () => {
  it("is the bin launcher when every package's build is newer than its sources", () => {
    const root = repository();
    const entry = chooseCliEntry(root, undefined);
    expect(entry.built).toBe(true);
    expect(entry.nodeArgs).toEqual([join(root, "packages/cli/bin/ppl.js")]);
  });

  it("is the sources under tsx when one source file is newer than its package's build, naming it", () => {
    const root = repository();
    const later = new Date(BUILT_AT.getTime() + 1000);
    utimesSync(join(root, "packages/stan/src/nested/module.ts"), later, later);
    const entry = chooseCliEntry(root, undefined);
    expect(entry.built).toBe(false);
    expect(entry.nodeArgs).toEqual(["--import", "tsx", join(root, "packages/cli/src/main.ts")]);
    expect(entry.reason).toMatch(/^packages\/stan\/dist is older than packages\/stan\/src\/nested\/module\.ts; running the sources under tsx/);
  });

  it("is the sources when a package is not built", () => {
    const root = repository();
    const entry = chooseCliEntry(join(root, "nowhere") + "/", undefined);
    expect(entry.built).toBe(false);
    expect(entry.reason).toMatch(/packages\/tensor is not built/);
  });

  it("follows PPL_TEST_CLI, and refuses another value naming the accepted ones", () => {
    const root = repository();
    utimesSync(join(root, "packages/ppl/src/nested/module.ts"), new Date(), new Date());
    expect(chooseCliEntry(root, "built").built).toBe(true);
    expect(chooseCliEntry(root, "source").built).toBe(false);
    expect(() => chooseCliEntry(root, "dist")).toThrow(/PPL_TEST_CLI='dist': expected 'source' or 'built'/);
  });
});
