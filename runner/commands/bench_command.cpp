// crossover bench: the Google Benchmark micro-benchmarks beside this binary.
#include <regex.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/files/file_writer.hpp"
#include "core/files/user_files.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/execution/launch.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct BenchArgs {
  std::string filter;     ///< a regular expression over benchmark names; "" runs them all
  std::string out_dir;    ///< "" = runs/bench-<timestamp>
  double min_time = 0.5;  ///< seconds per benchmark
};

// The benchmark binary, built beside crossover (build/bench/crossover_bench) or installed next
// to it. In a build folder that lacks it (scripts/demo.sh builds crossover alone), it is built
// there first, saying so. "" after saying why there is none.
std::string bench_binary() {
  const fs::path self = fs::path(self_executable()).parent_path();
  const auto found = [&]() -> std::string {
    for (const fs::path& candidate : {self / "bench" / "crossover_bench", self / "crossover_bench"})
      if (fs::exists(candidate)) return candidate.string();
    return "";
  };
  if (std::string binary = found(); !binary.empty()) return binary;
  if (!fs::exists(self / "CMakeCache.txt")) {
    spdlog::error(
        "crossover_bench not found beside {}; build it (scripts/build.sh crossover_bench)",
        self.string());
    return "";
  }
  spdlog::warn("crossover_bench is not built in {}: building it now (minutes, once)",
               self.string());
  const int status =
      run_program({"cmake", "--build", self.string(), "--target", "crossover_bench"});
  if (std::string binary = found(); status == 0 && !binary.empty()) return binary;
  spdlog::error(
      "could not build crossover_bench in {} ({}); configured without it? "
      "cmake -DCROSSOVER_ENABLE_BENCH=ON {}, then scripts/build.sh crossover_bench",
      self.string(), status < 0 ? "cmake could not start" : "cmake failed", self.string());
  return "";
}

int bench_command(const BenchArgs& args) {
  // Google Benchmark takes the filter as a POSIX extended regular expression; one it cannot
  // compile would run nothing and leave an empty file.
  // A leading '-' negates the filter.
  const std::string pattern =
      !args.filter.empty() && args.filter[0] == '-' ? args.filter.substr(1) : args.filter;
  regex_t compiled;
  if (const int error = regcomp(&compiled, pattern.c_str(), REG_EXTENDED | REG_NOSUB); error != 0) {
    char why[256];
    regerror(error, &compiled, why, sizeof why);
    spdlog::error("--filter '{}': not a regular expression ({}); e.g. --filter 'Data|Blas'",
                  args.filter, why);
    return kExitBadInput;
  }
  regfree(&compiled);
  const std::string binary = bench_binary();
  if (binary.empty()) return kExitBadInput;
  std::string out_dir = args.out_dir;
  or_exit(
      kExitBadInput,
      [&] {
        if (out_dir.empty()) {
          out_dir = create_unique_directory("runs/bench-" + timestamp());
        } else {
          fs::create_directories(out_dir);
        }
      },
      "cannot create " + (out_dir.empty() ? std::string("reports/") : out_dir) + ": ");
  const std::string out_file = out_dir + "/bench.json";
  // Google Benchmark writes the file itself, following links: a planted one is refused here.
  or_exit<std::runtime_error>(kExitBadInput, [&] { refuse_link_or_special(out_file); });
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
  // A filter that matched nothing leaves a file without benchmarks: that is no measurement.
  const std::size_t measured = or_exit(
      kExitRunFailed,
      [&] {
        const auto written =
            nlohmann::json::parse(read_json_text(out_file, kMaxResultsBytes, "a benchmark file"));
        return written.value("benchmarks", nlohmann::json::array()).size();
      },
      binary + " wrote no readable results (", ")");
  if (measured == 0) {
    spdlog::error("--filter '{}' matched no benchmark; nothing was measured", args.filter);
    return kExitBadInput;
  }
  std::cout << "Benchmarks: " << out_file << " (Google Benchmark JSON, " << measured
            << " results)\n";
  return kExitOk;
}

}  // namespace

Command add_bench_command(CLI::App& subcommand) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* bench = &subcommand;
  bench->add_option("--filter", args->filter,
                    "Regular expression over benchmark names (default: all)");
  add_output_option(*bench, "--out", args->out_dir,
                    "Output directory (default runs/bench-<timestamp>)", OutputKind::kFolder);
  bench->add_option("--min-time", args->min_time, "Minimum seconds per benchmark (default 0.5)")
      ->check(finite_range(1e-3, 86400.0));

  return {bench, [args] { return bench_command(*args); }};
}

}  // namespace crossover
