// The environment record read back (env.json of a run, or of a merged one's shards): its summary
// lines and its warnings. Without LibTorch, so that `crossover report` and `merge` need none.
#include <algorithm>

#include "core/text.hpp"
#include "runner/machine/env.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// The value at `pointer` ("/cpu/model") of a record, or null where it lacks one: env.json is read
// back from a user's folder, and one written by hand or by an older crossover may miss anything.
const Json& field(const Json& r, const char* pointer) {
  static const Json null;
  const Json::json_pointer p(pointer);
  return r.contains(p) ? r.at(p) : null;
}
std::string text(const Json& r, const char* pointer) {
  const Json& v = field(r, pointer);
  return v.is_string() ? v.get<std::string>() : std::string();
}
bool flag(const Json& r, const char* pointer) {
  const Json& v = field(r, pointer);
  return v.is_boolean() && v.get<bool>();
}
std::string count_text(const Json& r, const char* pointer) {
  const Json& v = field(r, pointer);
  return v.is_number() ? v.dump() : std::string("unknown");
}

std::string load_text(const Json& r) {
  const Json& load = field(r, "/cpu/load_average");
  if (!load.is_array()) return "unknown";
  std::vector<std::string> loads;
  for (const auto& x : load) {
    if (x.is_number()) loads.push_back(format_number(x.get<double>()));
  }
  return join(loads, " ");
}

// A merged run's machines, each with the parts it ran: "node0 (part 1 of 3), node1 (parts 2, 3 of
// 3)"; "" for a run that is not made of shards.
std::string machines_text(const Json& r) {
  const Json& shards = field(r, "/shards");
  if (!shards.is_array() || shards.empty()) return "";
  std::vector<std::pair<std::string, std::vector<std::string>>> machines;
  std::string count;
  for (const Json& s : shards) {
    std::string name = text(s, "/env/label");
    if (name.empty()) name = text(s, "/env/host/hostname");
    if (name.empty()) name = "unlabelled";
    const Json& index = field(s, "/env/shard/index");
    if (field(s, "/env/shard/count").is_number_unsigned())
      count = field(s, "/env/shard/count").dump();
    auto it = std::find_if(machines.begin(), machines.end(),
                           [&](const auto& m) { return m.first == name; });
    if (it == machines.end()) it = machines.insert(machines.end(), {name, {}});
    if (index.is_number_unsigned()) it->second.push_back(index.dump());
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

}  // namespace

std::vector<std::string> environment_summary(const Json& r) {
  std::vector<std::string> lines;
  if (const std::string machines = machines_text(r); !machines.empty())
    lines.push_back("Machines (merged shards): " + machines);
  lines.push_back("CPU: " + text(r, "/cpu/model") + ", " + count_text(r, "/cpu/logical_cores") +
                  " logical cores; " + text(r, "/host/os"));
  const Json& fused = field(r, "/libtorch/fused_kernels");
  std::vector<std::string> kernels;
  if (fused.is_array()) {
    for (const auto& k : fused) {
      if (k.is_string()) kernels.push_back(k.get<std::string>());
    }
  }
  // The package's version where it is not the library's own ("1.13.1+dfsg-4" for 1.13.0).
  const std::string package_version = text(r, "/libtorch/package_version");
  const std::string package =
      package_version.empty() || package_version.rfind(text(r, "/libtorch/version"), 0) == 0
          ? ""
          : ", Debian package " + text(r, "/libtorch/package") + " " + package_version;
  lines.push_back("LibTorch " + text(r, "/libtorch/version") + package + " (CUDA " +
                  (flag(r, "/cuda/compiled") ? "compiled" : "not compiled") +
                  ", BLAS_INFO=" + text(r, "/libtorch/blas_info") + "; fused optimiser kernels: " +
                  (kernels.empty() ? std::string("none") : join(kernels, ", ")) + ")");
  std::string blas = "BLAS: " + text(r, "/blas/kind");
  if (!text(r, "/blas/library").empty()) blas += " (" + text(r, "/blas/library") + ")";
  if (!text(r, "/blas/version").empty()) blas += ", " + text(r, "/blas/version");
  if (field(r, "/blas/matmul_1024_gflops").is_number()) {
    blas += "; 1024x1024 float32 matmul " +
            format_number(field(r, "/blas/matmul_1024_gflops").get<double>()) + " GFLOP/s";
  }
  lines.push_back(blas);
  if (field(r, "/peak_gflops").is_object()) {
    std::vector<std::string> peaks;
    for (const auto& [device, gflops] : field(r, "/peak_gflops").items()) {
      if (gflops.is_number())
        peaks.push_back(device + " " + format_number(gflops.get<double>()) + " GFLOP/s");
    }
    lines.push_back("Peak (float32 matmul): " + join(peaks));
  }
  const std::string governor = text(r, "/cpu/governor");
  lines.push_back("crossover " + text(r, "/crossover_version") + " (" +
                  text(r, "/crossover_revision") + "), " + text(r, "/compiler") +
                  "; CPU governor " + (governor.empty() ? "unreadable" : governor) +
                  ", load average " + load_text(r));
  const Json& blas_threads = field(r, "/threads/blas");
  lines.push_back("Threads: intra-op " + count_text(r, "/threads/intra_op") + ", inter-op " +
                  count_text(r, "/threads/inter_op") + ", BLAS " +
                  (blas_threads.is_number() && blas_threads.get<double>() > 0
                       ? blas_threads.dump()
                       : std::string("unknown")));
  std::string gpu_line = "GPUs: ";
  const Json& gpus = field(r, "/gpus");
  std::vector<std::string> names;
  if (gpus.is_array()) {
    for (const auto& g : gpus) names.push_back(text(g, "/name"));
  }
  if (names.empty()) {
    gpu_line += "none (" + text(r, "/nvml/error") + ")";
  } else {
    gpu_line += join(names) + "; driver " + text(r, "/nvml/driver_version");
  }
  lines.push_back(gpu_line);
  // Energy and prices: what the joules and the costs of the results came from (docs/energy.md).
  if (field(r, "/energy").is_object()) {
    lines.push_back("Energy: CPU " + text(r, "/energy/cpu") + "; GPU " + text(r, "/energy/cuda"));
  }
  if (field(r, "/prices").is_object()) {
    std::vector<std::string> prices;
    for (const auto& [kind, price] : field(r, "/prices").items()) {
      if (price.is_number()) prices.push_back(kind + " " + format_number(price.get<double>()));
    }
    lines.push_back("Prices per hour: " + join(prices));
  }
  return lines;
}

std::vector<std::string> environment_warnings(const Json& r) {
  std::vector<std::string> warnings;
  const Json& gflops = field(r, "/blas/matmul_1024_gflops");
  const bool reference = flag(r, "/blas/reference");
  if (gflops.is_number() && !reference && gflops.get<double>() < 10.0) {
    warnings.push_back(
        "A 1024x1024 float32 matrix product ran at only " + format_number(gflops.get<double>()) +
        " GFLOP/s: the BLAS in use (" + text(r, "/blas/kind") +
        ") is very slow or the machine is heavily loaded; CPU times may be far too slow.");
  }
  if (reference) {
    warnings.push_back(
        "LibTorch is calling the reference BLAS (" + text(r, "/blas/library") +
        "), about 40x slower than OpenBLAS for matrix products: every CPU time here is too slow. "
        "Install libopenblas0-pthread (scripts/setup.sh does) and run again.");
  }
  const std::string governor = text(r, "/cpu/governor");
  if (!governor.empty() && governor != "performance") {
    warnings.push_back("The CPU frequency governor is '" + governor +
                       "', not 'performance': the clock may change during a cell and CPU times "
                       "with it (cpu_mhz_start and cpu_mhz_end in the results show it).");
  }
  if (flag(r, "/cuda/compiled") && !flag(r, "/cuda/available")) {
    warnings.push_back(
        "This build has CUDA but no CUDA device is usable: every CUDA cell is skipped.");
  }
  return warnings;
}

}  // namespace crossover
