#!/bin/sh
# One chain group of a run split over a batch engine's tasks: the task's index (Slurm's
# SLURM_ARRAY_TASK_ID, Kubernetes' JOB_COMPLETION_INDEX, or the first argument) picks chains
# INDEX*PPL_CHAINS_PER_GROUP … (INDEX+1)*PPL_CHAINS_PER_GROUP-1, written to $PPL_SHARED/group-INDEX.
# Every group must use the same seed, model, data and settings: `ppl merge` refuses anything else.
#
#   PPL_MODEL             model file (default examples/eight_schools.ts)
#   PPL_DATA              data file (default examples/eight_schools.json; "" for none)
#   PPL_SEED              the run's seed, the same in every task (required)
#   PPL_CHAINS_PER_GROUP  chains per task (default 4)
#   PPL_SHARED            shared storage that every task and the merge step see (required)
#   PPL_ARGS              further `ppl sample` options, e.g. "--backend vulkan --warmup 1000"
set -eu

# The task index → the group's first chain. Separate so that it can be tested alone
# (`chain-group.sh --first-chain-of INDEX`).
first_chain() {
  case "$1" in
    ''|*[!0-9]*) echo "chain-group.sh: the task index '$1' is not a non-negative integer; run under a Slurm array or a Kubernetes Indexed Job, or pass the index as the first argument" >&2; exit 2 ;;
  esac
  echo $(( $1 * ${PPL_CHAINS_PER_GROUP:-4} ))
}

if [ "${1:-}" = "--first-chain-of" ]; then
  first_chain "${2:-}"
  exit 0
fi

index="${1:-${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:-}}}"
: "${PPL_SEED:?chain-group.sh: set PPL_SEED to the run's seed, the same in every task (a random seed per task would make groups that cannot be merged)}"
: "${PPL_SHARED:?chain-group.sh: set PPL_SHARED to a directory on storage that every task and the merge step see}"
first=$(first_chain "$index")
model="${PPL_MODEL:-examples/eight_schools.ts}"
data="${PPL_DATA-examples/eight_schools.json}"

set -- sample "$model" --chains "${PPL_CHAINS_PER_GROUP:-4}" --first-chain "$first" --seed "$PPL_SEED" --output "$PPL_SHARED/group-$index" --quiet
if [ -n "$data" ]; then set -- "$@" --data "$data"; fi
# PPL_ARGS is split on spaces on purpose: it holds several options.
# shellcheck disable=SC2086
exec ppl "$@" ${PPL_ARGS:-}
