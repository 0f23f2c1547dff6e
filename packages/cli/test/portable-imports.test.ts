// Every file in the repository imports by package name or relative path: an import of an absolute
// path works on the machine that wrote it and nowhere else (a fresh clone fails its type check).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));

describe("portable imports", () => {
  it("no tracked source file imports an absolute path", () => {
    const files = execFileSync("git", ["ls-files", "*.ts", "*.mts", "*.mjs", "*.js"], { cwd: root, encoding: "utf8" }).split("\n").filter((f) => f !== "");
    expect(files.length).toBeGreaterThan(100);
    const absolute = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\/[^"']*)["']/g;
    const found = files.flatMap((f) => [...readFileSync(join(root, f), "utf8").matchAll(absolute)].map((m) => `${f}: ${m[1]}`));
    expect(found).toEqual([]);
  });
});
