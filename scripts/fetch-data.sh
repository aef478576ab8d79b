#!/usr/bin/env bash
# Puts the real data sets into data/ (or $1) and verifies them. Iris and Boston housing come
# from Debian's python3-sklearn package, extracted with dpkg -x, never installed (no Python stack).
# Nothing here is committed: data/ is ignored by git.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
data=${1:-$top/data}
mkdir -p "$data"

# check FILE ROWS COLUMNS: data rows (after the header lines) and the columns of each row.
check() {
  local file=$1 rows=$2 columns=$3 skip=$4
  local got_rows got_columns
  got_rows=$(tail -n +"$((skip + 1))" "$file" | grep -c .)
  got_columns=$(tail -n +"$((skip + 1))" "$file" | awk -F, '{print NF}' | sort -u | tr '\n' ' ')
  if [[ $got_rows != "$rows" || $got_columns != "$columns " ]]; then
    echo "fetch-data.sh: $file: expected $rows rows of $columns columns, found $got_rows rows of $got_columns columns" >&2
    return 1
  fi
}

need_sklearn=0
[[ -f $data/iris.csv && -f $data/boston_house_prices.csv ]] || need_sklearn=1
if ((need_sklearn)); then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    # apt-get download writes into the current directory; _apt cannot write here, which is fine.
    apt-get download python3-sklearn >/dev/null 2>apt.log || {
      apt-get update -qq >/dev/null 2>&1 || true
      apt-get download python3-sklearn >/dev/null 2>apt.log
    } || { cat apt.log >&2; echo "fetch-data.sh: cannot download python3-sklearn" >&2; exit 1; }
    dpkg -x python3-sklearn_*.deb extracted
  )
  src=$(find "$work/extracted" -type d -path '*sklearn/datasets/data' | head -n 1)
  [[ -n $src ]] || { echo "fetch-data.sh: python3-sklearn has no sklearn/datasets/data" >&2; exit 1; }
  cp "$src/iris.csv" "$src/boston_house_prices.csv" "$data/"
fi

check "$data/iris.csv" 150 5 1
check "$data/boston_house_prices.csv" 506 14 2

cat >"$data/MANIFEST" <<MANIFEST
# Data sets fetched by scripts/fetch-data.sh ($(date -u +%Y-%m-%dT%H:%M:%SZ))
iris.csv                 150 rows x 4 features + class   Debian python3-sklearn   sha256 $(sha256sum "$data/iris.csv" | cut -c1-64)
boston_house_prices.csv  506 rows x 13 features + price  Debian python3-sklearn   sha256 $(sha256sum "$data/boston_house_prices.csv" | cut -c1-64)
MANIFEST
echo "fetch-data.sh: $data: iris.csv (150 x 4), boston_house_prices.csv (506 x 13) verified" >&2
