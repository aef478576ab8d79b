#pragma once
// Energy and clocks around the timed epochs of a cell: the CPU package's RAPL counters under
// powercap, and a GPU's NVML energy counter (or its power, sampled and integrated), with the SM
// clock and throttle reasons sampled while the epochs run. Nothing here needs LibTorch.
//
// Where they are read from can be moved for tests: CROSSOVER_POWERCAP_ROOT (default
// /sys/class/powercap) and CROSSOVER_NVML_LIBRARY (default libnvidia-ml.so.1).

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/records/energy_source.hpp"

namespace crossover {

/// What a meter found over the timed spans of one cell.
struct EnergyTotals {
  EnergySource source = EnergySource::kNone;
  std::string note;  ///< why unavailable, or a caveat (what else the counter covers)
  double joules = 0.0;
  double seconds = 0.0;  ///< the spans' wall time the joules cover
  // Clocks (GPU only): the lowest SM clock seen and its maximum, in MHz (0: not read), and the
  // throttle reasons seen, NVML's bit mask.
  unsigned sm_clock_min_mhz = 0;
  unsigned sm_clock_max_mhz = 0;
  unsigned long long throttle_reasons = 0;
};

/// Reads one device's energy around spans: start() before a timed span, stop() after it.
class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  /// Everything measured so far.
  virtual EnergyTotals totals() const = 0;
};

/// The meter for `device` ("cpu", "cuda", "cuda:N") using GPUs `first_gpu` .. first_gpu + gpus - 1
/// (NVML's indices): RAPL's package domains for the CPU, NVML for CUDA. Never fails: a meter
/// that cannot read says `unavailable` and why.
std::unique_ptr<EnergyMeter> energy_meter(DeviceKind device, int first_gpu, int gpus);

/// The throttle reasons of NVML's mask that make a measurement suspect (thermal and power
/// slowdowns, the power cap), by name: "sw_power_cap,hw_thermal_slowdown"; "" when none.
std::string throttle_reason_names(unsigned long long reasons);

/// Whether a cell's clocks fell far enough to flag it (nvbench's rule): the lowest SM clock
/// below 75 % of its maximum, or a thermal or power throttle reason.
bool throttled(const EnergyTotals& totals);

/// The CPU's current frequency in MHz (cpu0's scaling_cur_freq), 0 where not exposed.
double cpu_mhz();

/// What env.json says of energy on this machine: per source, readable or why not.
std::string energy_availability(DeviceKind device);

}  // namespace crossover
