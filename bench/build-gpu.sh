#!/usr/bin/env bash
# Bundles the benchmark programs into single ES modules under .gpuout/ (with the addon and the
# shaders beside them) for the GPU machine, which has node but no node_modules.
#   bash bench/build-gpu.sh && ../shared/tools/gpu-bundle
#   then on that machine: source .gpu/enter.sh; bash .gpuout/run.sh ...
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpuout && mkdir -p .gpuout/addon
for prog in gpu-anchors pipeline-compile pipeline-stats gpu-conformance gpu-diagnose posteriordb-gpu vulkan-micro vulkan-variants kernel-edits hier-one-dispatch layer-methods-gpu posteriordb-layer stan-vs-twin stan-posteriordb-cli approximations-gpu; do
  [ -f "bench/$prog.ts" ] || continue
  npx esbuild "bench/$prog.ts" --bundle --platform=node --format=esm --target=node20 \
    --outfile=".gpuout/$prog.mjs" --log-level=warning --external:h5wasm \
    --banner:js="import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);"
done
# The CPU sampler's worker threads start from chain-worker.js beside the bundle that imports the
# pool (threads/worker-script.ts); .js files here are ES modules.
npx esbuild packages/ppl/src/sampler/threads/chain-worker.ts --bundle --platform=node --format=esm --target=node20 \
  --outfile=.gpuout/chain-worker.js --log-level=warning \
  --banner:js="import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);"
# The CLI (ppl sample, ppl summary) for runs through the command on the GPU, e.g. many-chain ChEES:
#   node .gpuout/cli/ppl.mjs sample .gpuout/eight_schools.stan --data .gpuout/eight_schools.json ...
# It reads ../package.json for its version, so it lies one folder down, with the chain worker beside
# it. typescript (ppl check) is bundled in; esbuild, which bundles a .ts model, is not: the GPU
# machine has no node_modules, so models go there as Stan programs (compiled by the bundle itself).
npx esbuild packages/cli/src/main.ts --bundle --platform=node --format=esm --target=node20 \
  --outfile=.gpuout/cli/ppl.mjs --log-level=warning --external:esbuild --external:h5wasm \
  --banner:js="import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);"
cp .gpuout/chain-worker.js .gpuout/cli/
cp examples/stan/eight_schools.stan examples/eight_schools.json .gpuout/
node -e 'const v = require("./packages/cli/package.json").version; console.log(JSON.stringify({ type: "module", version: v }))' > .gpuout/package.json
cp packages/vulkan/build/Release/ppl_vulkan.node .gpuout/addon/
cp -r shaders .gpuout/shaders
cp ../shared/anchors/make_data.py .gpuout/
# The reference posteriors' data and summaries (not the reference draws) for posteriordb-gpu.
for d in ../shared/posteriordb/*/; do
  n=$(basename "$d"); mkdir -p ".gpuout/posteriordb/$n"; cp "$d/data.json" "$d/reference.json" ".gpuout/posteriordb/$n/"
  # Their Stan programs, for ppl sample model.stan and stan-vs-twin (--root .gpuout).
  cp "$d/model.stan" ".gpuout/posteriordb/$n/"
done
for d in ../shared/posteriordb-ode/*/; do
  n=$(basename "$d"); mkdir -p ".gpuout/posteriordb-ode/$n"; cp "$d/data.json" "$d/reference.json" "$d/model.stan" ".gpuout/posteriordb-ode/$n/"
done
mkdir -p .gpuout/stan && cp bench/stan/*.stan .gpuout/stan/
cat > .gpuout/env.sh <<'EOS'
# source after .gpu/enter.sh: points the bundled programs at the addon and the shaders.
export PPL_VULKAN_ADDON=$PWD/.gpuout/addon/ppl_vulkan.node PPL_SHADERS_DIR=$PWD/.gpuout/shaders PPL_CACHE_DIR=/tmp/ppl-cache
EOS
du -sh .gpuout
