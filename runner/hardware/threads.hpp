#pragma once
// The `threads` axis. One number must bound every pool that does the work: LibTorch's intra-op
// threads, OpenMP, and the BLAS library's own threads (torch::set_num_threads alone leaves
// OpenBLAS on all cores). 0 restores the libraries' defaults as found at start-up.

namespace crossover {

/// The thread counts in force.
struct ThreadCounts {
  int intra_op = 0;  ///< at::get_num_threads()
  int inter_op = 0;  ///< at::get_num_interop_threads()
  int blas = 0;      ///< the BLAS library's own, 0 when it cannot be asked
};

/// What is in force now.
ThreadCounts current_threads();

/// Applies a cell's `threads` value (0 = the defaults captured on the first call).
void apply_threads(int threads);

}  // namespace crossover
