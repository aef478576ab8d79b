#include "runner/hardware/memory.hpp"

#include <malloc.h>

#include <fstream>
#include <string>

namespace crossover {

bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";  // 5: reset the peak RSS to the current RSS
  clear.flush();
  return static_cast<bool>(clear);
}

std::int64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;  // reported in kB
  }
  return 0;
}

namespace {

constexpr int kMmapThreshold = 32 << 20;  // glibc's largest on 64 bits
constexpr int kTrimThreshold = 256 << 20;
bool fixed = false;

}  // namespace

void fix_allocator_thresholds() {
  fixed = mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 &&
          mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
}

std::string allocator_settings() {
  return fixed ? "glibc malloc: mmap threshold 32 MiB, trim threshold 256 MiB (fixed)" : "";
}

}  // namespace crossover
