// crossover: when does the GPU beat the CPU? main only wires the command line to the commands.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "runner/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "crossover: measures when the GPU beats the CPU for training workloads, from a JSON grid."};
  app.set_version_flag("--version", std::string("crossover ") + CROSSOVER_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // -v and -q work after the subcommand too
  bool verbose = false;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbose, "Log debug detail on stderr");
  app.add_flag("-q,--quiet", quiet, "Log only warnings and errors on stderr");

  crossover::RunArgs run_args;
  CLI::App* run =
      app.add_subcommand("run", "Run every cell of a grid and write results and reports");
  run->add_option("grid", run_args.grid, "Grid file (JSON)")->required();
  run->add_option("--out", run_args.out_dir,
                  "Results directory (default reports/<grid name>-<timestamp>)");
  run->add_option("--data-dir", run_args.data_dir, "Where the data sets are (default data)");
  run->add_option("--compare", run_args.compare,
                  "AXIS=BASELINE:CONTENDER for the crossover analysis (default device=cpu:cuda)");
  run->add_flag("--dry-run", run_args.dry_run,
                "List the cells that would run or be skipped, and run nothing");

  crossover::ReportArgs report_args;
  CLI::App* report = app.add_subcommand("report",
                                        "Regenerate report.md, report.html, results.csv and "
                                        "summary.json from a results file, comparing any axis");
  report->add_option("results", report_args.results, "results.jsonl, or the directory holding it")
      ->required();
  report->add_option("--out", report_args.out_dir,
                     "Output directory (default: the results' directory)");
  report->add_option("--compare", report_args.compare,
                     "AXIS=BASELINE:CONTENDER, e.g. device=cpu:cuda (default), threads=1:0, "
                     "loader=dataloader:tensor");

  std::string validate_grid;
  CLI::App* validate =
      app.add_subcommand("validate", "Check a grid and report every problem; runs nothing");
  validate->add_option("grid", validate_grid, "Grid file (JSON)")->required();

  std::string list_data_dir = "data";
  CLI::App* list = app.add_subcommand("list", "List workloads, devices and the data sets found");
  list->add_option("--data-dir", list_data_dir, "Where the data sets are (default data)");

  crossover::BenchArgs bench_args;
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Run the micro-benchmarks (one family per seed-004 tip, data path, BLAS threads, harness "
      "overhead) and write Google Benchmark JSON");
  bench->add_option("--filter", bench_args.filter,
                    "Regular expression over benchmark names (default: all)");
  bench->add_option("--out", bench_args.out_dir,
                    "Output directory (default reports/bench-<timestamp>)");
  bench
      ->add_option("--min-time", bench_args.min_time, "Minimum seconds per benchmark (default 0.5)")
      ->check(CLI::PositiveNumber);

  bool env_json = false;
  CLI::App* env =
      app.add_subcommand("env", "Describe the machine and libraries (BLAS, threads, CUDA, GPUs)");
  env->add_flag("--json", env_json, "Print the full record as JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  auto logger = spdlog::stderr_color_mt("crossover");
  logger->set_pattern("%^%l%$: %v");
  logger->set_level(verbose ? spdlog::level::debug
                    : quiet ? spdlog::level::warn
                            : spdlog::level::info);
  spdlog::set_default_logger(logger);

  if (*run) return crossover::run_command(run_args);
  if (*report) return crossover::report_command(report_args);
  if (*validate) return crossover::validate_command(validate_grid);
  if (*list) return crossover::list_command(list_data_dir);
  if (*bench) return crossover::bench_command(bench_args);
  return crossover::env_command(env_json);
}
