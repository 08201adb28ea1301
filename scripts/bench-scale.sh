#!/usr/bin/env bash
# Issue I benchmark: diff on generated straight-line and loop functions of 100 to 10,000
# statements, per phase time and peak memory; then every bundled benchmark and the issue's
# examples with --time-budget 30, wall time next to the budget (release build).
# `--budget-only` prints the second table alone.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p fpscout --bins --examples
exec cargo run --release -q -p fpscout --example bench_scale -- "$@"
