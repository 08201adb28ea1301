#!/usr/bin/env bash
# Interpreter vs native throughput on the cross-check corpus (release build).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then set -- tests/corpus/*.c; fi
exec cargo run --release -q -p fpscout --example throughput -- "$@"
