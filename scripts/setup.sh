#!/usr/bin/env bash
# Installs the system packages fpscout needs (LLVM/clang 19, Z3, GMP, MPFR) and its tests
# need (chromium, for the HTML report test) when missing.
set -euo pipefail
packages=(clang-19 llvm-19-dev libpolly-19-dev libz3-dev libgmp-dev libmpfr-dev libffi-dev chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi
command -v cargo >/dev/null || { echo "setup: cargo not found: install Rust (https://rustup.rs)" >&2; exit 1; }
