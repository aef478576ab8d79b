#pragma once
// The subcommands of `crossover`. Each returns the process exit code: 0 success, 1 a run
// failed, 2 bad input or usage. Results go to stdout and files; diagnostics to the log (stderr).

#include <string>
#include <vector>

namespace crossover {

/// Arguments of `crossover run`.
struct RunArgs {
  std::string grid;
  std::string out_dir;  ///< "" = reports/<grid name>-<timestamp>
  std::string data_dir = "data";
  bool dry_run = false;
  bool isolate = false;  ///< every cell in a child process
  std::string resume;  ///< a results directory of an earlier run of this grid: run what is missing
  bool overwrite = false;  ///< move an earlier run's files in out_dir into previous-<time>/ first
  /// AXIS=BASELINE:CONTENDER comparisons for the crossover analysis, each reported in turn
  std::vector<std::string> compare = {"device=cpu:cuda"};
};

/// Arguments of `crossover report`.
struct ReportArgs {
  std::string results;  ///< a results.jsonl file or the directory holding it
  std::string out_dir;  ///< "" = the results' directory
  std::vector<std::string> compare = {"device=cpu:cuda"};  ///< as RunArgs::compare
};

/// Arguments of `crossover compare`.
struct CompareArgs {
  std::string baseline;   ///< results (file or directory); with `rerun`, a crossover binary
  std::string candidate;  ///< the same for the candidate
  double threshold_percent = 5.0;
  double alpha = 0.05;
  std::string metric = "epoch";
  std::string fail_on = "regression";
  std::string markdown;  ///< write the Markdown summary here ("" = not)
  std::string json;      ///< write the verdict file here ("" = not)
  std::string rerun;     ///< a grid: run both binaries on it, alternately, then compare
  int rounds = 3;        ///< with `rerun`: rounds of baseline and candidate runs
  std::string out_dir;   ///< with `rerun`: where the runs go (default reports/compare-<timestamp>)
  std::string data_dir = "data";
  std::string calibration;  ///< a calibrate.json for one-run comparisons ("" = none)
};

/// Arguments of `crossover calibrate`.
struct CalibrateArgs {
  std::string grid;
  int pairs = 10;      ///< A/A pairs, and as many pairs with a planted slowdown
  int load = 2;        ///< busy processes of the planted slowdown
  std::string out_dir;  ///< "" = reports/calibrate-<timestamp>
  std::string data_dir = "data";
  double threshold_percent = 5.0;  ///< the gate's settings, as compare's
  double alpha = 0.05;
  std::string metric = "epoch";
};

/// Arguments of `crossover bench`.
struct BenchArgs {
  std::string filter;     ///< a regular expression over benchmark names; "" runs them all
  std::string out_dir;    ///< "" = reports/bench-<timestamp>
  double min_time = 0.5;  ///< seconds per benchmark
};

int run_command(const RunArgs& args);
int report_command(const ReportArgs& args);
int compare_command(const CompareArgs& args);
int calibrate_command(const CalibrateArgs& args);
int bench_command(const BenchArgs& args);
int validate_command(const std::string& grid);
int list_command(const std::string& data_dir);
int env_command(bool json);

}  // namespace crossover
