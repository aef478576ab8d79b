#include "runner/hardware/energy.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

#include "core/cells/modes.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "runner/hardware/nvml.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string from_env(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// A number from the first line of a sysfs file, or why it cannot be read (nothing when it can): not
// there, not a regular file (a FIFO would hang the cell), no permission, or not a number.
Found number_problem(const std::string& path, double& value) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error) return Problem("cannot read " + path + " (" + error.message() + ")");
  if (!fs::is_regular_file(status)) return Problem(path + " is not a regular file");
  std::ifstream in(path);
  if (!in) {
    return Problem(errno == EACCES ? "cannot read " + path +
                                         ": no permission (root only since Linux 5.10: run as "
                                         "root, or make it readable)"
                                   : "cannot read " + path + " (" + std::strerror(errno) + ")");
  }
  std::string line;
  std::getline(in, line);
  char* end = nullptr;
  errno = 0;
  value = std::strtod(line.c_str(), &end);
  if (line.empty() || end == line.c_str() || *end != '\0' || errno == ERANGE ||
      !std::isfinite(value) || value < 0)
    return Problem(path + " holds \"" + line.substr(0, 40) + "\", not a count of microjoules");
  return std::nullopt;
}

bool read_number(const std::string& path, double& value) { return !number_problem(path, value); }

std::string first_line(const std::string& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return "";
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// NVML's clocks-event reasons that slow a measurement down (nvml.h): the software power cap,
// hardware slowdown, software and hardware thermal slowdown, the hardware power brake.
struct ReasonName {
  unsigned long long bit;
  const char* name;
};
constexpr ReasonName kSuspectReasons[] = {{0x4, "sw_power_cap"},
                                          {0x8, "hw_slowdown"},
                                          {0x20, "sw_thermal_slowdown"},
                                          {0x40, "hw_thermal_slowdown"},
                                          {0x80, "hw_power_brake_slowdown"}};

class UnavailableMeter : public EnergyMeter {
 public:
  explicit UnavailableMeter(std::string why) {
    totals_.source = EnergySource::kUnavailable;
    totals_.note = std::move(why);
  }
  void start() override {}
  void stop() override {}
  EnergyTotals totals() const override { return totals_; }

 private:
  EnergyTotals totals_;
};

// ---- RAPL: the package domains' cumulative counters, in microjoules, which wrap at
// max_energy_range_uj.

struct RaplDomain {
  std::string counter;  // .../energy_uj
  double range_uj = 0.0;
  double last_uj = 0.0;
};

// More than this from one package domain is no reading but a broken or planted counter.
constexpr double kMostPackageWatts = 5000.0;
// A counter that has not moved over this much timed time is not counting.
constexpr double kStillCounterSeconds = 0.05;
// NVML's energy counter moves in steps: where the sampler saw it move fewer times than this over
// the timed epochs, a step fell into a span or not by chance (on an H200, cells of three 40 ms
// epochs read 0 J beside the same cells reading 7.7 J), so the power integrated counts them.
constexpr int kCounterStepsAtLeast = 10;

class RaplMeter : public EnergyMeter {
 public:
  explicit RaplMeter(std::vector<RaplDomain> domains) : domains_(std::move(domains)) {
    totals_.source = EnergySource::kRapl;
    totals_.note = "the whole CPU package (" + std::to_string(domains_.size()) +
                   " domain(s)): other processes on it count too";
  }
  void start() override {
    for (auto& d : domains_) {
      if (const Found why = number_problem(d.counter, d.last_uj)) problem_ = why->text;
    }
    started_ = Clock::now();
  }
  void stop() override {
    const double span = seconds_between(started_, Clock::now());
    for (auto& d : domains_) {
      double now = d.last_uj;
      if (const Found why = number_problem(d.counter, now)) {
        problem_ = why->text;
        continue;
      }
      double delta = now - d.last_uj;
      if (delta < 0.0) delta += d.range_uj;  // the counter wrapped (once, at most, per span)
      // A wrap is a small step past the range; a counter that went back is not one.
      if (delta / 1e6 > kMostPackageWatts * std::max(span, 1e-3) && problem_.empty()) {
        problem_ = d.counter + " went from " + format_number(d.last_uj) + " to " +
                   format_number(now) + " uJ in " + format_seconds(span) +
                   ": more than a package draws (" + format_number(kMostPackageWatts) +
                   " W), a counter that went back rather than one wrap";
      }
      totals_.joules += delta / 1e6;
      d.last_uj = now;
    }
    totals_.seconds += span;
  }
  EnergyTotals totals() const override {
    std::string why = problem_;
    if (why.empty() && totals_.joules == 0.0 && totals_.seconds >= kStillCounterSeconds)
      why = "the RAPL counter did not move over " + format_seconds(totals_.seconds) +
            " of timed epochs: it is not counting (a virtual machine's stand-in?)";
    if (why.empty()) return totals_;
    EnergyTotals unavailable;
    unavailable.source = EnergySource::kUnavailable;
    unavailable.note = why;
    return unavailable;
  }

 private:
  std::vector<RaplDomain> domains_;
  EnergyTotals totals_;
  Clock::time_point started_;
  std::string problem_;  ///< the first reading that makes the totals untrustworthy
};

// The package domains under the powercap root ("intel-rapl:0", "intel-rapl:1": AMD's RAPL
// driver uses the same names), or why there are none.
std::unique_ptr<EnergyMeter> rapl_meter() {
  const std::string root = from_env("CROSSOVER_POWERCAP_ROOT", "/sys/class/powercap");
  std::error_code error;
  if (!fs::is_directory(root, error))
    return std::make_unique<UnavailableMeter>(
        "no powercap at " + root + " (a virtual machine, or a kernel without intel_rapl)");
  static const std::regex package_dir(R"(intel-rapl:\d+)");
  std::vector<RaplDomain> domains;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    const std::string dir = entry.path().string();
    if (!std::regex_match(entry.path().filename().string(), package_dir)) continue;
    if (first_line(dir + "/name").rfind("package", 0) != 0) continue;
    RaplDomain d;
    d.counter = dir + "/energy_uj";
    if (const Found why = number_problem(d.counter, d.last_uj))
      return std::make_unique<UnavailableMeter>(why->text);
    if (!read_number(dir + "/max_energy_range_uj", d.range_uj) || d.range_uj <= 0.0)
      return std::make_unique<UnavailableMeter>("cannot read " + dir + "/max_energy_range_uj");
    domains.push_back(d);
  }
  if (domains.empty())
    return std::make_unique<UnavailableMeter>("no RAPL package domain under " + root +
                                              " (a virtual machine, or intel_rapl not loaded)");
  std::sort(domains.begin(), domains.end(),
            [](const RaplDomain& a, const RaplDomain& b) { return a.counter < b.counter; });
  return std::make_unique<RaplMeter>(std::move(domains));
}

// ---- NVML, loaded at run time: the energy counter (Volta and later), else the power sampled and
// integrated; the SM clock and throttle reasons sampled either way.

struct Nvml {
  void* library = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*handle)(unsigned, NvmlDevice*) = nullptr;
  int (*handle_by_uuid)(const char*, NvmlDevice*) = nullptr;
  int (*energy)(NvmlDevice, unsigned long long*) = nullptr;  // millijoules
  int (*power)(NvmlDevice, unsigned*) = nullptr;             // milliwatts
  int (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  int (*max_clock)(NvmlDevice, int, unsigned*) = nullptr;
  int (*reasons)(NvmlDevice, unsigned long long*) = nullptr;

  template <typename Function>
  void bind(Function& f, const char* name) {
    f = reinterpret_cast<Function>(dlsym(library, name));
  }
};

class NvmlMeter : public EnergyMeter {
 public:
  NvmlMeter(Nvml nvml, std::vector<NvmlDevice> devices, bool counter, bool power)
      : nvml_(nvml), devices_(std::move(devices)), counter_(counter), power_(power) {
    for (NvmlDevice d : devices_) {
      unsigned mhz = 0;
      if (nvml_.max_clock != nullptr && nvml_.max_clock(d, kNvmlClockSm, &mhz) == 0)
        totals_.sm_clock_max_mhz = std::max(totals_.sm_clock_max_mhz, mhz);
    }
  }
  ~NvmlMeter() override {
    stop_sampler();
    nvml_.shutdown();
    dlclose(nvml_.library);
  }
  void start() override {
    if (counter_) energy_mj_ = last_energy_mj_ = read_energy();
    started_ = last_sample_ = Clock::now();
    sample(false);
    running_ = true;
    sampler_ = std::thread([this] {
      while (running_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        sample(true);
      }
    });
  }
  void stop() override {
    stop_sampler();
    sample(true);
    std::lock_guard<std::mutex> lock(mutex_);
    if (counter_) counter_joules_ += static_cast<double>(read_energy() - energy_mj_) / 1e3;
    totals_.seconds += seconds_between(started_, Clock::now());
  }
  // The counter where it moved often enough to count the spans; else the power integrated.
  EnergyTotals totals() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    EnergyTotals t = totals_;
    if (counter_ && counter_steps_ >= kCounterStepsAtLeast) {
      t.source = EnergySource::kNvml;
      t.joules = counter_joules_;
      return t;
    }
    const std::string coarse = "the energy counter moved " + std::to_string(counter_steps_) +
                               " time(s) over " + format_seconds(t.seconds) +
                               " of timed epochs, too coarse to count them";
    if (!power_) {
      EnergyTotals unavailable;
      unavailable.source = EnergySource::kUnavailable;
      unavailable.note = coarse + ", and NVML reads no power";
      return unavailable;
    }
    t.source = EnergySource::kNvmlPower;
    t.joules = power_joules_;
    t.note = (counter_ ? coarse + "; " : "no energy counter; ") +
             "power sampled every 5 ms and integrated";
    return t;
  }

 private:
  unsigned long long read_energy() const {
    unsigned long long sum = 0;
    for (NvmlDevice d : devices_) {
      unsigned long long mj = 0;
      if (nvml_.energy(d, &mj) == 0) sum += mj;
    }
    return sum;
  }
  // One sample of the clocks, the reasons and (without a counter) the power since the last.
  void sample(bool integrate) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Clock::time_point now = Clock::now();
    double watts = 0.0;
    for (NvmlDevice d : devices_) {
      unsigned mhz = 0, milliwatts = 0;
      unsigned long long reasons = 0;
      if (nvml_.clock != nullptr && nvml_.clock(d, kNvmlClockSm, &mhz) == 0 && mhz > 0)
        totals_.sm_clock_min_mhz =
            totals_.sm_clock_min_mhz == 0 ? mhz : std::min(totals_.sm_clock_min_mhz, mhz);
      if (nvml_.reasons != nullptr && nvml_.reasons(d, &reasons) == 0)
        totals_.throttle_reasons |= reasons;
      if (power_ && nvml_.power(d, &milliwatts) == 0) watts += milliwatts / 1e3;
    }
    if (power_ && integrate) power_joules_ += watts * seconds_between(last_sample_, now);
    if (counter_) {
      const unsigned long long mj = read_energy();
      if (mj != last_energy_mj_) ++counter_steps_;
      last_energy_mj_ = mj;
    }
    last_sample_ = now;
  }
  void stop_sampler() {
    running_ = false;
    if (sampler_.joinable()) sampler_.join();
  }

  Nvml nvml_;
  std::vector<NvmlDevice> devices_;
  bool counter_;
  bool power_;
  mutable std::mutex mutex_;
  EnergyTotals totals_;  // the clocks, the reasons and the seconds; the joules are below
  double counter_joules_ = 0.0;
  double power_joules_ = 0.0;
  int counter_steps_ = 0;  // the counter's changes the sampler saw
  unsigned long long energy_mj_ = 0, last_energy_mj_ = 0;
  Clock::time_point started_, last_sample_;
  std::atomic<bool> running_{false};
  std::thread sampler_;
};

// The GPU NVML knows as CUDA's device `cuda_index`: CUDA numbers only the GPUs that
// CUDA_VISIBLE_DEVICES lists (a Slurm job's, a container's: "2,3" makes GPU 2 cuda:0), by index
// or by UUID ("GPU-..."), ignoring the list from its first entry it cannot read; NVML numbers every
// GPU of the machine. `problem` says why there is none.
struct NvmlGpu {
  std::string uuid;    ///< "" = by index
  unsigned index = 0;  ///< NVML's index
  std::string problem;
};

NvmlGpu nvml_gpu(int cuda_index) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  NvmlGpu gpu;
  gpu.index = static_cast<unsigned>(cuda_index);
  if (visible == nullptr) return gpu;
  std::vector<std::string> listed;
  std::stringstream list(visible);
  for (std::string entry; std::getline(list, entry, ',');) {
    entry.erase(0, entry.find_first_not_of(' '));
    entry.erase(entry.find_last_not_of(' ') + 1);
    const bool number = !entry.empty() && entry.size() < 10 &&
                        entry.find_first_not_of("0123456789") == std::string::npos;
    if (!number && entry.rfind("GPU-", 0) != 0 && entry.rfind("MIG-", 0) != 0) break;
    listed.push_back(entry);
  }
  const std::string named = "CUDA_VISIBLE_DEVICES=" + std::string(visible);
  if (static_cast<std::size_t>(cuda_index) >= listed.size()) {
    gpu.problem = named + " leaves no cuda:" + std::to_string(cuda_index);
  } else if (listed[cuda_index].rfind("MIG-", 0) == 0) {
    gpu.problem = named + ": a MIG instance, whose energy NVML does not count apart from its GPU's";
  } else if (listed[cuda_index].rfind("GPU-", 0) == 0) {
    gpu.uuid = listed[cuda_index];
  } else {
    gpu.index = static_cast<unsigned>(std::stoul(listed[cuda_index]));
  }
  return gpu;
}

std::unique_ptr<EnergyMeter> nvml_meter(int first_gpu, int gpus) {
  const std::string path = from_env("CROSSOVER_NVML_LIBRARY", "libnvidia-ml.so.1");
  Nvml nvml;
  nvml.library = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (nvml.library == nullptr)
    return std::make_unique<UnavailableMeter>(path + " not found (no NVIDIA driver)");
  nvml.bind(nvml.init, "nvmlInit_v2");
  nvml.bind(nvml.shutdown, "nvmlShutdown");
  nvml.bind(nvml.handle, "nvmlDeviceGetHandleByIndex_v2");
  nvml.bind(nvml.handle_by_uuid, "nvmlDeviceGetHandleByUUID");
  nvml.bind(nvml.energy, "nvmlDeviceGetTotalEnergyConsumption");
  nvml.bind(nvml.power, "nvmlDeviceGetPowerUsage");
  nvml.bind(nvml.clock, "nvmlDeviceGetClockInfo");
  nvml.bind(nvml.max_clock, "nvmlDeviceGetMaxClockInfo");
  nvml.bind(nvml.reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (nvml.reasons == nullptr) nvml.bind(nvml.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  const auto give_up = [&](const std::string& why) -> std::unique_ptr<EnergyMeter> {
    dlclose(nvml.library);
    return std::make_unique<UnavailableMeter>(why);
  };
  if (nvml.init == nullptr || nvml.shutdown == nullptr || nvml.handle == nullptr)
    return give_up(path + " lacks nvmlInit_v2 or nvmlDeviceGetHandleByIndex_v2");
  if (nvml.init() != 0) return give_up("nvmlInit failed (driver not loaded?)");
  std::vector<NvmlDevice> devices;
  bool counter = nvml.energy != nullptr;
  bool power = nvml.power != nullptr;
  for (int i = first_gpu; i < first_gpu + std::max(1, gpus); ++i) {
    NvmlDevice d = nullptr;
    const NvmlGpu gpu = nvml_gpu(i);
    const bool found = gpu.problem.empty() &&
                       (gpu.uuid.empty() ? nvml.handle(gpu.index, &d) == 0
                                         : nvml.handle_by_uuid != nullptr &&
                                               nvml.handle_by_uuid(gpu.uuid.c_str(), &d) == 0);
    if (!found) {
      nvml.shutdown();
      return give_up(!gpu.problem.empty()
                         ? gpu.problem
                         : "NVML has no GPU " +
                               (gpu.uuid.empty() ? std::to_string(gpu.index) : gpu.uuid));
    }
    unsigned long long mj = 0;
    unsigned mw = 0;
    counter = counter && nvml.energy(d, &mj) == 0;
    power = power && nvml.power(d, &mw) == 0;
    devices.push_back(d);
  }
  if (!counter && !power) {
    nvml.shutdown();
    return give_up(
        "NVML reads neither energy nor power on this GPU (not supported, or no "
        "permission)");
  }
  return std::make_unique<NvmlMeter>(nvml, std::move(devices), counter, power);
}

}  // namespace

std::unique_ptr<EnergyMeter> energy_meter(DeviceKind device, int first_gpu, int gpus) {
  if (device == DeviceKind::kCpu) return rapl_meter();
  return nvml_meter(first_gpu, gpus);
}

std::string throttle_reason_names(unsigned long long reasons) {
  std::string out;
  for (const auto& r : kSuspectReasons) {
    if ((reasons & r.bit) != 0) out += (out.empty() ? "" : ",") + std::string(r.name);
  }
  return out;
}

bool throttled(const EnergyTotals& t) {
  const bool slow_clock = t.sm_clock_max_mhz > 0 && t.sm_clock_min_mhz > 0 &&
                          t.sm_clock_min_mhz < 0.75 * t.sm_clock_max_mhz;
  return slow_clock || !throttle_reason_names(t.throttle_reasons).empty();
}

double cpu_mhz() {
  double khz = 0.0;
  return read_number("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", khz) ? khz / 1e3
                                                                                   : 0.0;
}

std::string energy_availability(DeviceKind device) {
  const auto meter = energy_meter(device, 0, 1);
  const EnergyTotals t = meter->totals();
  return t.source == EnergySource::kUnavailable ? "unavailable: " + t.note : text_of(t.source);
}

}  // namespace crossover
