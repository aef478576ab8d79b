#!/usr/bin/env bash
# Puts the real data sets into data/ (or the directory given) and verifies them.
#   - Iris and Boston housing: from Debian's python3-sklearn package, extracted (never installed).
#   - Fashion-MNIST: from Debian's dataset-fashion-mnist package, extracted (never installed).
#   - MNIST and CIFAR-10 (binary version): only with --download, from their canonical public
#     locations, checked against published checksums. Without it, or offline, the script says
#     what it skipped and how to get it; crossover then uses synthetic data of the same shape.
# Nothing here is committed: data/ is ignored by git. A MANIFEST lists what is there.
set -euo pipefail

usage() { echo "usage: scripts/fetch-data.sh [--download] [DIR]" >&2; exit 2; }
download=0
data=""
for arg in "$@"; do
  case $arg in
    --download) download=1 ;;
    -h|--help) usage ;;
    -*) echo "fetch-data.sh: unknown option $arg" >&2; usage ;;
    *) data=$arg ;;
  esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
data=${data:-$top/data}
mkdir -p "$data"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

say() { echo "fetch-data.sh: $*" >&2; }

# extract PACKAGE: downloads a Debian package into $work and unpacks it to $work/PACKAGE.
extract() {
  local package=$1
  (
    cd "$work"
    # apt-get download writes into the current directory as root; _apt's sandbox warning is harmless.
    apt-get download "$package" >/dev/null 2>apt.log || {
      apt-get update -qq >/dev/null 2>&1 || true
      apt-get download "$package" >/dev/null 2>apt.log
    } || { cat apt.log >&2; say "cannot download the Debian package $package"; exit 1; }
    dpkg -x "$package"_*.deb "$package"
  )
}

# check_csv FILE ROWS COLUMNS HEADER_LINES
check_csv() {
  local file=$1 rows=$2 columns=$3 skip=$4 got_rows got_columns
  got_rows=$(tail -n +"$((skip + 1))" "$file" | grep -c .)
  got_columns=$(tail -n +"$((skip + 1))" "$file" | awk -F, '{print NF}' | sort -u | tr '\n' ' ')
  if [[ $got_rows != "$rows" || $got_columns != "$columns " ]]; then
    say "$file: expected $rows rows of $columns columns, found $got_rows rows of $got_columns columns"
    return 1
  fi
}

# check_idx FILE MAGIC COUNT: an IDX file (raw or gzip) with this magic number and item count.
check_idx() {
  local file=$1 magic=$2 count=$3 header
  header=$( (zcat -f "$file" 2>/dev/null || true) | head -c 8 | od -An -tx1 | tr -d ' \n')
  if [[ ${header:0:8} != "$magic" || $((16#${header:8:8})) != "$count" ]]; then
    say "$file: expected IDX magic $magic with $count items, found header $header"
    return 1
  fi
}

# fetch URL DEST MD5: downloads with a short timeout and checks the MD5.
fetch() {
  local url=$1 dest=$2 md5=$3
  curl -fsSL --connect-timeout 10 --max-time 600 -o "$dest.part" "$url" || return 1
  if [[ $(md5sum "$dest.part" | cut -c1-32) != "$md5" ]]; then
    say "$url: checksum mismatch (expected md5 $md5); file discarded"
    rm -f "$dest.part"
    return 1
  fi
  mv "$dest.part" "$dest"
}

# Iris and Boston.
if [[ ! -f $data/iris.csv || ! -f $data/boston_house_prices.csv ]]; then
  extract python3-sklearn
  src=$(find "$work/python3-sklearn" -type d -path '*sklearn/datasets/data' | head -n 1)
  [[ -n $src ]] || { say "python3-sklearn has no sklearn/datasets/data"; exit 1; }
  cp "$src/iris.csv" "$src/boston_house_prices.csv" "$data/"
fi
check_csv "$data/iris.csv" 150 5 1
check_csv "$data/boston_house_prices.csv" 506 14 2

# Fashion-MNIST.
fashion=$data/fashion-mnist
if [[ ! -f $fashion/t10k-labels-idx1-ubyte.gz ]]; then
  extract dataset-fashion-mnist
  mkdir -p "$fashion"
  cp "$work"/dataset-fashion-mnist/usr/share/datasets/fashion-mnist/*-ubyte.gz "$fashion/"
fi
check_idx "$fashion/train-images-idx3-ubyte.gz" 00000803 60000
check_idx "$fashion/train-labels-idx1-ubyte.gz" 00000801 60000
check_idx "$fashion/t10k-images-idx3-ubyte.gz" 00000803 10000
check_idx "$fashion/t10k-labels-idx1-ubyte.gz" 00000801 10000

# MNIST (MD5s as published with torchvision's MNIST).
mnist=$data/mnist
declare -A mnist_md5=(
  [train-images-idx3-ubyte.gz]=f68b3c2dcbeaaa9fbdd348bbdeb94873
  [train-labels-idx1-ubyte.gz]=d53e105ee54ea40749a09fcbcd1e9432
  [t10k-images-idx3-ubyte.gz]=9fb629c4189551a2d022fa330f9573f3
  [t10k-labels-idx1-ubyte.gz]=ec29112dd5afa0611ce80d1b7f02629c
)
mnist_state="present"
for f in "${!mnist_md5[@]}"; do
  [[ -f $mnist/$f ]] && continue
  if ((download)); then
    mkdir -p "$mnist"
    if ! fetch "https://ossci-datasets.s3.amazonaws.com/mnist/$f" "$mnist/$f" "${mnist_md5[$f]}" &&
       ! fetch "http://yann.lecun.com/exdb/mnist/$f" "$mnist/$f" "${mnist_md5[$f]}"; then
      mnist_state="download failed"
    fi
  else
    mnist_state="skipped"
  fi
done
if [[ $mnist_state == present ]]; then
  check_idx "$mnist/train-images-idx3-ubyte.gz" 00000803 60000
  check_idx "$mnist/t10k-images-idx3-ubyte.gz" 00000803 10000
else
  say "MNIST $mnist_state: run scripts/fetch-data.sh --download where the network allows, or put the four" \
      "IDX files (train/t10k images/labels, raw or .gz) into $mnist/; until then mnist cells use synthetic data"
fi

# CIFAR-10, binary version (MD5 of cifar-10-binary.tar.gz as published with the data set).
cifar=$data/cifar-10-batches-bin
cifar_state="present"
if [[ ! -f $cifar/test_batch.bin ]]; then
  cifar_state="skipped"
  if ((download)); then
    cifar_state="download failed"
    if fetch "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz" "$work/cifar.tar.gz" \
         c32a1d4ab5d03f1284b67883e8d87530; then
      tar -xzf "$work/cifar.tar.gz" -C "$data" && cifar_state="present"
    fi
  fi
fi
if [[ $cifar_state == present ]]; then
  for f in data_batch_1 data_batch_2 data_batch_3 data_batch_4 data_batch_5 test_batch; do
    size=$(stat -c %s "$cifar/$f.bin" 2>/dev/null || echo 0)
    [[ $size == 30730000 ]] || { say "$cifar/$f.bin: expected 30730000 bytes, found $size"; exit 1; }
  done
else
  say "CIFAR-10 $cifar_state: run scripts/fetch-data.sh --download where the network allows, or unpack" \
      "cifar-10-binary.tar.gz into $data/; until then cifar10 cells use synthetic data"
fi

{
  echo "# Data sets fetched by scripts/fetch-data.sh ($(date -u +%Y-%m-%dT%H:%M:%SZ)); sha256 of each file"
  (cd "$data" && find . -type f ! -name MANIFEST | sort | xargs sha256sum)
} >"$data/MANIFEST"
say "$data: iris.csv (150 x 4), boston_house_prices.csv (506 x 13), fashion-mnist (60000 + 10000) verified;" \
    "mnist $mnist_state; cifar-10 $cifar_state"
