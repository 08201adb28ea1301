#!/usr/bin/env bash
# Issue J benchmark: diff's recall against exhaustive enumeration of every float input, for
# the one-parameter functions of bench/recall/floats.c (release build; oracles are cached
# in the target directory). Arguments: function names to run (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p fpscout --example bench_recall -- "$@"
