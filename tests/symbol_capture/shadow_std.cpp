// Stands in for LibTorch 2.x's libtorch.so, which exports its own copies of some C++ standard
// library functions: this library exports a std::filesystem::remove_all that aborts. A program
// whose call binds to it dies, as crossover's isolated cells did on the first real GPU run.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace std::filesystem {

std::uintmax_t remove_all(const path& p, std::error_code&) {
  std::fprintf(stderr, "shadow_std: remove_all(%s) was bound to the shadow copy\n", p.c_str());
  std::abort();
}

}  // namespace std::filesystem
