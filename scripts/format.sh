#!/usr/bin/env bash
# The repository's .clang-format over every C++ and CUDA source git knows (vendored and generated
# files have none here). scripts/test.sh --full (CI) runs the check; a change is formatted with
# the same clang-format Debian ships (14), as other versions break lines differently.
#   scripts/format.sh           formats the files in place
#   scripts/format.sh --check   changes nothing; lists each place that differs, exits 1 if any
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
command -v clang-format >/dev/null ||
  { echo "clang-format is needed (apt-get install clang-format; scripts/setup.sh)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu')
if [[ ${1:-} == --check ]]; then
  if ! out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1); then
    grep -E "error:" <<<"$out" | head -40 >&2
    echo "$(grep -c "error:" <<<"$out") place(s) differ from .clang-format: scripts/format.sh" \
      "formats them" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files as .clang-format has them"
else
  clang-format -i "${files[@]}"
fi
