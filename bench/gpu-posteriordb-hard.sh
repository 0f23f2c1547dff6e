#!/usr/bin/env bash
# On the GPU machine (after `source .gpu/enter.sh; source .gpuout/env.sh`): times gp_pois_regr in
# each execution shape on a short run, then runs it in full in the fastest, then diamonds.
#   bash bench/gpu-posteriordb-hard.sh OUTDIR
set -uo pipefail
out=${1:-/tmp}
P="node .gpuout/posteriordb-gpu.mjs --posteriordb .gpuout/posteriordb"
best="" bestRate=0
for s in thread workgroup device; do
  timeout 50 $P --warmup 100 --draws 50 --shape $s gp_pois_regr-gp_pois_regr > "$out/gp-probe-$s.txt" 2>&1
  line=$(grep -E '^(pass|FAIL) ' "$out/gp-probe-$s.txt")
  echo "probe $s: ${line:-did not finish in 50 s}"
  rate=$(echo "$line" | sed -nE 's/.*\(([0-9]+)\/s in the sampler\).*/\1/p')
  if [ -n "$rate" ] && [ "$rate" -gt "$bestRate" ]; then best=$s bestRate=$rate; fi
done
echo "gp: full run in the $best shape"
timeout 230 $P --shape "${best:-workgroup}" gp_pois_regr-gp_pois_regr > "$out/gp.txt" 2>&1; echo "exit $?"
grep -vE '^\|' "$out/gp.txt" | tail -8
timeout 150 $P diamonds-diamonds > "$out/diamonds.txt" 2>&1; echo "exit $?"
grep -vE '^\|' "$out/diamonds.txt" | tail -8
