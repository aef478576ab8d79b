#!/usr/bin/env bash
# crossover against the seeds' own Python loops on the same LibTorch build, side by side in one
# run: configs/optimizers-cpu.json (Iris full batch; Linear(784, 10) at batch 128 with the
# DataLoader and with the tensor loader; loop, foreach and flat optimisers) and bench/python_baseline.py
# (the seeds' loops in PyTorch, Debian's python3-torch, installed when missing). Prints each case's
# median epoch and crossover's as a fraction of the seed's (for Linear(784, 10): its DataLoader loop).
#   scripts/python-baseline.sh [OUT]      (default runs/python-baseline-<timestamp>)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${1:-runs/python-baseline-$(date +%Y%m%d-%H%M%S)}
# Debian's Python, where python3-torch installs (not a python3 of pyenv or a virtual environment).
python=${PYTHON:-/usr/bin/python3}
if ! "$python" -c 'import torch' 2>/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch >/dev/null
fi
scripts/setup.sh
scripts/build.sh crossover >/dev/null
scripts/fetch-data.sh >/dev/null
mkdir -p "$out"
"$python" bench/python_baseline.py data >"$out/python.jsonl"
./build/crossover run configs/optimizers-cpu.json --out "$out/crossover" --data-dir data -q \
  --compare optimizer_impl=loop:flat >/dev/null
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
python = {json.loads(l)["case"]: json.loads(l) for l in open(f"{out}/python.jsonl")}
ours = {}
for line in open(f"{out}/crossover/results.jsonl"):
    r = json.loads(line)
    if r["status"] != "ok":
        continue
    case = r["workload"] + (" " + r["loader"] if r["workload"] == "mnist_linear" else "")
    ours[(case, r["optimizer_impl"])] = r["epoch_seconds"]
torch_version = next(iter(python.values()))["torch"]
# Each crossover case against the seed's own loop: for Linear(784, 10), the DataLoader one.
reference = {"iris_mlp": "iris_mlp", "mnist_linear dataloader": "mnist_linear dataloader",
             "mnist_linear tensor": "mnist_linear dataloader"}
print(f"median epoch, one thread; Python: PyTorch {torch_version} with its default optimiser")
impls = ["loop", "foreach", "flat"]
print(f"{'crossover case':26} {'the seed':>10} " + " ".join(f"{i:>10}" for i in impls) + " " +
      " ".join(f"{i + '/seed':>12}" for i in impls))
for case, seed_case in reference.items():
    p = python[seed_case]["epoch_seconds"]
    times = [ours.get((case, i)) for i in impls]
    cells = [f"{p * 1e3:8.3f}ms"]
    cells += [f"{t * 1e3:8.3f}ms" if t else f"{'-':>10}" for t in times]
    cells += [f"{t / p:12.3f}" if t else f"{'-':>12}" for t in times]
    print(f"{case:26} " + " ".join(cells))
same = python["mnist_linear tensor"]["epoch_seconds"]
print(f"(the seed's loop for Linear(784, 10) is its DataLoader one; the same loop over one tensor "
      f"takes {same * 1e3:.3f} ms in Python)")
print(f"(results: {out}/python.jsonl and {out}/crossover/)")
PY
