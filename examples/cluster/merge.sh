#!/bin/sh
# The merge step: every group's directory under $PPL_SHARED into $PPL_SHARED/merged (chain files
# copied, summary.json written), after `ppl merge` has checked that the groups are one run; then the
# summary of all chains. Run it once every task has finished (Slurm: --dependency=afterok; Kubernetes:
# after `kubectl wait --for=condition=complete`).
set -eu
: "${PPL_SHARED:?merge.sh: set PPL_SHARED to the directory the chain groups wrote into}"
set -- "$PPL_SHARED"/group-*
if [ ! -d "$1" ]; then
  echo "merge.sh: no group-* directories in '$PPL_SHARED'; did the chain groups run and write there?" >&2
  exit 2
fi
ppl merge "$@" -o "$PPL_SHARED/merged"
exec ppl summary "$PPL_SHARED/merged"
