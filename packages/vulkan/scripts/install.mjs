// Runs when the package is installed: builds the native addon (scripts/build.mjs: cmake-js, a C++
// compiler and the Vulkan headers) where that toolchain exists. Without it, or when the build
// fails, the install still succeeds with a note: the addon is needed for the Vulkan backend only,
// and everything else (the CPU backend above all) works without it; `listDevices` says why.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const has = (command) => spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;
const missing = ["cmake", "c++"].filter((c) => !has(c));
if (missing.length > 0) {
  console.warn(`@ppl/vulkan: not building the Vulkan addon (${missing.join(" and ")} not found); the CPU backend works without it`);
  process.exit(0);
}
const result = spawnSync(process.execPath, [join(packageDir, "scripts", "build.mjs")], { stdio: "inherit", cwd: packageDir });
if (result.status !== 0) {
  console.warn("@ppl/vulkan: the Vulkan addon did not build (see above; it needs the Vulkan headers, e.g. libvulkan-dev); the CPU backend works without it");
}
