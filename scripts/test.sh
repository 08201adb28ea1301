#!/usr/bin/env bash
# Runs the whole test suite (installs missing system packages first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test --workspace "$@"
# The Slurm scripts on a real single-node cluster (about a minute): run where we are root
# (CI is), since only there can the test start munged, slurmctld and slurmd. It keeps
# its daemons' state in a temporary folder and stops them on exit; the timeout bounds it.
# FPSCOUT_SKIP_SLURM=1 skips it.
if [ "$(id -u)" = 0 ] && [ "${FPSCOUT_SKIP_SLURM:-0}" != 1 ]; then
  cargo build -q -p fpscout
  timeout 600 scripts/test-slurm.sh
fi
