#include <gtest/gtest.h>

#include "runner/blas.hpp"

namespace crossover {
namespace {

TEST(Blas, ClassifiesDebianAlternativesAndVendorLibraries) {
  EXPECT_EQ(classify_blas_path("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0"), "reference");
  EXPECT_EQ(classify_blas_path("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"),
            "openblas");
  EXPECT_EQ(classify_blas_path("/opt/venv/torch/lib/libopenblasp-r0.3.21.so"), "openblas");
  EXPECT_EQ(classify_blas_path("/opt/intel/lib/libmkl_rt.so.2"), "mkl");
  EXPECT_EQ(classify_blas_path("/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3"), "blis");
  EXPECT_EQ(classify_blas_path("/usr/lib/libsomething.so"), "unknown");
}

}  // namespace
}  // namespace crossover
