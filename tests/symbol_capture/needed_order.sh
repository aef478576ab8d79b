#!/usr/bin/env bash
# Checks that each program names libstdc++ before any LibTorch library in its dynamic section, so
# that the dynamic linker binds its standard library calls to libstdc++, not to the copies that
# LibTorch 2.x's libtorch.so exports. Usage: needed_order.sh PROGRAM...
set -euo pipefail
status=0
for program in "$@"; do
  needed=$(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  std=$(grep -n '^libstdc++' <<<"$needed" | head -1 | cut -d: -f1)
  torch=$(grep -nE '^lib(torch|c10)' <<<"$needed" | head -1 | cut -d: -f1)
  if [[ -z $std || -z $torch ]]; then
    echo "$program: NEEDED lacks libstdc++ or LibTorch:" $needed >&2
    status=1
  elif ((std > torch)); then
    echo "$program: libstdc++ (entry $std) comes after LibTorch (entry $torch):" $needed >&2
    status=1
  else
    echo "$program: libstdc++ is entry $std, LibTorch's first is entry $torch"
  fi
done
exit $status
