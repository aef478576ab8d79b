// crossover merge: the shards of one grid, run on several machines, become one run and its
// reports. Everything is checked before anything is written; no input folder is changed.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "core/file_writer.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/env.hpp"
#include "runner/merge.hpp"
#include "runner/output_dir.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out_dir;
  std::vector<std::string> compare = {"device=cpu:cuda"};
};

// Why the merged run cannot go to `out`: "" when it can.
std::string out_problem(const MergeArgs& args) {
  std::error_code error;
  for (const std::string& dir : args.dirs) {
    if (fs::exists(args.out_dir, error) && fs::equivalent(args.out_dir, dir, error))
      return "is one of the folders merged; give a new folder";
  }
  if (fs::exists(args.out_dir, error) && !fs::is_directory(args.out_dir, error))
    return "is a file, not a folder";
  if (holds_run(args.out_dir)) return "already holds a run; give a new folder";
  return "";
}

int merge_command(const MergeArgs& args) {
  const auto specs = compare_specs(args.compare);
  if (!specs) return kExitBadInput;
  std::error_code error;
  for (std::size_t i = 0; i < args.dirs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (fs::equivalent(args.dirs[i], args.dirs[j], error)) {
        spdlog::error("{} is given twice; nothing was merged", args.dirs[i]);
        return kExitBadInput;
      }
    }
  }
  // A shard still running holds its folder's lock: its results are not final.
  std::vector<std::unique_ptr<DirectoryLock>> locks;
  for (const std::string& dir : args.dirs) {
    if (!fs::exists(dir + "/.crossover.lock")) continue;
    try {
      locks.push_back(std::make_unique<DirectoryLock>(dir));
    } catch (const std::exception& e) {
      spdlog::error("{} is still running ({}); merge once it has finished. Nothing was merged", dir,
                    e.what());
      return kExitBadInput;
    }
  }
  MergedRun merged;
  try {
    merged = merge_runs(args.dirs);
  } catch (const MergeRefused& e) {
    spdlog::error("{}. Nothing was merged", e.what());
    return kExitBadInput;
  }
  if (const std::string problem = out_problem(args); !problem.empty()) {
    spdlog::error("--out {}: {}; nothing was merged", args.out_dir, problem);
    return kExitBadInput;
  }
  for (const auto& w : merged.warnings) spdlog::warn("{}", w);
  ReportContext context;
  try {
    fs::create_directories(args.out_dir);
    const DirectoryLock lock(args.out_dir);
    ResultFiles files(args.out_dir, merged.results);
    write_text_file(args.out_dir + "/grid.json", merged.grid_text);
    write_text_file(args.out_dir + "/env.json", json_text(merged.env, 2) + "\n");
    if (!merged.searches.empty())
      write_text_file(args.out_dir + "/searches.json", json_text(merged.searches, 2) + "\n");
    context.title = nlohmann::json::parse(merged.grid_text).value("name", "merged");
    context.environment = environment_summary(merged.env);
    context.warnings = environment_warnings(merged.env);
    context.warnings.insert(context.warnings.end(), merged.warnings.begin(), merged.warnings.end());
    context.searches = merged.searches;
    write_reports(args.out_dir, context, merged.results, *specs, merged.env);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitRunFailed;
  }
  std::cout << "Merged " << args.dirs.size() << " run(s), " << merged.results.size()
            << " cells, into " << args.out_dir
            << ": results.jsonl, env.json, grid.json, report.md, report.html, summary.json\n";
  return kExitOk;
}

}  // namespace

Command add_merge_command(CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* merge = app.add_subcommand(
      "merge",
      "Join the shards of one grid (run --shard K/N) into one run: one results.jsonl, each "
      "shard's environment kept, every report; refuses shards of different grids or overlapping "
      "parts, marks cells no shard ran `not run` (--resume of the merged run measures them)");
  merge->add_option("dirs", args->dirs, "The shards' run folders")->required();
  merge->add_option("--out", args->out_dir, "A new folder for the merged run")->required();
  merge
      ->add_option("--compare", args->compare,
                   "AXIS=BASELINE:CONTENDER for the crossover analysis (default device=cpu:cuda); "
                   "give it again for more comparisons")
      ->allow_extra_args(false)
      ->take_all();
  return {merge, [args] { return merge_command(*args); }};
}

}  // namespace crossover
