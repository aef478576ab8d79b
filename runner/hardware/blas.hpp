#pragma once
// Which BLAS library this process really calls, and its thread count. Debian's LibTorch links
// the generic libblas.so.3, which is the slow reference BLAS unless OpenBLAS is installed; a CPU
// timed on the reference BLAS is about 40x too slow, so every report must say which one ran.

#include <string>

namespace crossover {

/// The BLAS library found in this process.
struct BlasInfo {
  std::string kind;     ///< "openblas", "mkl", "blis", "reference" or "unknown"
  std::string library;  ///< resolved path of the loaded shared library; "" when linked in
  std::string version;  ///< the library's own description, when it offers one
  bool is_reference() const { return kind == "reference"; }
};

/// The kind of BLAS a resolved library path names ("openblas", "mkl", "blis", "reference",
/// or "unknown"); a plain libblas.so.3 outside an OpenBLAS/BLIS directory is the reference one.
std::string classify_blas_path(const std::string& path);

/// Finds the library that provides sgemm_ to this process, which is the one LibTorch calls.
/// `torch_blas_info` is LibTorch's build setting BLAS_INFO ("mkl", "generic", ...), used when
/// no shared library exports sgemm_ (the BLAS is linked into LibTorch).
BlasInfo detect_blas(const std::string& torch_blas_info);

/// The BLAS library's own thread count, or 0 when it offers no way to ask.
int blas_threads();

/// Limits the BLAS library's own threads; false when it offers no way to.
bool set_blas_threads(int threads);

}  // namespace crossover
