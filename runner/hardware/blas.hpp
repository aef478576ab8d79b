#pragma once
// Which BLAS library this process really calls, and its thread count. Debian's LibTorch links
// the generic libblas.so.3, which is the slow reference BLAS unless OpenBLAS is installed; a CPU
// timed on the reference BLAS is about 40x too slow, so every report must say which one ran.

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "core/text/words.hpp"

namespace crossover {

/// Which BLAS a library is.
enum class BlasKind { kUnknown, kOpenblas, kMkl, kBlis, kAtlas, kReference };

/// env.json's `blas.kind`: "unknown", "openblas", "mkl", "blis", "atlas", "reference".
inline constexpr auto words(BlasKind) {
  return std::array{std::pair{BlasKind::kUnknown, std::string_view("unknown")},
                    std::pair{BlasKind::kOpenblas, std::string_view("openblas")},
                    std::pair{BlasKind::kMkl, std::string_view("mkl")},
                    std::pair{BlasKind::kBlis, std::string_view("blis")},
                    std::pair{BlasKind::kAtlas, std::string_view("atlas")},
                    std::pair{BlasKind::kReference, std::string_view("reference")}};
}

/// The BLAS library found in this process.
struct BlasInfo {
  BlasKind kind = BlasKind::kUnknown;
  std::string library;  ///< resolved path of the loaded shared library; "" when linked in
  std::string version;  ///< the library's own description, when it offers one
  bool is_reference() const { return kind == BlasKind::kReference; }
};

/// The kind of BLAS a resolved library path names; a plain libblas.so.3 outside an OpenBLAS/BLIS
/// directory is the reference one.
BlasKind classify_blas_path(const std::string& path);

/// Finds the library that provides sgemm_ to this process, which is the one LibTorch calls.
/// `torch_blas_info` is LibTorch's build setting BLAS_INFO ("mkl", "generic", ...), used when
/// no shared library exports sgemm_ (the BLAS is linked into LibTorch).
BlasInfo detect_blas(const std::string& torch_blas_info);

/// The BLAS library's own thread count, or 0 when it offers no way to ask.
int blas_threads();

/// Limits the BLAS library's own threads; false when it offers no way to.
bool set_blas_threads(int threads);

}  // namespace crossover
