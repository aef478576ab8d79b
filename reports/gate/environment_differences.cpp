// What differs between the environments of two runs, and whether it makes the comparison unfair
// (another CPU, GPU, driver or LibTorch) or only worth a note.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/text/text.hpp"
#include "reports/gate/regression.hpp"

namespace crossover {
namespace {

// The matmul peak measured at the start of a run varies by up to ~28 % between quiet runs on a
// shared 2-core VM; two busy processes lowered it by 40 %.
constexpr double kPeakTolerance = 0.30;

// A field as the comparison shows it: "(none)" for an empty text (nothing there, or a record
// that did not have the field), "(not recorded)" for a count a record lacks.
std::string shown(const std::string& text) { return text.empty() ? "(none)" : text; }
std::string shown(const std::optional<std::int64_t>& count) {
  return count ? std::to_string(*count) : "(not recorded)";
}

std::string gpu_names(const Environment& record) {
  std::vector<std::string> names;
  for (const GpuRecord& gpu : record.gpus) names.push_back(gpu.name.empty() ? "?" : gpu.name);
  return names.empty() ? std::string("none") : join(names);
}

// Each field of env.json that compare names when it differs, in words, and whether it can skew
// timings by itself.
struct Field {
  const char* what;
  std::string (*text)(const Environment&);
  bool unfair;
};

const std::vector<Field>& fields() {
  static const std::vector<Field> fields = {
      {"CPU", [](const Environment& e) { return shown(e.cpu.model); }, true},
      {"logical cores", [](const Environment& e) { return shown(e.cpu.logical_cores); }, true},
      {"CPU frequency governor", [](const Environment& e) { return shown(e.cpu.governor); }, true},
      {"intra-op threads", [](const Environment& e) { return shown(e.threads.intra_op); }, true},
      {"inter-op threads", [](const Environment& e) { return shown(e.threads.inter_op); }, true},
      {"BLAS threads", [](const Environment& e) { return shown(e.threads.blas); }, true},
      {"OMP_NUM_THREADS", [](const Environment& e) { return shown(e.threads.omp_num_threads); },
       true},
      {"BLAS", [](const Environment& e) { return shown(e.blas.kind); }, true},
      {"BLAS version", [](const Environment& e) { return shown(e.blas.version); }, true},
      {"LibTorch", [](const Environment& e) { return shown(e.libtorch.version); }, true},
      {"LibTorch parallel backend",
       [](const Environment& e) { return shown(e.libtorch.parallel_backend); }, true},
      {"LibTorch with CUDA", [](const Environment& e) { return shown(e.libtorch.use_cuda); }, true},
      {"CUDA runtime", [](const Environment& e) { return shown(e.cuda.runtime_version); }, true},
      {"cuDNN", [](const Environment& e) { return shown(e.cuda.cudnn_version); }, true},
      {"NVIDIA driver", [](const Environment& e) { return shown(e.nvml.driver_version); }, true},
      {"host", [](const Environment& e) { return shown(e.host.hostname); }, false},
      {"kernel", [](const Environment& e) { return shown(e.host.kernel); }, false},
      {"OS", [](const Environment& e) { return shown(e.host.os); }, false},
      {"compiler", [](const Environment& e) { return shown(e.compiler); }, false},
      {"crossover revision", [](const Environment& e) { return shown(e.crossover_revision); },
       false},
      {"planted load (busy processes, CROSSOVER_PLANT_LOAD)",
       [](const Environment& e) {
         return e.planted_load > 0 ? std::to_string(e.planted_load) : "(none)";
       },
       true},
      {"planted slowdown (each timed epoch, CROSSOVER_PLANT_SLOWDOWN)",
       [](const Environment& e) {
         return e.planted_slowdown > 0 ? "+" + format_number(100.0 * e.planted_slowdown) + " %"
                                       : std::string("(none)");
       },
       true},
      {"planted work (each timed epoch, CROSSOVER_PLANT_WORK)",
       [](const Environment& e) {
         return e.planted_work > 0 ? "+" + format_number(100.0 * e.planted_work) + " %"
                                   : std::string("(none)");
       },
       true},
      {"counter of the counted cells", [](const Environment& e) { return shown(e.counter); }, true},
      {"GPUs", gpu_names, true},
  };
  return fields;
}

}  // namespace

nlohmann::ordered_json timing_setup(const Environment& environment) {
  nlohmann::ordered_json setup = nlohmann::ordered_json::object();
  for (const Field& f : fields())
    if (f.unfair) setup[f.what] = f.text(environment);
  return setup;
}

std::vector<EnvironmentDifference> environment_differences(const Environment& baseline,
                                                           const Environment& candidate,
                                                           bool measured) {
  std::vector<EnvironmentDifference> out;
  for (const Field& f : fields()) {
    const std::string b = f.text(baseline), c = f.text(candidate);
    if (b != c) out.push_back({f.what, b, c, f.unfair});
  }
  // The matmul peak measured at the start of each run: a busy or throttled machine shows here.
  if (!measured) return out;
  for (const auto& [device, bv] : baseline.peak_gflops) {
    for (const auto& [other, cv] : candidate.peak_gflops) {
      if (other != device) continue;
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
