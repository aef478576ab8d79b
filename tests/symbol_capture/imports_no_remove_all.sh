#!/usr/bin/env bash
# Checks that no program imports std::filesystem::remove_all: LibTorch 2.x's libtorch.so exports a
# copy of it, and a call bound there crashed (a segfault inside LibTorch, seen on an H100 machine
# where the link did not put libstdc++ first). Folders are removed with
# remove_tree (core/files/user_files.hpp). Usage: imports_no_remove_all.sh PROGRAM...
set -euo pipefail
status=0
for program in "$@"; do
  if nm -D --undefined-only "$program" | grep -q '_ZNSt10filesystem.*remove_all'; then
    echo "$program imports std::filesystem::remove_all; use remove_tree" >&2
    status=1
  else
    echo "$program: no std::filesystem::remove_all"
  fi
done
exit $status
