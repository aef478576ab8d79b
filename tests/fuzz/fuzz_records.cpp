// Fuzzes every reader of a JSON record that a run or a user keeps and hands back (docs/outputs.md,
// "Nothing lost, nothing followed"): env.json, a machine profile, the GPU catalog, history.json and
// calibrate.json, each reading the same input. A record that is not one must be refused with an
// exception; one that is read must hold no number outside its range, or the fuzzer stops here.
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>

#include "core/costmodel/datasheet.hpp"
#include "core/costmodel/machine_profile.hpp"
#include "core/files/user_files.hpp"
#include "core/records/environment.hpp"
#include "reports/gate/history.hpp"
#include "reports/gate/run_drift.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

// A number that a read record may hold: finite and within [low, high].
void require(double value, double low, double high) {
  if (!(std::isfinite(value) && value >= low && value <= high)) __builtin_trap();
}

void check_device(const crossover::DeviceProfile& d) {
  require(d.dispatch_seconds, 1e-10, 1.0);
  require(d.memory_bytes_per_second, 1e6, 1e15);
  for (const auto& [n, rate] : d.gemm) {
    require(n, 1.0, 1e6);
    require(rate, 1e6, 1e17);
  }
}

}  // namespace

// The warnings of out-of-range fields would flood the fuzzer's output.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = crossover::fuzz::write_input(data, size);
  nlohmann::ordered_json document;
  try {
    document = crossover::read_json_file<nlohmann::ordered_json>(path, crossover::kMaxRecordBytes,
                                                                 "a record");
  } catch (const std::exception&) {
    return 0;
  }
  const crossover::Environment env = crossover::environment_from_json(document, path);
  if (env.cpu.logical_cores) require(static_cast<double>(*env.cpu.logical_cores), 1, 1e5);
  if (env.blas.matmul_1024_gflops) require(*env.blas.matmul_1024_gflops, 1e-3, 1e7);
  for (const auto& [device, gflops] : env.peak_gflops) require(gflops, 1e-3, 1e7);
  const nlohmann::json plain = nlohmann::json::parse(document.dump());
  try {
    const crossover::MachineProfile profile = crossover::profile_from_json(plain);
    check_device(profile.cpu_one_thread);
    check_device(profile.cpu_all_threads);
    if (profile.cuda) check_device(*profile.cuda);
  } catch (const std::exception&) {
  }
  try {
    // A catalog read holds figures a GPU can have, each with its source.
    const crossover::DatasheetCatalog catalog = crossover::catalog_from_json(document);
    for (const auto& card : catalog.cards) {
      require(card.fp32_flops_per_second, 1e11, 1e16);
      require(card.memory_bytes_per_second, 1e9, 1e15);
      require(card.host_link_bytes_per_second(), 1e8, 1e12);
      if (!card.sources.contains("fp32_tflops")) __builtin_trap();
    }
  } catch (const std::exception&) {
  }
  try {
    // A history read holds times: a point's median a time, its quartiles around it or both 0
    // (not recorded), and its run one of the history's.
    const crossover::History history = crossover::history_from_json(plain);
    for (const auto& cell : history.cells)
      for (const auto& point : cell.points) {
        if (!(point.median > 0.0) || point.run >= history.runs.size()) __builtin_trap();
        require(point.median, 0.0, 1e9);
        if (point.p25 == 0.0 && point.p75 == 0.0) continue;
        if (!(point.p25 > 0.0)) __builtin_trap();
        require(point.p25, 0.0, point.median);
        require(point.p75, point.median, 1e9);
      }
  } catch (const std::exception&) {
  }
  try {
    (void)crossover::calibration_from_json(plain, path);
  } catch (const std::exception&) {
  }
  return 0;
}
