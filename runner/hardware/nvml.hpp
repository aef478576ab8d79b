#pragma once
// GPU facts from NVML, loaded at run time (libnvidia-ml.so.1 ships with the NVIDIA driver), so
// they need no CUDA build and are simply absent on a machine without an NVIDIA GPU.

#include <cstdint>
#include <string>
#include <vector>

namespace crossover {

/// One GPU as NVML sees it.
struct GpuFacts {
  int index = 0;
  std::string name;
  std::uint64_t memory_total_bytes = 0;
  unsigned sm_clock_mhz = 0;      ///< current SM clock
  unsigned sm_clock_max_mhz = 0;  ///< its maximum
  unsigned temperature_c = 0;
  unsigned long long throttle_reasons = 0;  ///< NVML's clocks-event reasons bit mask
};

/// What NVML reported, or why it could not.
struct NvmlReport {
  bool available = false;
  std::string error;  ///< why not available ("libnvidia-ml.so.1 not found")
  std::string driver_version;
  std::vector<GpuFacts> gpus;
};

/// Loads NVML if present and reads every GPU. Never throws.
NvmlReport query_nvml();

/// NVML's own names, for both of its readers (query_nvml and the energy meter,
/// runner/hardware/energy.cpp), declared here so that no NVIDIA header is needed at build time.
using NvmlDevice = void*;
inline constexpr int kNvmlClockSm = 1;  ///< nvmlClockType_t's NVML_CLOCK_SM

}  // namespace crossover
