#include "runner/hardware/nvml.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace crossover {
namespace {

// The few NVML entry points used, declared here so no NVIDIA header is needed at build time.
using NvmlReturn = int;
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
constexpr int kNvmlTemperatureGpu = 0;

template <typename Function>
Function symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

}  // namespace

NvmlReport query_nvml() {
  NvmlReport report;
  // CROSSOVER_NVML_LIBRARY: another NVML (the tests' stand-in), as runner/hardware/energy.cpp
  // reads.
  const char* path = std::getenv("CROSSOVER_NVML_LIBRARY");
  const std::string library_path = path != nullptr && *path != '\0' ? path : "libnvidia-ml.so.1";
  void* library = dlopen(library_path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) {
    report.error = library_path + " not found (no NVIDIA driver on this machine)";
    return report;
  }
  const auto init = symbol<NvmlReturn (*)()>(library, "nvmlInit_v2");
  const auto shutdown = symbol<NvmlReturn (*)()>(library, "nvmlShutdown");
  const auto count = symbol<NvmlReturn (*)(unsigned*)>(library, "nvmlDeviceGetCount_v2");
  const auto handle =
      symbol<NvmlReturn (*)(unsigned, NvmlDevice*)>(library, "nvmlDeviceGetHandleByIndex_v2");
  const auto name =
      symbol<NvmlReturn (*)(NvmlDevice, char*, unsigned)>(library, "nvmlDeviceGetName");
  const auto memory =
      symbol<NvmlReturn (*)(NvmlDevice, NvmlMemory*)>(library, "nvmlDeviceGetMemoryInfo");
  const auto driver =
      symbol<NvmlReturn (*)(char*, unsigned)>(library, "nvmlSystemGetDriverVersion");
  const auto clock =
      symbol<NvmlReturn (*)(NvmlDevice, int, unsigned*)>(library, "nvmlDeviceGetClockInfo");
  const auto max_clock =
      symbol<NvmlReturn (*)(NvmlDevice, int, unsigned*)>(library, "nvmlDeviceGetMaxClockInfo");
  const auto temperature =
      symbol<NvmlReturn (*)(NvmlDevice, int, unsigned*)>(library, "nvmlDeviceGetTemperature");
  const auto throttle = symbol<NvmlReturn (*)(NvmlDevice, unsigned long long*)>(
      library, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (init == nullptr || shutdown == nullptr || count == nullptr || handle == nullptr) {
    report.error = "libnvidia-ml.so.1 lacks the NVML entry points crossover uses";
    dlclose(library);
    return report;
  }
  if (init() != 0) {
    report.error = "nvmlInit failed (driver not loaded?)";
    dlclose(library);
    return report;
  }
  report.available = true;
  char text[96] = {};
  if (driver != nullptr && driver(text, sizeof text) == 0) report.driver_version = text;
  unsigned devices = 0;
  if (count(&devices) == 0) {
    for (unsigned i = 0; i < devices; ++i) {
      NvmlDevice device = nullptr;
      if (handle(i, &device) != 0) continue;
      GpuFacts gpu;
      gpu.index = static_cast<int>(i);
      if (name != nullptr && name(device, text, sizeof text) == 0) gpu.name = text;
      NvmlMemory m{};
      if (memory != nullptr && memory(device, &m) == 0) gpu.memory_total_bytes = m.total;
      if (clock != nullptr) clock(device, kNvmlClockSm, &gpu.sm_clock_mhz);
      if (max_clock != nullptr) max_clock(device, kNvmlClockSm, &gpu.sm_clock_max_mhz);
      if (temperature != nullptr) temperature(device, kNvmlTemperatureGpu, &gpu.temperature_c);
      if (throttle != nullptr) throttle(device, &gpu.throttle_reasons);
      report.gpus.push_back(gpu);
    }
  }
  shutdown();
  dlclose(library);
  return report;
}

}  // namespace crossover
