#!/usr/bin/env bash
# Lists the functions outside tests longer than 80 lines, the house's limit for a function that
# reads as one thing. Universal Ctags finds each function's first and last line (well under a
# second for every unit; clang-tidy's readability-function-size, which it replaced, took 5 min 40 s
# of both cores); the lines are counted as clang-tidy counts them, from the line of the body's
# opening brace to the line of its closing one, and on the units compared both gave the same
# counts. A lambda counts in the function that holds it. Exits 1 when a function is over, 2 when a
# unit cannot be read. scripts/test.sh --full (CI) runs it.
#   scripts/function-sizes.sh [FILE...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
limit=${FUNCTION_LINES:-80}
command -v ctags >/dev/null && ctags --version | grep -q "Universal Ctags" ||
  { echo "Universal Ctags is needed (apt-get install universal-ctags; scripts/setup.sh)" >&2; exit 2; }
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  mapfile -t files < <(find core reports runner workloads -name '*.cpp' | sort | grep -v cuda_seam)
fi
for f in "${files[@]}"; do
  [[ -f $f && -r $f ]] || { echo "cannot read $f" >&2; exit 2; }
done
# "START END FILE NAME" per function definition; ctags names a lambda or an unnamed struct
# __anon..., which is part of its function, as clang-tidy counts it.
found=$(ctags -x --_xformat='%{line} %{end} %{input} %{name}' --kinds-C++=f --language-force=C++ \
  "${files[@]}" | awk -v limit="$limit" '
  $4 ~ /^__anon/ { next }
  {
    start = $1; end = $2; file = $3; name = $4
    if (!(file in read)) {
      read[file] = 1; n = 0
      while ((getline line < file) > 0) text[file, ++n] = line
      close(file)
    }
    # The body opens on the first line, from the signature on, that ends with "{" (comments
    # dropped) or is the body "{ ... }" on one line.
    brace = start
    for (i = start; i <= end; i++) {
      l = text[file, i]; sub(/\/\/.*$/, "", l); sub(/[ \t]+$/, "", l)
      if (l ~ /\{$/ || l ~ /^[ \t]*\{/ || l ~ /\)[ a-z]*\{.*\}$/) { brace = i; break }
    }
    if (end - brace > limit)
      printf "%s:%d: function %s is %d lines (limit %d)\n", file, brace, name, end - brace, limit
  }')
if [[ -n $found ]]; then
  echo "$found"
  echo "$(wc -l <<<"$found") function(s) over $limit lines in ${#files[@]} units"
  exit 1
fi
echo "no function over $limit lines in ${#files[@]} units"
