#!/bin/sh
# A Slurm job array: task i runs chains i*PPL_CHAINS_PER_GROUP … of one run. Submit with the merge
# step depending on the whole array:
#
#   export PPL_SEED=20261201 PPL_SHARED=/shared/$USER/run1 PPL_CHAINS_PER_GROUP=4
#   job=$(sbatch --parsable --export=ALL examples/cluster/slurm-array.sh)
#   sbatch --dependency=afterok:$job --export=ALL examples/cluster/slurm-merge.sh
#
# 8 tasks × 4 chains = 32 chains; add `--gres=gpu:1` and PPL_ARGS="--backend vulkan" for a GPU each.
#SBATCH --job-name=ppl-chains
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --time=01:00:00
#SBATCH --output=ppl-chains-%A_%a.log
set -eu
# sbatch runs a copy of this script from its spool directory; the job starts in the submission directory.
exec sh examples/cluster/chain-group.sh "$SLURM_ARRAY_TASK_ID"
