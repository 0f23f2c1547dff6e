// Builds the native addon into build/Release/ppl_vulkan.node with cmake-js.
// cmake-js would download Node headers for a non-Node-API project; this
// package declares "binary.napi_versions" (Node-API only) so it does not, and
// we point CMake at the headers of the Node that runs this script.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(packageDir, "package.json"));

/** The include/node directory of the running Node, if its headers are installed. */
function findNodeHeaders() {
  const candidates = [
    process.env.PPL_NODE_INCLUDE,
    join(dirname(dirname(process.execPath)), "include", "node"),
    "/usr/include/node",
    "/usr/local/include/node",
  ];
  return candidates.find((dir) => dir && existsSync(join(dir, "node_api.h")));
}

const nodeInclude = findNodeHeaders();
const addonApiDir = dirname(require.resolve("node-addon-api/package.json"));
const cmakeJs = join(dirname(require.resolve("cmake-js/package.json")), "bin", "cmake-js");

const args = [
  cmakeJs,
  "build",
  "--directory", packageDir,
  "--out", join(packageDir, "build"),
  "--config", "Release",
  `--CDNODE_ADDON_API_DIR=${addonApiDir}`,
  "--parallel", String(availableParallelism()),
  "--log-level", "warn",
];
if (nodeInclude) args.push(`--CDPPL_NODE_INCLUDE=${nodeInclude}`);
else console.warn("build: local Node headers not found; using the node-api-headers package");

const result = spawnSync(process.execPath, args, { stdio: "inherit", cwd: packageDir });
process.exit(result.status ?? 1);
