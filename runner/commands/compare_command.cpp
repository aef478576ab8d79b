// crossover compare: did the candidate regress? Cell by cell, with statistics.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <tuple>

#include "core/files/file_writer.hpp"
#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "reports/gate/regression.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct CompareArgs {
  std::string baseline;   ///< results (file or directory); with `rerun`, a crossover binary
  std::string candidate;  ///< the same for the candidate
  double threshold_percent = -1.0;  ///< -1: the metric's default (default_threshold_percent)
  double alpha = 0.05;
  double assumed_spread_percent = 100.0 * kAssumedRunSpread;
  std::string metric = "epoch";
  std::string fail_on = "regression";
  std::string markdown;  ///< write the Markdown summary here ("" = not)
  std::string json;      ///< write the verdict file here ("" = not)
  std::string rerun;     ///< a grid: run both binaries on it, alternately, then compare
  int rounds = 3;        ///< with `rerun`: rounds of baseline and candidate runs
  std::string out_dir;   ///< with `rerun`: where the runs go (default runs/compare-<timestamp>)
  std::string data_dir = "data";
  std::string calibration;           ///< a calibrate.json for one-run comparisons ("" = none)
  std::vector<std::string> require;  ///< --require DEVICE: measured on both sides
};

// Each binary is crossover: `--version` answers "crossover ..." within a minute; throws
// std::invalid_argument naming the one that is not.
void check_binaries(const std::string (&binaries)[2], const char* const (&sides)[2]) {
  for (int side = 0; side < 2; ++side) {
    const std::string answer =
        (fs::temp_directory_path() / ("crossover-version-" + std::to_string(getpid()))).string();
    const int status = run_program({binaries[side], "--version"}, answer, {}, 60.0);
    std::string said;  // nothing read: not crossover, said below
    (void)problem_of([&] { said = read_user_file(answer, 4096, "a --version answer"); });
    std::error_code ignored;
    fs::remove(answer, ignored);
    if (status != kExitOk || said.rfind("crossover", 0) != 0)
      throw std::invalid_argument(
          "--rerun: the " + std::string(sides[side]) + " " + binaries[side] +
          (status == kChildTimedOut ? " did not answer --version within 60 s"
                                    : " did not answer --version with \"crossover ...\"") +
          ": it is not a crossover binary");
  }
}

// Runs the baseline and the candidate binary on one grid `rounds` times, alternating which goes
// first (AB BA AB ...), so that a slow drift of the machine weighs on both alike; each side's
// rounds are pooled (compare_runs pools cells that occur several times). A binary that rejects
// the grid throws std::invalid_argument; one that crashes, std::runtime_error; a signal, a
// CommandError with its exit code.
std::pair<RunRecord, RunRecord> rerun(const CompareArgs& args, const std::string& out_dir) {
  const std::string binaries[2] = {args.baseline, args.candidate};
  const char* sides[2] = {"baseline", "candidate"};
  for (int side = 0; side < 2; ++side) {
    if (access(binaries[side].c_str(), X_OK) != 0 || fs::is_directory(binaries[side])) {
      throw std::invalid_argument("--rerun: the " + std::string(sides[side]) + " " +
                                  binaries[side] + " is not an executable crossover binary");
    }
  }
  if (!fs::is_regular_file(args.rerun))
    throw std::invalid_argument("--rerun: grid " + args.rerun + " does not exist");
  check_binaries(binaries, sides);
  // The rounds' runs never replace an earlier comparison's (each would refuse its --out).
  for (const char* side : sides) {
    const std::string first = out_dir + "/" + side + "/round-1";
    if (holds_run(first)) {
      throw std::invalid_argument(out_dir + " already holds the runs of a comparison (" + first +
                                  "); give another --out");
    }
  }
  RunRecord runs[2];
  const int total = 2 * args.rounds;
  double seconds_so_far = 0.0;
  for (int round = 1; round <= args.rounds; ++round) {
    for (int k = 0; k < 2; ++k) {
      const int side = round % 2 == 1 ? k : 1 - k;
      const std::string dir = out_dir + "/" + sides[side] + "/round-" + std::to_string(round);
      fs::create_directories(dir);
      // The time left is learned from the runs already done: each side runs the same grid.
      const int done = 2 * (round - 1) + k;
      const std::string left = done == 0
                                   ? "the time left is known after the first run"
                                   : "about " + clock_text(seconds_so_far / done * (total - done)) +
                                         " left, the runs so far took " +
                                         clock_text(seconds_so_far / done) + " each";
      spdlog::info("run {}/{} (round {}/{}, {}: {}) into {}; {}", done + 1, total, round,
                   args.rounds, sides[side], binaries[side], dir, left);
      // Each run's cells show their own progress lines; its terminal summary goes beside its
      // results: compare's stdout is its verdict.
      const auto started = std::chrono::steady_clock::now();
      const int status = run_program(
          {binaries[side], "run", args.rerun, "--out", dir, "--data-dir", args.data_dir},
          dir + "/stdout.txt");
      seconds_so_far +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (interrupted.load() > 0)
        throw CommandError(128 + interrupted.load(), "stopped during run " +
                                                         std::to_string(done + 1) + " of " +
                                                         std::to_string(total) + " (" + dir +
                                                         ", which kept the cells it finished)");
      if (status == kExitBadInput)
        throw std::invalid_argument(binaries[side] + " rejected " + args.rerun +
                                    " (exit 2); run it alone to see why");
      if (status != kExitOk && status != kExitRunFailed)
        throw std::runtime_error(binaries[side] + " run " + args.rerun + " ended with status " +
                                 std::to_string(status));
      RunRecord one = load_run(dir);
      runs[side].results.insert(runs[side].results.end(), one.results.begin(), one.results.end());
      if (round == 1) runs[side].environment = one.environment;
    }
  }
  for (int side = 0; side < 2; ++side) {
    runs[side].label = binaries[side] + " (" + std::to_string(args.rounds) + " rounds in " +
                       out_dir + "/" + sides[side] + ")";
  }
  return {std::move(runs[0]), std::move(runs[1])};
}

// Whether two paths name the same existing file (a results.jsonl, or the one in a directory).
bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;  // a path that does not exist is no other file
  return fs::equivalent(a, fs::is_directory(b) ? run_file(b, kResultsFile) : b, error);
}

// Why compare may not write its verdict to `file` ("" when it may): never over what it judges, nor
// any run's own files.
Found verdict_file_problem(const std::string& file, const CompareArgs& args) {
  // The sides' results by any name are named below, with their own words.
  std::vector<std::string> inputs = {args.calibration, args.rerun};
  if (args.rerun.empty()) {
    for (const std::string& side : {args.baseline, args.candidate})
      inputs.push_back(run_file(side, kEnvFile));
  } else {
    inputs.insert(inputs.end(), {args.baseline, args.candidate});  // the two binaries
  }
  if (Found problem = output_file_problem(file, inputs)) return problem;
  for (const std::string& input : {args.baseline, args.candidate}) {
    if (args.rerun.empty() && same_file(file, input))
      return Problem(file + " is the results file being compared; write into another file");
  }
  return std::nullopt;
}

// --rerun's rounds into --out (checked: no link), and the verdict's files defaulting into it,
// asked again once the rounds exist; throws as rerun does.
std::pair<RunRecord, RunRecord> rerun_into_out(const CompareArgs& args, std::string& markdown,
                                               std::string& json) {
  RunRecord baseline, candidate;
  if (const Found problem =
          args.out_dir.empty() ? std::nullopt : output_folder_problem(args.out_dir))
    throw std::invalid_argument("--out " + args.out_dir + " " + problem->text);
  const std::string out_dir =
      args.out_dir.empty() ? create_unique_directory("runs/compare-" + timestamp()) : args.out_dir;
  std::tie(baseline, candidate) = rerun(args, out_dir);
  if (markdown.empty()) markdown = out_dir + "/compare.md";
  if (json.empty()) json = out_dir + "/compare.json";
  // Asked again now that the rounds' folders exist: --json or --markdown may name a file of
  // a round just measured, which must not be written over (the rounds stay where they are).
  for (const std::string& file : {markdown, json})
    if (const Found problem = verdict_file_problem(file, args))
      throw std::invalid_argument(problem->text + "; the rounds measured are kept in " + out_dir +
                                  ": compare them with `crossover compare " + out_dir +
                                  "/baseline/round-1 " + out_dir + "/candidate/round-1`");
  return {std::move(baseline), std::move(candidate)};
}

int compare_command(const CompareArgs& args) {
  const auto metric = parse_word<GateMetric>(args.metric);
  const double threshold = args.threshold_percent >= 0.0 || !metric
                               ? args.threshold_percent
                               : default_threshold_percent(*metric);
  const RegressionOptions options =
      gate_options(threshold, args.alpha, args.metric, args.assumed_spread_percent, args.fail_on);
  // Before anything is read or run: a refused output must not cost the reruns' minutes.
  for (const std::string& file : {args.markdown, args.json}) {
    if (const Found problem = file.empty() ? std::nullopt : verdict_file_problem(file, args)) {
      spdlog::error("{}; nothing was written", problem->text);
      return kExitBadInput;
    }
  }
  RunRecord baseline, candidate;
  std::string markdown = args.markdown, json = args.json;
  if (args.rerun.empty()) {
    baseline = or_exit(kExitBadInput, [&] { return load_run(args.baseline); });
    candidate = or_exit(kExitBadInput, [&] { return load_run(args.candidate); });
  } else {  // a grid or a binary refused is bad input; a run that broke, a failed one
    std::tie(baseline, candidate) = or_exit<std::invalid_argument>(kExitBadInput, [&] {
      return or_exit<std::runtime_error>(kExitRunFailed,
                                         [&] { return rerun_into_out(args, markdown, json); });
    });
  }

  std::optional<Calibration> calibration;
  if (!args.calibration.empty()) {
    calibration = or_exit(
        kExitBadInput,
        [&] {
          return calibration_from_json(
              read_json_file(args.calibration, kMaxRecordBytes, "a calibrate.json"),
              args.calibration);
        },
        "--calibration " + args.calibration + ": ");
  }
  RegressionReport report =
      compare_records(baseline, candidate, options, calibration ? &*calibration : nullptr);
  if (report.cells.empty()) {
    spdlog::error(
        "no cell of {} has the configuration of a cell of {}: are they runs of the same grid?",
        baseline.label, candidate.label);
    return kExitBadInput;
  }
  // The warnings first, then the summary whole (the logger flushes standard output before each
  // message, so with 2>&1 neither lands inside the other).
  for (const auto& d : report.environment) {
    if (d.unfair) spdlog::warn("the runs differ in {}: {} vs {}", d.what, d.baseline, d.candidate);
  }
  std::cout << wrap_prose(render_regression_text(report), output_columns()) << std::flush;
  or_exit(kExitRunFailed, [&] {  // a full disk, a folder gone: exit 1, as run and report
    if (!markdown.empty()) write_text_file(markdown, render_regression_markdown(report));
    if (!json.empty()) write_text_file(json, json_text(regression_json(report), 2) + "\n");
  });
  std::vector<std::string> written;
  for (const auto& file : {markdown, json}) {
    if (!file.empty()) written.push_back(file);
  }
  if (!written.empty()) std::cout << "Written: " << join(written) << "\n";
  const bool required = required_devices_measured(args.require, baseline.results, "the baseline") &
                        required_devices_measured(args.require, candidate.results, "the candidate");
  return report.fails() || !required ? kExitRunFailed : kExitOk;
}

}  // namespace

Command add_compare_command(CLI::App& subcommand) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* compare = &subcommand;
  compare
      ->add_option("baseline", args->baseline,
                   "Baseline results (results.jsonl or its directory); with --rerun, the baseline "
                   "crossover binary")
      ->required();
  compare
      ->add_option("candidate", args->candidate,
                   "Candidate results; with --rerun, the candidate crossover binary")
      ->required();
  compare
      ->add_option(
          "--threshold", args->threshold_percent,
          "Smallest change of the median, in percent, that can be a regression (default 5; "
          "0.5 for --metric instructions and cycles)")
      ->check(finite_range(0.0, 1000.0));
  compare->add_option("--alpha", args->alpha,
                      "Significance level (default 0.05) of the two-sided test: Mann-Whitney U on "
                      "the epochs with one run per side, a paired t on the rounds' log ratios with "
                      "several (--rerun)");
  compare
      ->add_option("--assumed-spread", args->assumed_spread_percent,
                   "One run per side without --calibration: how much one run's median is "
                   "assumed to vary between processes, in percent (default 4); a change must "
                   "stand out from it. 0: the within-run test alone")
      ->check(finite_range(0.0, 1000.0));
  compare
      ->add_option("--metric", args->metric,
                   "epoch (time per epoch, default), step (time per step), throughput "
                   "(samples/s), energy (joules per epoch, where both runs measured it), "
                   "instructions or cycles (counted cells: the `count` key)")
      ->check(CLI::IsMember(word_list<GateMetric>()));
  compare
      ->add_option("--fail-on", args->fail_on,
                   "Exit 1 on: regression (default; a regression or a cell that failed in the "
                   "candidate), any-change (also an improvement), inconclusive (also a cell the "
                   "evidence could not decide) or none")
      ->check(CLI::IsMember(word_list<FailOn>()));
  add_output_option(*compare, "--markdown", args->markdown,
                    "Write a Markdown summary for a pull-request comment to this file",
                    OutputKind::kFile);
  add_output_option(*compare, "--json", args->json, "Write the verdict as JSON to this file",
                    OutputKind::kFile);
  compare->add_option("--rerun", args->rerun,
                      "Run BASELINE and CANDIDATE (two crossover binaries) on this grid, "
                      "interleaved (AB BA AB ...), --rounds times, then compare with the round as "
                      "the unit (a paired t on each round's log ratio of the run medians)");
  compare
      ->add_option("--rounds", args->rounds,
                   "Rounds for --rerun (default 3; 5 or what `crossover calibrate` says this "
                   "runner needs, when the verdicts are inconclusive)")
      ->check(CLI::Range(1, 100));
  add_output_option(*compare, "--out", args->out_dir,
                    "With --rerun: where the runs, compare.md and compare.json go (default "
                    "runs/compare-<timestamp>)",
                    OutputKind::kFolder);
  add_data_dir_option(*compare, args->data_dir, "With --rerun: ");

  compare->add_option("--calibration", args->calibration,
                      "A calibrate.json from `crossover calibrate` on this runner: with one run "
                      "per side, a regression must also stand out from the run-to-run spread it "
                      "measured");
  compare
      ->add_option("--require", args->require,
                   "DEVICE (cpu or cuda): exit 1, naming it, when either run measured none of its "
                   "cells (a skipped or predicted cell is not measured). Give it again for each "
                   "device")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->allow_extra_args(false)
      ->take_all();

  return {compare, [args] { return compare_command(*args); }};
}

}  // namespace crossover
