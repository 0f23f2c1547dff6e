#!/bin/sh
# The merge step of slurm-array.sh, submitted with --dependency=afterok on the array job.
#SBATCH --job-name=ppl-merge
#SBATCH --cpus-per-task=1
#SBATCH --time=00:10:00
#SBATCH --output=ppl-merge-%j.log
set -eu
exec sh examples/cluster/merge.sh
