// The environment record read back (env.json of a run, or of a merged one's shards): its summary
// lines and its warnings. Without LibTorch, so that `crossover report` and `merge` need none.
#include <algorithm>
#include <optional>

#include "core/text/text.hpp"
#include "reports/gate/run_drift.hpp"
#include "runner/machine/env.hpp"
#include "runner/machine/machine_record.hpp"

namespace crossover {
namespace {

std::string count_text(const std::optional<std::int64_t>& count) {
  return count ? std::to_string(*count) : std::string("unknown");
}

std::string load_text(const Environment& r) {
  if (r.cpu.load_average.empty()) return "unknown";
  std::vector<std::string> loads;
  for (const double x : r.cpu.load_average) loads.push_back(format_number(x));
  return join(loads, " ");
}

// A merged run's machines, each with the parts it ran: "node0 (part 1 of 3), node1 (parts 2, 3 of
// 3)"; "" for a run that is not made of shards.
std::string machines_text(const Environment& r) {
  std::vector<std::pair<std::string, std::vector<std::string>>> machines;
  std::string count;
  for (const MergedShard& s : r.shards) {
    std::string name = s.env.label;
    if (name.empty()) name = s.env.host.hostname;
    if (name.empty()) name = "unlabelled";
    const auto& shard = s.env.shard;
    if (shard && shard->count > 0) count = std::to_string(shard->count);
    auto it = std::find_if(machines.begin(), machines.end(),
                           [&](const auto& m) { return m.first == name; });
    if (it == machines.end()) it = machines.insert(machines.end(), {name, {}});
    if (shard && shard->index > 0) it->second.push_back(std::to_string(shard->index));
  }
  std::vector<std::string> texts;
  for (const auto& [name, parts] : machines) {
    std::string t = name;
    if (!parts.empty())
      t += std::string(parts.size() == 1 ? " (part " : " (parts ") + join(parts) +
           (count.empty() ? "" : " of " + count) + ")";
    texts.push_back(t);
  }
  return join(texts);
}

std::string libtorch_line(const Environment& r) {
  const Environment::LibTorch& t = r.libtorch;
  // The package's version where it is not the library's own ("1.13.1+dfsg-4" for 1.13.0).
  const std::string package =
      t.package_version.empty() || t.package_version.rfind(t.version, 0) == 0
          ? ""
          : ", Debian package " + t.package + " " + t.package_version;
  return "LibTorch " + t.version + package + " (CUDA " +
         (r.cuda.compiled ? "compiled" : "not compiled") + ", BLAS_INFO=" + t.blas_info +
         "; fused optimiser kernels: " +
         (t.fused_kernels.empty() ? std::string("none") : join(t.fused_kernels, ", ")) + ")";
}

std::string blas_line(const Environment& r) {
  std::string blas = "BLAS: " + r.blas.kind;
  if (!r.blas.library.empty()) blas += " (" + r.blas.library + ")";
  if (!r.blas.version.empty()) blas += ", " + r.blas.version;
  if (r.blas.matmul_1024_gflops)
    blas += "; 1024x1024 float32 matmul " + format_number(*r.blas.matmul_1024_gflops) + " GFLOP/s";
  return blas;
}

}  // namespace

std::string band_validation(const Environment& r) {
  if (!r.predicted_with) return "";
  const auto v = r.predicted_with->validation.find(DeviceKind::kCuda);
  return v == r.predicted_with->validation.end() ? "no band validated against real runs"
                                                 : band_validation_text(v->second);
}

std::vector<std::string> environment_summary(const Environment& r) {
  std::vector<std::string> lines;
  if (const std::string machines = machines_text(r); !machines.empty())
    lines.push_back("Machines (merged shards): " + machines);
  lines.push_back("CPU: " + r.cpu.model + ", " + count_text(r.cpu.logical_cores) +
                  " logical cores; " + r.host.os);
  lines.push_back(libtorch_line(r));
  lines.push_back(blas_line(r));
  if (!r.peak_gflops.empty()) {
    std::vector<std::string> peaks;
    for (const auto& [device, gflops] : r.peak_gflops)
      peaks.push_back(device + " " + format_number(gflops) + " GFLOP/s");
    lines.push_back("Peak (float32 matmul): " + join(peaks));
  }
  const std::string& governor = r.cpu.governor;
  lines.push_back("crossover " + r.crossover_version + " (" + r.crossover_revision + "), " +
                  r.compiler + "; CPU governor " + (governor.empty() ? "unreadable" : governor) +
                  ", load average " + load_text(r));
  const auto& blas_threads = r.threads.blas;
  lines.push_back(
      "Threads: intra-op " + count_text(r.threads.intra_op) + ", inter-op " +
      count_text(r.threads.inter_op) + ", BLAS " +
      (blas_threads && *blas_threads > 0 ? std::to_string(*blas_threads) : std::string("unknown")));
  std::vector<std::string> names;
  for (const GpuRecord& g : r.gpus) names.push_back(g.name);
  lines.push_back("GPUs: " + (names.empty() ? "none (" + r.nvml.error + ")"
                                            : join(names) + "; driver " + r.nvml.driver_version));
  // Energy and prices: what the joules and the costs of the results came from (docs/energy.md).
  if (r.energy) lines.push_back("Energy: CPU " + r.energy->cpu + "; GPU " + r.energy->cuda);
  if (!r.prices.empty()) {
    std::vector<std::string> prices;
    for (const auto& [kind, price] : r.prices) prices.push_back(kind + " " + format_number(price));
    lines.push_back("Prices per hour: " + join(prices));
  }
  return lines;
}

std::vector<std::string> environment_warnings(const Environment& r) {
  std::vector<std::string> warnings;
  const auto& gflops = r.blas.matmul_1024_gflops;
  const bool reference = r.blas.reference;
  if (gflops && !reference && *gflops < 10.0) {
    warnings.push_back(
        "A 1024x1024 float32 matrix product ran at only " + format_number(*gflops) +
        " GFLOP/s: the BLAS in use (" + r.blas.kind +
        ") is very slow or the machine is heavily loaded; CPU times may be far too slow.");
  }
  if (reference) {
    warnings.push_back(
        "LibTorch is calling the reference BLAS (" + r.blas.library +
        "), about 40x slower than OpenBLAS for matrix products: every CPU time here is too slow. "
        "Install libopenblas0-pthread (scripts/setup.sh does) and run again.");
  }
  const std::string& governor = r.cpu.governor;
  if (!governor.empty() && governor != "performance") {
    warnings.push_back("The CPU frequency governor is '" + governor +
                       "', not 'performance': the clock may change during a cell and CPU times "
                       "with it (cpu_mhz_start and cpu_mhz_end in the results show it).");
  }
  if (r.cuda.compiled && !r.cuda.available) {
    warnings.push_back(
        "This build has CUDA but no CUDA device is usable: every CUDA cell is skipped.");
  }
  if (std::string drift = drift_warning(r); !drift.empty()) warnings.push_back(std::move(drift));
  if (std::string reused = machine_record_warning(r); !reused.empty())
    warnings.push_back(std::move(reused));
  return warnings;
}

}  // namespace crossover
