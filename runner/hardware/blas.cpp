#include "runner/hardware/blas.hpp"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>

namespace crossover {
namespace {

std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The library providing sgemm_ (LibTorch's BLAS), or the global scope when none exports it.
void* blas_library() {
  static void* handle = [] {
    void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_");
    Dl_info where{};
    if (sgemm != nullptr && dladdr(sgemm, &where) != 0 && where.dli_fname != nullptr) {
      if (void* h = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) return h;
    }
    return RTLD_DEFAULT;
  }();
  return handle;
}

// A thread-control function of the BLAS LibTorch calls; never one of a library merely loaded.
template <typename Function>
Function find_symbol(const char* name) {
  return reinterpret_cast<Function>(dlsym(blas_library(), name));
}

// A BLAS linked into LibTorch: its build configuration (BLAS_INFO) names it.
void linked_into_libtorch(const std::string& torch_blas_info, BlasInfo& info) {
  info.kind = torch_blas_info == "mkl"    ? BlasKind::kMkl
              : torch_blas_info == "open" ? BlasKind::kOpenblas
                                          : BlasKind::kUnknown;
  info.version = "linked into LibTorch (BLAS_INFO=" + torch_blas_info + ")";
}

}  // namespace

BlasKind classify_blas_path(const std::string& path) {
  const std::string name = base_name(path);
  if (path.find("openblas") != std::string::npos) return BlasKind::kOpenblas;
  if (path.find("mkl") != std::string::npos) return BlasKind::kMkl;
  if (path.find("blis") != std::string::npos) return BlasKind::kBlis;
  if (path.find("atlas") != std::string::npos) return BlasKind::kAtlas;
  if (name.rfind("libblas.so", 0) == 0) return BlasKind::kReference;
  return BlasKind::kUnknown;
}

BlasInfo detect_blas(const std::string& torch_blas_info) {
  BlasInfo info;
  // The library that answers to sgemm_ in the global scope is the one LibTorch's calls reach.
  // Which libraries are merely loaded is not enough: Debian's liblapack.so.3 can pull in
  // libopenblas.so.0 while libblas.so.3 still resolves to the reference BLAS.
  void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_");
  Dl_info where{};
  if (sgemm != nullptr && dladdr(sgemm, &where) != 0 && where.dli_fname != nullptr) {
    info.library = resolved(where.dli_fname);
    info.kind = classify_blas_path(info.library);
    // A library's own symbols settle what its path cannot (a libblas.so.3 that is OpenBLAS).
    if (void* handle = dlopen(info.library.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
      using ConfigFunction = char* (*)();
      if (auto config = reinterpret_cast<ConfigFunction>(dlsym(handle, "openblas_get_config"))) {
        info.kind = BlasKind::kOpenblas;
        info.version = config();
      } else if (dlsym(handle, "mkl_get_version_string") != nullptr) {
        info.kind = BlasKind::kMkl;
      } else if (dlsym(handle, "bli_info_get_version_str") != nullptr) {
        info.kind = BlasKind::kBlis;
      }
      dlclose(handle);
    }
    // A pip wheel's libtorch_cpu.so links MKL in and exports its sgemm_ (seen with torch 2.11).
    if (info.kind == BlasKind::kUnknown && base_name(info.library).rfind("libtorch", 0) == 0)
      linked_into_libtorch(torch_blas_info, info);
    return info;
  }
  // No exported sgemm_: the BLAS is linked into LibTorch (pip wheels link MKL statically).
  linked_into_libtorch(torch_blas_info, info);
  return info;
}

int blas_threads() {
  if (auto get = find_symbol<int (*)()>("openblas_get_num_threads")) return get();
  if (auto get = find_symbol<int (*)()>("MKL_Get_Max_Threads")) return get();
  if (auto get = find_symbol<long (*)()>("bli_thread_get_num_threads"))
    return static_cast<int>(get());
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
