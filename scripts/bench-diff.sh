#!/usr/bin/env bash
# Issue B benchmark: the seed's table for the FPBench benchmarks and the odometer, next to
# a random-only run with the same wall time. Optional arguments: benchmark names to run.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p fpscout --example bench_diff -- bench/diff "$@"
