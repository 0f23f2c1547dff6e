#!/usr/bin/env bash
# Time to bulk ESS ≥ TARGET (docs/target-ess-benchmark.md) on the anchors, run on the GPU machine in
# one command: for each case, ours (bench/gpu-anchors.ts --target-ess: NUTS with 4 and with many
# chains, ChEES, MEADS) then NumPyro's NUTS with 4 vectorized chains (bench/numpyro_target.py), on
# the same data. Build here first: bash bench/build-gpu.sh && ../shared/tools/gpu-bundle, carry .gpu
# and .gpuout, then on that machine:
#   bash bench/gpu-target.sh [OUT] [SECONDS] [TARGET] [CASES]
# OUT defaults to $OUT; SECONDS (default 570) bounds the whole command: each program gets an equal
# share of what is left when it starts (a share it does not use passes on), so every output comes
# back; TARGET defaults to 1000; CASES to "8s lr many hier". Each case's runs of ours are
# RUNS_<case> (method:chains:warmup, defaults below); WARMUP, BLOCK and BLOCK_MANY below. Caches start empty: rep 0 builds the kernels
# and compiles JAX's sampler, rep 1 finds them cached.
# Tabulate afterwards with: npx tsx bench/target-table.ts OUT
set -u
out=${1:-${OUT:?give OUT}}
budget=${2:-570}
target=${3:-1000}
read -r -a cases <<< "${4:-8s lr many hier}"
# What both sides share, given to both from here: NUTS-4's warmup and its block of draws a chain
# (the many-chain runs' block is BLOCK_MANY; NumPyro runs 4 chains only).
WARMUP=${WARMUP:-1000}
BLOCK=${BLOCK:-100}
BLOCK_MANY=${BLOCK_MANY:-20}
RUNS_8s=${RUNS_8s:-nuts:4:$WARMUP,nuts:1024:500,chees:1024:500,chees:16384:500,meads:4096:500}
RUNS_lr=${RUNS_lr:-nuts:4:$WARMUP,nuts:1024:500,chees:1024:500,meads:1024:500}
RUNS_many=${RUNS_many:-nuts:4:$WARMUP,nuts:1024:500,chees:4096:500,meads:4096:500}
RUNS_hier=${RUNS_hier:-nuts:4:$WARMUP,nuts:256:500,chees:1024:500,meads:1024:500}
source .gpu/enter.sh
source .gpuout/env.sh
mkdir -p "$out"
rm -rf /tmp/ppl-target-cache /tmp/gl-target-cache /tmp/jax-target-cache
export PPL_CACHE_DIR=/tmp/ppl-target-cache __GL_SHADER_DISK_CACHE_PATH=/tmp/gl-target-cache
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > "$out/gpu.txt" 2>&1
python3 .gpuout/make_data.py /tmp/data > /dev/null
# The seconds left are shared by weight: ours one unit a run, NumPyro's NUMPYRO_UNITS (its one run
# is the slowest: 10-45 times ours in the anchors' record).
NUMPYRO_UNITS=${NUMPYRO_UNITS:-3}
runs_of() { local v="RUNS_$1"; echo "${!v}"; }
units_of() { echo $(($(tr -cd , <<< "$(runs_of "$1")" | wc -c) + 1)); }
units=0
for c in "${cases[@]}"; do units=$((units + $(units_of "$c") + NUMPYRO_UNITS)); done
# A program's share of the seconds left (at least 10), and the units it takes from the rest.
share() { local v=$(((budget - SECONDS) * $1 / units)); ((v < 10)) && v=10; echo "$v"; }
for c in "${cases[@]}"; do
  runs=$(runs_of "$c")
  # Each program's own budget is nine tenths of its share (its repetitions split what is left of it);
  # the share itself is the hard stop.
  u=$(units_of "$c"); s=$(share "$u"); units=$((units - u))
  timeout "$s" node .gpuout/gpu-anchors.mjs --data /tmp/data --cases "$c" --target-ess "$target" --runs "$runs" \
    --blocks "$BLOCK,$BLOCK_MANY" --reps 2 --budget-seconds $((s * 9 / 10)) > "$out/ours-$c.txt" 2>&1
  echo "ours $c: exit $? at ${SECONDS} s (share ${s} s)"
  s=$(share "$NUMPYRO_UNITS"); units=$((units - NUMPYRO_UNITS))
  PYTHONUNBUFFERED=1 timeout "$s" python3 bench/numpyro_target.py --target "$target" --block "$BLOCK" --warmup "$WARMUP" --reps 2 \
    --budget-seconds $((s * 9 / 10)) --jax-cache /tmp/jax-target-cache "$c" > "$out/numpyro-$c.txt" 2>&1
  echo "numpyro $c: exit $? at ${SECONDS} s (share ${s} s)"
done
