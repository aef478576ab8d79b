// What differs between the environments of two runs, and whether it makes the comparison unfair
// (another CPU, GPU, driver or LibTorch) or only worth a note.
#include <cmath>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "reports/gate/regression.hpp"

namespace crossover {
namespace {

// The matmul peak measured at the start of a run varies by up to ~28 % between quiet runs on a
// shared 2-core VM; two busy processes lowered it by 40 %.
constexpr double kPeakTolerance = 0.30;

}  // namespace

std::vector<EnvironmentDifference> environment_differences(const nlohmann::json& baseline,
                                                           const nlohmann::json& candidate,
                                                           bool measured) {
  std::vector<EnvironmentDifference> out;
  if (baseline.is_null() || candidate.is_null()) return out;
  const auto text = [](const nlohmann::json& record, const std::string& pointer) -> std::string {
    const nlohmann::json::json_pointer p(pointer);
    if (!record.contains(p)) return "(not recorded)";
    const auto& value = record.at(p);
    return value.is_string() ? value.get<std::string>() : value.dump();
  };
  struct Field {
    const char* pointer;
    const char* what;
    bool unfair;
  };
  static const Field fields[] = {
      {"/cpu/model", "CPU", true},
      {"/cpu/logical_cores", "logical cores", true},
      {"/cpu/governor", "CPU frequency governor", true},
      {"/threads/intra_op", "intra-op threads", true},
      {"/threads/inter_op", "inter-op threads", true},
      {"/threads/blas", "BLAS threads", true},
      {"/threads/OMP_NUM_THREADS", "OMP_NUM_THREADS", true},
      {"/blas/kind", "BLAS", true},
      {"/blas/version", "BLAS version", true},
      {"/libtorch/version", "LibTorch", true},
      {"/libtorch/parallel_backend", "LibTorch parallel backend", true},
      {"/libtorch/use_cuda", "LibTorch with CUDA", true},
      {"/cuda/runtime_version", "CUDA runtime", true},
      {"/cuda/cudnn_version", "cuDNN", true},
      {"/nvml/driver_version", "NVIDIA driver", true},
      {"/host/hostname", "host", false},
      {"/host/kernel", "kernel", false},
      {"/host/os", "OS", false},
      {"/compiler", "compiler", false},
      {"/crossover_revision", "crossover revision", false},
      {"/planted_load", "planted load (busy processes, CROSSOVER_PLANT_LOAD)", true},
  };
  for (const Field& f : fields) {
    const std::string b = text(baseline, f.pointer), c = text(candidate, f.pointer);
    if (b != c) out.push_back({f.what, b, c, f.unfair});
  }
  const auto gpu_names = [](const nlohmann::json& record) {
    std::vector<std::string> names;
    if (record.contains("gpus") && record["gpus"].is_array()) {
      for (const auto& gpu : record["gpus"])
        names.push_back(gpu.is_object() && gpu.contains("name") && gpu["name"].is_string()
                            ? gpu["name"].get<std::string>()
                            : std::string("?"));
    }
    return names.empty() ? std::string("none") : join(names);
  };
  if (gpu_names(baseline) != gpu_names(candidate))
    out.push_back({"GPUs", gpu_names(baseline), gpu_names(candidate), true});
  // The matmul peak measured at the start of each run: a busy or throttled machine shows here.
  if (measured && baseline.contains("peak_gflops") && candidate.contains("peak_gflops") &&
      baseline["peak_gflops"].is_object()) {
    for (const auto& [device, b] : baseline["peak_gflops"].items()) {
      if (!candidate["peak_gflops"].is_object() || !candidate["peak_gflops"].contains(device) ||
          !b.is_number() || !candidate["peak_gflops"][device].is_number())
        continue;
      const double bv = b.get<double>(), cv = candidate["peak_gflops"][device].get<double>();
      if (bv > 0.0 && std::abs(cv / bv - 1.0) > kPeakTolerance) {
        out.push_back({device + " matmul peak (GFLOP/s, measured at the start)", format_number(bv),
                       format_number(cv) + " (" + format_percent(cv / bv - 1.0) +
                           "): busy, throttled or different hardware",
                       true});
      }
    }
  }
  return out;
}

}  // namespace crossover
