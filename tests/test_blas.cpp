#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "runner/hardware/blas.hpp"
#include "runner/machine/packages.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

TEST(Blas, ClassifiesDebianAlternativesAndVendorLibraries) {
  EXPECT_EQ(classify_blas_path("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0"),
            BlasKind::kReference);
  EXPECT_EQ(classify_blas_path("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"),
            BlasKind::kOpenblas);
  EXPECT_EQ(classify_blas_path("/opt/venv/torch/lib/libopenblasp-r0.3.21.so"), BlasKind::kOpenblas);
  EXPECT_EQ(classify_blas_path("/opt/intel/lib/libmkl_rt.so.2"), BlasKind::kMkl);
  EXPECT_EQ(classify_blas_path("/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3"),
            BlasKind::kBlis);
  EXPECT_EQ(classify_blas_path("/usr/lib/libsomething.so"), BlasKind::kUnknown);
}

// crossover env names the Debian package of the LibTorch it loaded: a dpkg folder made here with
// two packages' file lists and their stanzas, a library reached through a link, and hostile
// neighbours (a list that is a FIFO, a folder named .list) that must not stop the search.
TEST(Packages, TheDebianPackageOfALibraryAndItsVersionComeFromDpkgsLists) {
  namespace fs = std::filesystem;
  testing::ScratchDir dir;
  const std::string lib = dir.file("lib");
  fs::create_directories(lib);
  std::ofstream(lib + "/libtorch_cpu.so.1.13.0") << "elf";
  fs::create_symlink("libtorch_cpu.so.1.13.0", lib + "/libtorch_cpu.so.1.13");
  const std::string dpkg = dir.file("dpkg");
  fs::create_directories(dpkg + "/info/odd.list");
  ASSERT_EQ(mkfifo((dpkg + "/info/a-fifo.list").c_str(), 0644), 0);
  std::ofstream(dpkg + "/info/libc6:amd64.list") << "/usr/lib/libc.so.6\n";
  std::ofstream(dpkg + "/info/libtorch1.13:amd64.list") << "/.\n"
                                                        << lib << "/libtorch_cpu.so.1.13.0\n";
  std::ofstream(dpkg + "/status") << "Package: libc6\nVersion: 2.36-9\n\n"
                                  << "Package: libtorch1.13\nStatus: install ok installed\n"
                                  << "Version: 1.13.1+dfsg-4\n\n";
  const DebianPackage torch = debian_package(lib + "/libtorch_cpu.so.1.13", dpkg);
  EXPECT_EQ(torch.name, "libtorch1.13");
  EXPECT_EQ(torch.version, "1.13.1+dfsg-4");
  // A library no list names (a pip wheel's, a zip's), and no dpkg at all: nothing, no error.
  std::ofstream(lib + "/libtorch.so") << "elf";
  EXPECT_EQ(debian_package(lib + "/libtorch.so", dpkg).name, "");
  EXPECT_EQ(debian_package(lib + "/libtorch_cpu.so.1.13", dir.file("none")).name, "");
  // Lists named like the file are read first, and one that does not name it leaves the search
  // going: a package named otherwise is still found.
  std::ofstream(dpkg + "/info/libtorch-dev:amd64.list") << "/usr/include/torch\n";
  std::ofstream(lib + "/libgomp.so.1") << "elf";
  std::ofstream(dpkg + "/info/gcc-12-base:amd64.list") << lib << "/libgomp.so.1\n";
  EXPECT_EQ(debian_package(lib + "/libtorch_cpu.so.1.13", dpkg).name, "libtorch1.13");
  EXPECT_EQ(debian_package(lib + "/libgomp.so.1", dpkg).name, "gcc-12-base");
}

}  // namespace
}  // namespace crossover
