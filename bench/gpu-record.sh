#!/usr/bin/env bash
# The record command of bench/RESULTS.md, run on the GPU machine in one command: the four anchor
# cases ours (reps 2) then NumPyro's on the same data, then the posteriordb suite cold (empty
# kernel and driver caches) and warm. Build here first: bash bench/build-gpu.sh && ../shared/tools/gpu-bundle,
# carry .gpu and .gpuout, then on that machine: bash bench/gpu-record.sh [OUT] [SECONDS]
# Each program's output goes to OUT (default $OUT); SECONDS (default 600) bounds the whole command:
# the posteriordb passes get what the anchors leave, so their output always comes back.
# Tabulate afterwards with: npx tsx bench/record-table.ts OUT
set -u
out=${1:-${OUT:?give OUT}}
budget=${2:-600}
source .gpu/enter.sh
source .gpuout/env.sh
left() { local v=$((budget - $1 - SECONDS)); ((v < 1)) && v=1; echo "$v"; }
mkdir -p "$out"
rm -rf /tmp/ppl-record-cache /tmp/gl-record-cache  # so that the first pass is cold
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > "$out/gpu.txt" 2>&1
python3 .gpuout/make_data.py /tmp/data > /dev/null
node .gpuout/gpu-anchors.mjs --data /tmp/data --reps 2 --cases 8s,lr,many,hier > "$out/ours.txt" 2>&1
echo "ours: exit $? at ${SECONDS} s"
PYTHONUNBUFFERED=1 python3 .gpu/anchors/numpyro_bench.py 8s lr many hier > "$out/numpyro.txt" 2>&1
echo "numpyro: exit $? at ${SECONDS} s"
for pass in cold warm; do
  reserve=$([ "$pass" = cold ] && echo 25 || echo 10)
  PPL_CACHE_DIR=/tmp/ppl-record-cache __GL_SHADER_DISK_CACHE_PATH=/tmp/gl-record-cache timeout "$(left "$reserve")" \
    node .gpuout/posteriordb-gpu.mjs --posteriordb .gpuout/posteriordb > "$out/posteriordb-$pass.txt" 2>&1
  echo "posteriordb $pass: exit $? at ${SECONDS} s"
done
