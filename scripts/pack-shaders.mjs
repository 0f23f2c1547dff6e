// `pnpm pack` of @ppl/vulkan and @ppl/ppl-vulkan: the GLSL they read at run time lives in the
// repository's shaders/ (shared by both), so prepack copies the folders a package needs into its
// own shaders/ (found there first: packages/vulkan/src/prelude.ts, packages/ppl-vulkan/src/
// nuts-program.ts) and postpack removes them again. Run in the package's directory:
//   node ../../scripts/pack-shaders.mjs prelude|nuts …     node ../../scripts/pack-shaders.mjs --remove
import { cpSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const shaders = join(dirname(fileURLToPath(import.meta.url)), "..", "shaders");
const args = process.argv.slice(2);
rmSync("shaders", { recursive: true, force: true });
if (args[0] !== "--remove") {
  for (const folder of args) cpSync(join(shaders, folder), join("shaders", folder), { recursive: true });
}
