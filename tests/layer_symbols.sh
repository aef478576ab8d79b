#!/usr/bin/env bash
# The build's half of the layer rule (tests/test_layers.cpp reads the includes): every crossover
# symbol a layer's archive uses must be defined in that archive or in a layer below it. Given the
# archives from the bottom up (core, workloads, reports, runner, then the LibTorch halves), fails
# naming each symbol that a layer takes from one above it.
#   tests/layer_symbols.sh libcrossover_core.a libcrossover_workloads.a ...
set -euo pipefail
defined=$(mktemp)
trap 'rm -f "$defined" "$defined.new"' EXIT
status=0
for archive in "$@"; do
  # What this archive defines joins what the layers below define.
  nm --defined-only --format=posix "$archive" 2>/dev/null | awk 'NF >= 2 && $2 != "U" {print $1}' \
    >>"$defined"
  sort -u "$defined" -o "$defined"
  missing=$(nm --undefined-only --format=posix "$archive" 2>/dev/null | awk '{print $1}' |
            grep '9crossover' | sort -u | comm -23 - "$defined" || true)
  if [[ -n $missing ]]; then
    echo "$(basename "$archive") uses symbols of a layer above it:" >&2
    c++filt <<<"$missing" | sed 's/^/  /' >&2
    status=1
  fi
done
[[ $status -eq 0 ]] && echo "every layer's archive uses only its own symbols and those of the layers below ($# archives)"
exit $status
