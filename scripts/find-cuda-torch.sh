#!/usr/bin/env bash
# Whether this machine can measure its GPU: an NVIDIA GPU (`nvidia-smi -L`) and a CUDA LibTorch,
# looked for where docs/gpu.md puts one:
#   1. $LIBTORCH, taken as given (configuring against it says whether it has CUDA);
#   2. python3's torch when it was built with CUDA (torch.utils.cmake_prefix_path);
#   3. the official zip unpacked at ~/libtorch or /opt/libtorch (one with lib/libtorch_cuda.so).
# Exit 0: both found; prints the LibTorch's prefix (what CMAKE_PREFIX_PATH needs).
# Exit 1: no NVIDIA GPU; prints nothing.
# Exit 3: a GPU but no CUDA LibTorch; one line on stderr says what was looked for and the one
#         command that gets one.
#   PYTHON=CMD   the Python to ask for its torch (default python3)
set -uo pipefail

gpu=$(nvidia-smi -L 2>/dev/null | grep -m1 '^GPU') || exit 1

if [[ -n ${LIBTORCH:-} ]]; then
  echo "$LIBTORCH"
  exit 0
fi
python=${PYTHON:-python3}
# Prints the prefix only for a torch that has CUDA (torch.version.cuda is None in a CPU wheel).
prefix=$("$python" -c 'import torch, torch.utils
assert torch.version.cuda
print(torch.utils.cmake_prefix_path)' 2>/dev/null) && [[ -n $prefix ]] && {
  echo "$prefix"
  exit 0
}
for dir in "${HOME:-/root}/libtorch" /opt/libtorch; do
  if [[ -f $dir/lib/libtorch_cuda.so ]]; then
    echo "$dir"
    exit 0
  fi
done
echo "crossover: ${gpu%% (*} is here but no CUDA LibTorch (looked at \$LIBTORCH, $python's torch," \
  "~/libtorch and /opt/libtorch), so the GPU is predicted, not measured; get one with:" \
  "$python -m pip install torch   (then run this again; docs/gpu.md has the zip)" >&2
exit 3
