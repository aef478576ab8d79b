#!/usr/bin/env bash
# Checks where the dynamic linker binds each program's calls to the C++ standard library: every one
# must go to libstdc++ (or to the program itself, where libstdc++ is linked statically), never to
# another library. LibTorch 2.x's libtorch.so exports copies of std::filesystem and more; a call
# bound there crashed crossover on an H100 machine. The program is loaded with every symbol bound at
# once (LD_BIND_NOW) and the loader's own record of its bindings (LD_DEBUG=bindings) is read, so
# this checks the outcome, whatever the link order or the libstdc++ flavour.
# Usage: std_bindings.sh PROGRAM...   (each is started with --help and its output ignored)
set -euo pipefail
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Mangled names of entities in namespace std, also the vtables, typeinfo and guard variables of
# them: St is std::, Sa/Sb/Ss/Si/So/Sd its abbreviations (allocator, basic_string, string, ...).
std_symbol='^_Z(T[VIST]|TT|GV|TH|TW)?(N[rVKRO]*)?S[tabsiod]'

status=0
for program in "$@"; do
  rm -f "$scratch"/bindings.*
  (LD_BIND_NOW=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$scratch/bindings" \
     "$program" --help >/dev/null 2>&1) 2>/dev/null || true
  # "binding file PROGRAM [0] to LIBRARY [0]: normal symbol `NAME' [VERSION]"
  own=$(cat "$scratch"/bindings.* 2>/dev/null |
        awk -v program="$program" '$2 == "binding" && $4 == program {
          name = $0; sub(/^[^`]*`/, "", name); sub(/'"'"'.*$/, "", name); print $7, name }')
  if [[ -z $own ]]; then
    echo "$program: the loader recorded no binding of it (did it start?)" >&2
    status=1
    continue
  fi
  captured=$(awk -v pattern="$std_symbol" -v program="$program" \
               '$2 ~ pattern && $1 != program && $1 !~ /\/libstdc\+\+\.so[^\/]*$/' <<<"$own")
  if [[ -n $captured ]]; then
    echo "$program: standard library symbols bound outside libstdc++:" >&2
    while read -r library name; do
      echo "  $(c++filt <<<"$name")  ->  $library" >&2
    done <<<"$captured"
    status=1
  else
    echo "$program: $(grep -c . <<<"$own") bindings, every standard library one to libstdc++" \
         "or the program"
  fi
done
exit $status
