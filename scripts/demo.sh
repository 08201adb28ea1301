#!/usr/bin/env bash
# Sets everything up, builds fpscout and runs it on the bundled summation example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release -q
./target/release/fpscout run examples/sum.c --function sum \
  --args "[1e308,1e308,-1e308,-1e308,1,2,3,4,5],9"
