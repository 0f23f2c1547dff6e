import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// No file-level import cycle in these packages' sources (type-only imports included: a cycle of
// types still ties the files' meanings together). Add a package here once madge finds none in it:
// npx madge --circular --extensions ts packages/<pkg>/src
const PACKAGES = ["tensor", "vulkan", "ppl-vulkan", "ppl", "cli"];

// madge ships no types; this is the part of its API the check uses.
type Madge = (paths: string | string[], config: { fileExtensions: string[] }) => Promise<{ circular(): string[][] }>;
const madge = createRequire(import.meta.url)("madge") as Madge;

const srcOf = (pkg: string) => fileURLToPath(new URL(`../../${pkg}/src`, import.meta.url));

describe("import cycles", () => {
  for (const pkg of PACKAGES) {
    it(`packages/${pkg}/src has none`, async () => {
      const graph = await madge(srcOf(pkg), { fileExtensions: ["ts"] });
      expect(graph.circular().map((cycle) => cycle.join(" > "))).toEqual([]);
    });
  }
});
