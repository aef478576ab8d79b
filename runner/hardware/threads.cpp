#include "runner/hardware/threads.hpp"

#include <ATen/Parallel.h>

#include "runner/hardware/blas.hpp"

namespace crossover {
namespace {

const ThreadCounts& defaults() {
  static const ThreadCounts captured = current_threads();
  return captured;
}

}  // namespace

ThreadCounts current_threads() {
  ThreadCounts counts;
  counts.intra_op = at::get_num_threads();
  counts.inter_op = at::get_num_interop_threads();
  counts.blas = blas_threads();
  return counts;
}

void apply_threads(int threads) {
  const ThreadCounts& original = defaults();
  if (threads <= 0) {
    at::set_num_threads(original.intra_op);  // also sets OpenMP's count
    if (original.blas > 0) set_blas_threads(original.blas);
    return;
  }
  at::set_num_threads(threads);
  set_blas_threads(threads);
}

}  // namespace crossover
