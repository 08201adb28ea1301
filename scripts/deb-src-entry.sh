#!/usr/bin/env bash
# Prints a deb-src entry (deb822) mirroring the machine's first `deb` source: same
# URIs, suite and keyring, so `apt-get source` fetches from the mirror apt already uses.
# Usage: scripts/deb-src-entry.sh [APT_ETC]   (default /etc/apt)
set -euo pipefail
etc="${1:-/etc/apt}"

# deb822 stanzas first (Debian 12's debian.sources), then one-line sources.list.
entry=$({ cat "$etc"/sources.list.d/*.sources 2>/dev/null || true; } | awk '
  function flush() {
    if (types ~ /(^| )deb( |$)/ && uris != "" && !done) {
      split(suites, s, " ")
      printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n", uris, s[1], comps
      if (signed != "") printf "Signed-By: %s\n", signed
      done = 1
    }
    types = uris = suites = comps = signed = ""
  }
  /^[ \t]*#/ { next }
  /^[ \t]*$/ { flush(); next }
  /^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
  /^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
  /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
  /^Components:/ { sub(/^Components:[ \t]*/, ""); comps = $0 }
  /^Signed-By:/ { sub(/^Signed-By:[ \t]*/, ""); signed = $0 }
  END { flush() }')
if [ -z "$entry" ] && [ -f "$etc/sources.list" ]; then
  # deb [options] URI SUITE COMPONENT...
  entry=$(awk '$1 == "deb" {
      i = 2; opts = ""
      if ($2 ~ /^\[/) { while ($i !~ /\]$/) { opts = opts " " $i; i++ } opts = opts " " $i; i++ }
      signed = ""
      if (match(opts, /signed-by=[^] ]+/)) signed = substr(opts, RSTART + 10, RLENGTH - 10)
      comps = $(i + 2); for (j = i + 3; j <= NF; j++) comps = comps " " $j
      printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n", $i, $(i + 1), comps
      if (signed != "") printf "Signed-By: %s\n", signed
      exit }' "$etc/sources.list")
fi
[ -n "$entry" ] || { echo "deb-src-entry: no deb source in $etc to mirror" >&2; exit 1; }
printf '%s\n' "$entry"
