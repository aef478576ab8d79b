// Calls std::filesystem::remove_all on a fresh folder and checks that it is gone. Linked against
// shadow_std (a library that exports an aborting copy of that function): with crossover's link
// options the call binds to libstdc++ and succeeds; without them it binds to the shadow and aborts.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

int main() {
  char pattern[] = "/tmp/crossover-symbol-capture-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return 2;
  const std::filesystem::path dir = pattern;
  std::ofstream(dir / "file") << "x";
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  if (error || access(pattern, F_OK) == 0) {
    std::fprintf(stderr, "probe: %s was not removed\n", pattern);
    return 1;
  }
  std::puts("probe: remove_all bound to libstdc++");
  return 0;
}
