#!/usr/bin/env bash
# Sets everything up, builds fpscout and runs it on the bundled summation example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# `cargo run` finds the binary wherever CARGO_TARGET_DIR puts it.
cargo run --release -q -p fpscout -- run examples/sum.c --function sum \
  --args "[1e308,1e308,-1e308,-1e308,1,2,3,4,5],9"
