#include "runner/blas.hpp"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdlib>
#include <vector>

namespace crossover {
namespace {

std::vector<std::string> loaded_libraries() {
  std::vector<std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
          static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
        }
        return 0;
      },
      &paths);
  return paths;
}

std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

template <typename Function>
Function find_symbol(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

std::string classify_blas_path(const std::string& path) {
  const std::string name = base_name(path);
  if (path.find("openblas") != std::string::npos) return "openblas";
  if (path.find("mkl") != std::string::npos) return "mkl";
  if (path.find("blis") != std::string::npos) return "blis";
  if (path.find("atlas") != std::string::npos) return "atlas";
  if (name.rfind("libblas.so", 0) == 0) return "reference";
  return "unknown";
}

BlasInfo detect_blas(const std::string& torch_blas_info) {
  BlasInfo info;
  for (const auto& path : loaded_libraries()) {
    const std::string name = base_name(path);
    const bool blas_like = name.find("blas") != std::string::npos || name.find("mkl_rt") != std::string::npos ||
                           name.find("mkl_core") != std::string::npos;
    if (!blas_like) continue;
    info.library = resolved(path);
    info.kind = classify_blas_path(info.library);
    if (info.kind != "unknown") break;
  }
  // The library's own symbols are the final word: a libblas.so.3 that answers to OpenBLAS is one.
  using ConfigFunction = char* (*)();
  if (auto openblas_config = find_symbol<ConfigFunction>("openblas_get_config")) {
    info.kind = "openblas";
    info.version = openblas_config();
  } else if (find_symbol<void (*)()>("mkl_get_version_string") != nullptr) {
    info.kind = "mkl";
  } else if (find_symbol<void (*)()>("bli_info_get_version_str") != nullptr) {
    info.kind = "blis";
  }
  if (info.kind.empty() || (info.library.empty() && info.kind == "unknown")) {
    // Nothing loaded: the BLAS is linked into LibTorch (pip wheels link MKL statically).
    info.kind = torch_blas_info == "mkl" ? "mkl" : "unknown";
    info.version = "linked into LibTorch (BLAS_INFO=" + torch_blas_info + ")";
  }
  return info;
}

int blas_threads() {
  if (auto get = find_symbol<int (*)()>("openblas_get_num_threads")) return get();
  if (auto get = find_symbol<int (*)()>("MKL_Get_Max_Threads")) return get();
  if (auto get = find_symbol<long (*)()>("bli_thread_get_num_threads")) return static_cast<int>(get());
  return 0;
}

bool set_blas_threads(int threads) {
  if (auto set = find_symbol<void (*)(int)>("openblas_set_num_threads")) {
    set(threads);
    return true;
  }
  if (auto set = find_symbol<void (*)(int)>("MKL_Set_Num_Threads")) {
    set(threads);
    return true;
  }
  if (auto set = find_symbol<void (*)(long)>("bli_thread_set_num_threads")) {
    set(threads);
    return true;
  }
  return false;
}

}  // namespace crossover
