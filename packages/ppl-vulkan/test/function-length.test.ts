import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// No function longer than 100 lines in these folders' sources (a function, method, arrow or
// accessor, counted from its first line to its last, nested functions included in their parent).
const FOLDERS = ["ppl-vulkan/src", "ppl/src/sampler"];
const MAX_LINES = 100;

const root = fileURLToPath(new URL("../../", import.meta.url));

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourcesUnder(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Functions of one file longer than MAX_LINES, as "file:line name (n lines)". */
function longFunctions(file: string): string[] {
  const src = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const last = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : "(anonymous)";
      if (lines > MAX_LINES) found.push(`${file.slice(root.length)}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return found;
}

describe("function length", () => {
  for (const folder of FOLDERS) {
    it(`packages/${folder} has no function over ${MAX_LINES} lines`, () => {
      expect(sourcesUnder(join(root, folder)).flatMap(longFunctions)).toEqual([]);
    });
  }
});
