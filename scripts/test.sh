#!/usr/bin/env bash
# Runs the whole test suite (installs missing system packages first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test --workspace "$@"
