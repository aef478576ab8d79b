// The README's first command on a GPU machine: scripts/demo.sh looks for an NVIDIA GPU and a CUDA
// LibTorch (scripts/find-cuda-torch.sh) and measures the GPU when it finds both. Here, with no GPU,
// a fake nvidia-smi stands in for one; the real path runs in scripts/gpu-check.sh when one is lent.
#include <filesystem>
#include <regex>

#include "tests/cli_support.hpp"

namespace crossover::testing {
namespace {

// A script of the source tree run with `env` before it (and no LIBTORCH but what `env` sets).
Outcome script(const ScratchDir& dir, const std::string& env, const std::string& command) {
  return shell(dir, "cd " + std::string(CROSSOVER_SOURCE_DIR) + " && env -u LIBTORCH " + env + " " +
                        command);
}

// PATH with a fake nvidia-smi first, one that lists an H100; HOME without ~/libtorch, and a
// Python without torch, whatever this machine has.
std::string fake_gpu(const ScratchDir& dir) {
  fs::create_directories(dir.file("bin"));
  const std::string smi = dir.write(
      "bin/nvidia-smi", "#!/bin/sh\necho 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0000)'\n");
  fs::permissions(smi, fs::perms::owner_all);
  return "PATH=" + dir.file("bin") + ":\"$PATH\" HOME=" + dir.path() + " PYTHON=false";
}

TEST(Scripts, NoGpuIsExitOneAndSilent) {
  ScratchDir dir;
  fs::create_directories(dir.file("bin"));
  const std::string smi = dir.write("bin/nvidia-smi", "#!/bin/sh\nexit 9\n");  // no driver
  fs::permissions(smi, fs::perms::owner_all);
  const Outcome o =
      script(dir, "PATH=" + dir.file("bin") + ":\"$PATH\"", "scripts/find-cuda-torch.sh");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(o.out + o.err, "");
}

TEST(Scripts, AGpuWithoutACudaLibTorchGetsOneLineAndTheDemoRunsPredicted) {
  ScratchDir dir;
  const std::string env = fake_gpu(dir);
  const Outcome found = script(dir, env, "scripts/find-cuda-torch.sh");
  EXPECT_EQ(found.code, 3);
  EXPECT_EQ(found.out, "");
  EXPECT_EQ(lines_in(found.err), 1u) << found.err;
  EXPECT_NE(found.err.find("NVIDIA H100 80GB HBM3 is here but no CUDA LibTorch"), std::string::npos)
      << found.err;
  EXPECT_NE(found.err.find("get one with: false -m pip install torch"), std::string::npos)
      << found.err;

  // The built crossover must see no GPU either: on a GPU host it is built against a CUDA
  // LibTorch and would measure the CUDA cells (the H200 of 2026-11-27 found it).
  const std::string bin = fs::path(CROSSOVER_BINARY).parent_path().string();
  const Outcome demo =
      script(dir, env + " CUDA_VISIBLE_DEVICES= CROSSOVER_SKIP_SETUP=1 BUILD_DIR=" + bin,
             "scripts/demo.sh --dry-run --out " + dir.file("run"));
  ASSERT_EQ(demo.code, 0) << demo.out << demo.err;
  EXPECT_NE(demo.err.find("is here but no CUDA LibTorch"), std::string::npos) << demo.err;
  EXPECT_TRUE(std::regex_search(demo.out, std::regex(R"( predict +no CUDA here\n)"))) << demo.out;
  EXPECT_NE(demo.out.find("against Debian's LibTorch"), std::string::npos) << demo.out;
}

TEST(Scripts, ALibTorchPrefixThatDoesNotConfigureIsNamedInTheError) {
  ScratchDir dir;
  fs::create_directories(dir.file("fake-libtorch/lib"));
  const std::string env = fake_gpu(dir) + " LIBTORCH=" + dir.file("fake-libtorch") +
                          " CUDA_BUILD_DIR=" + dir.file("build-cuda") + " CROSSOVER_SKIP_SETUP=1";
  EXPECT_EQ(script(dir, env, "scripts/find-cuda-torch.sh").out, dir.file("fake-libtorch") + "\n");
  const Outcome demo = script(dir, env, "scripts/demo.sh --dry-run");
  EXPECT_EQ(demo.code, 2) << demo.out << demo.err;
  EXPECT_NE(demo.err.find("error: could not configure crossover against the CUDA LibTorch at " +
                          dir.file("fake-libtorch")),
            std::string::npos)
      << demo.err;
  // CMake's own reason, naming what it found instead: a LibTorch without CUDA, or none.
  EXPECT_TRUE(demo.err.find("has no CUDA") != std::string::npos ||
              demo.err.find("Torch") != std::string::npos)
      << demo.err;
  EXPECT_EQ(demo.out.find("predict"), std::string::npos) << demo.out;  // it stops, never predicts
}

}  // namespace
}  // namespace crossover::testing
