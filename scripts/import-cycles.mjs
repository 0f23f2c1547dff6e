// Fails (exit 1) on any file-level import cycle in the sources of the packages listed below,
// type-only imports included: a cycle is a module that cannot be read, tested or loaded without
// the ones that import it. madge finds them (its TypeScript detective reads `import type` too).
// Add a package here once its src/ has no cycle left.
// Run: node scripts/import-cycles.mjs [package ...]   (the list below when none is named)
import { fileURLToPath } from "node:url";
import madge from "madge";

/** The packages whose src/ must stay free of import cycles. */
const CHECKED = ["ppl"];

const root = fileURLToPath(new URL("..", import.meta.url));
const names = process.argv.length > 2 ? process.argv.slice(2) : CHECKED;
let failed = false;
for (const name of names) {
  const dir = `${root}packages/${name}/src`;
  const graph = await madge(dir, {
    fileExtensions: ["ts"],
    // The tsconfig's paths map @ppl/* to other packages' sources; a cycle inside one package is what is checked.
    excludeRegExp: [/node_modules/, /\.d\.ts$/],
  });
  const cycles = graph.circular();
  if (cycles.length === 0) {
    console.log(`packages/${name}/src: no import cycle (${Object.keys(graph.obj()).length} files)`);
    continue;
  }
  failed = true;
  console.error(`packages/${name}/src: ${cycles.length} import cycle(s); break each by moving what both sides need into a module of its own:`);
  for (const cycle of cycles) console.error(`  ${[...cycle, cycle[0]].join(" → ")}`);
}
process.exit(failed ? 1 : 0);
