// crossover: when does the GPU beat the CPU? main only wires the command line to the commands.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "runner/commands.hpp"
#include "runner/ddp.hpp"

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
                  "AXIS=BASELINE:CONTENDER for the crossover analysis (default device=cpu:cuda); "
                  "give it again for more comparisons, e.g. --compare device=cpu:cuda --compare "
                  "threads=1:0")
      ->allow_extra_args(false)
      ->take_all();
  run->add_option("--resume", run_args.resume,
                  "Continue an interrupted run in its directory: keep the cells already ok there "
                  "(same configuration, same environment), run the rest");
  run->add_flag("--overwrite", run_args.overwrite,
                "When --out already holds a run's results, move its files into "
                "OUT/previous-<time>/ and run; without it such a directory is refused")
      ->excludes("--resume");
  run->add_flag("--isolate", run_args.isolate,
                "Run every cell in a child process, so that a crash or a hang costs only that "
                "cell (the default for CUDA cells and cells with timeout_seconds)");
  run->add_flag("--dry-run", run_args.dry_run,
                "List the cells that would run or be skipped, and run nothing");

  crossover::ReportArgs report_args;
  CLI::App* report = app.add_subcommand("report",
                                        "Regenerate report.md, report.html, results.csv, "
                                        "summary.json and gbench.json from a results file, "
                                        "comparing any axis");
  report->add_option("results", report_args.results, "results.jsonl, or the directory holding it")
      ->required();
  report->add_option("--out", report_args.out_dir,
                     "Output directory (default: the results' directory)");
  report->add_option("--compare", report_args.compare,
                     "AXIS=BASELINE:CONTENDER, e.g. device=cpu:cuda (default), threads=1:0, "
                     "loader=dataloader:tensor; give it again for more comparisons")
      ->allow_extra_args(false)
      ->take_all();

  crossover::CompareArgs compare_args;
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Compare two runs of a grid cell by cell and decide, with statistics, whether the candidate "
      "regressed (exit 0: no regression, 1: regression, 2: bad input)");
  compare
      ->add_option("baseline", compare_args.baseline,
                   "Baseline results (results.jsonl or its directory); with --rerun, the baseline "
                   "crossover binary")
      ->required();
  compare
      ->add_option("candidate", compare_args.candidate,
                   "Candidate results; with --rerun, the candidate crossover binary")
      ->required();
  compare
      ->add_option(
          "--threshold", compare_args.threshold_percent,
          "Smallest change of the median, in percent, that can be a regression (default 5)")
      ->check(CLI::Range(0.0, 1000.0));
  compare->add_option("--alpha", compare_args.alpha,
                      "Significance level of the two-sided Mann-Whitney U test (default 0.05)");
  compare
      ->add_option("--metric", compare_args.metric,
                   "epoch (time per epoch, default), step (time per step) or throughput "
                   "(samples/s)")
      ->check(CLI::IsMember({"epoch", "step", "throughput"}));
  compare
      ->add_option("--fail-on", compare_args.fail_on,
                   "Exit 1 on: regression (default; a regression or a cell that failed in the "
                   "candidate), any-change (also an improvement) or none")
      ->check(CLI::IsMember({"regression", "any-change", "none"}));
  compare->add_option("--markdown", compare_args.markdown,
                      "Write a Markdown summary for a pull-request comment to this file");
  compare->add_option("--json", compare_args.json, "Write the verdict as JSON to this file");
  compare->add_option("--rerun", compare_args.rerun,
                      "Run BASELINE and CANDIDATE (two crossover binaries) on this grid, "
                      "alternately, --rounds times, then compare the pooled samples");
  compare->add_option("--rounds", compare_args.rounds, "Rounds for --rerun (default 3)")
      ->check(CLI::Range(1, 100));
  compare->add_option("--out", compare_args.out_dir,
                      "With --rerun: where the runs, compare.md and compare.json go (default "
                      "reports/compare-<timestamp>)");
  compare->add_option("--data-dir", compare_args.data_dir,
                      "With --rerun: where the data sets are (default data)");

  compare->add_option("--calibration", compare_args.calibration,
                      "A calibrate.json from `crossover calibrate` on this runner: with one run "
                      "per side, a regression must also stand out from the run-to-run spread it "
                      "measured");

  crossover::CalibrateArgs calibrate_args;
  CLI::App* calibrate = app.add_subcommand(
      "calibrate",
      "Measure how far compare can be trusted on this runner: --pairs A/A pairs of runs of GRID "
      "and as many with a planted slowdown (busy processes competing with the cells); writes "
      "calibrate.json (false-alarm and detection rates, run-to-run variation per cell, the "
      "smallest slowdown caught) for compare --calibration");
  calibrate->add_option("grid", calibrate_args.grid, "Grid file (JSON)")->required();
  calibrate->add_option("--pairs", calibrate_args.pairs, "Pairs of each kind (default 10)")
      ->check(CLI::Range(3, 100));
  calibrate
      ->add_option("--load", calibrate_args.load,
                   "Busy processes of the planted slowdown (default 2)")
      ->check(CLI::Range(1, 64));
  calibrate->add_option("--out", calibrate_args.out_dir,
                        "Where the runs, calibrate.json and calibrate.md go (default "
                        "reports/calibrate-<timestamp>)");
  calibrate->add_option("--data-dir", calibrate_args.data_dir,
                        "Where the data sets are (default data)");
  calibrate
      ->add_option("--threshold", calibrate_args.threshold_percent,
                   "The gate's threshold, as compare's (default 5)")
      ->check(CLI::Range(0.0, 1000.0));
  calibrate->add_option("--alpha", calibrate_args.alpha, "The gate's alpha (default 0.05)");
  calibrate
      ->add_option("--metric", calibrate_args.metric, "epoch (default), step or throughput")
      ->check(CLI::IsMember({"epoch", "step", "throughput"}));

  crossover::WorkerArgs worker_args;
  CLI::App* worker = app.add_subcommand(
      "worker",
      "Run one cell in this process, as `run` starts isolated cells and ddp ranks; for a ddp cell "
      "one rank, also under `torchrun --no-python` across machines (reads MASTER_ADDR, "
      "MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK)");
  CLI::Option* worker_cell =
      worker->add_option("--cell", worker_args.cell_file, "The cell, as one results.jsonl line");
  CLI::Option* worker_grid =
      worker->add_option("--grid", worker_args.grid, "Or a grid file, with --cell-index");
  worker
      ->add_option("--cell-index", worker_args.cell_index,
                   "The cell's index in --grid (as run --dry-run lists them)")
      ->needs(worker_grid);
  worker_cell->excludes(worker_grid);
  worker->add_option("--out", worker_args.out_file, "Where rank 0 writes the cell's result")
      ->required();
  worker->add_option("--data-dir", worker_args.data_dir, "Where the data sets are (default data)");
  worker->add_option("--timeout", worker_args.timeout_seconds,
                     "Seconds to wait for the other ranks in the rendezvous and in every "
                     "collective (default 120)");

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
  if (*compare) return crossover::compare_command(compare_args);
  if (*calibrate) return crossover::calibrate_command(calibrate_args);
  if (*worker) return crossover::worker_command(worker_args);
  if (*validate) return crossover::validate_command(validate_grid);
  if (*list) return crossover::list_command(list_data_dir);
  if (*bench) return crossover::bench_command(bench_args);
  return crossover::env_command(env_json);
}
