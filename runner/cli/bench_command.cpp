// crossover bench: the Google Benchmark micro-benchmarks beside this binary.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/launch.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct BenchArgs {
  std::string filter;     ///< a regular expression over benchmark names; "" runs them all
  std::string out_dir;    ///< "" = reports/bench-<timestamp>
  double min_time = 0.5;  ///< seconds per benchmark
};

int bench_command(const BenchArgs& args) {
  // The benchmark binary is built beside crossover (build/bench/crossover_bench) or installed
  // next to it.
  const fs::path self = fs::path(self_executable()).parent_path();
  std::string binary;
  for (const fs::path& candidate : {self / "bench" / "crossover_bench", self / "crossover_bench"}) {
    if (fs::exists(candidate)) binary = candidate.string();
  }
  if (binary.empty()) {
    spdlog::error(
        "crossover_bench not found beside {}; build it (cmake -DCROSSOVER_ENABLE_BENCH=ON)",
        self.string());
    return kExitBadInput;
  }
  const std::string out_dir = args.out_dir.empty() ? "reports/bench-" + timestamp() : args.out_dir;
  std::error_code error;
  fs::create_directories(out_dir, error);
  if (error) {
    spdlog::error("cannot create {}: {}", out_dir, error.message());
    return kExitBadInput;
  }
  const std::string out_file = out_dir + "/bench.json";
  char min_time[32];
  std::snprintf(min_time, sizeof min_time, "%g", args.min_time);
  std::vector<std::string> argv = {binary, "--benchmark_out=" + out_file,
                                   "--benchmark_out_format=json",
                                   std::string("--benchmark_min_time=") + min_time};
  if (!args.filter.empty()) argv.push_back("--benchmark_filter=" + args.filter);
  spdlog::info("running {} into {}", binary, out_file);
  const int status = run_program(argv);
  if (status != 0) {
    spdlog::error("{} failed ({})", binary,
                  status < 0 ? "could not start" : "exit status " + std::to_string(status));
    return kExitRunFailed;
  }
  std::cout << "Benchmarks: " << out_file << " (Google Benchmark JSON)\n";
  return kExitOk;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Run the micro-benchmarks (one family per seed-004 tip, data path, BLAS threads, harness "
      "overhead) and write Google Benchmark JSON");
  bench->add_option("--filter", args->filter,
                    "Regular expression over benchmark names (default: all)");
  bench->add_option("--out", args->out_dir, "Output directory (default reports/bench-<timestamp>)");
  bench->add_option("--min-time", args->min_time, "Minimum seconds per benchmark (default 0.5)")
      ->check(CLI::PositiveNumber);

  return {bench, [args] { return bench_command(*args); }};
}

}  // namespace crossover
