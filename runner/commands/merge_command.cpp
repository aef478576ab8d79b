// crossover merge: the shards of one grid, run on several machines, become one run and its
// reports. Everything is checked before anything is written; no input folder is changed (each is
// held with a shared lock, which writes nothing there), and --out is locked before it is checked,
// so two merges into one folder cannot both write.
#include <limits.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "core/files/file_writer.hpp"
#include "core/files/run_files.hpp"
#include "core/records/result_files.hpp"
#include "reports/gate/run_drift.hpp"
#include "reports/render/run_outputs.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/distributed/merge.hpp"
#include "runner/machine/env.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out_dir;
  std::vector<std::string> compare = {"device=cpu:cuda"};
};

// `path` with every link and `..` resolved as far as it exists, the rest appended: where a folder
// that may not exist yet would be, without a trailing slash. Never throws.
std::string resolved(const std::string& path) {
  std::error_code error;
  fs::path existing = fs::absolute(path, error).lexically_normal();
  std::vector<std::string> rest;  // the components that do not exist yet, innermost first
  while (!existing.empty() && existing != existing.root_path()) {
    char real[PATH_MAX];
    if (realpath(existing.c_str(), real) != nullptr) {
      existing = real;
      break;
    }
    if (!existing.filename().empty()) rest.push_back(existing.filename().string());
    existing = existing.parent_path();
  }
  std::string out = existing.string();
  for (auto it = rest.rbegin(); it != rest.rend(); ++it)
    out += (out.back() == '/' ? "" : "/") + *it;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// Why the inputs cannot be merged before they are read: a folder given twice. "" when none.
Found inputs_problem(const MergeArgs& args) {
  std::vector<std::pair<dev_t, ino_t>> seen;
  for (const std::string& dir : args.dirs) {
    struct stat info {};
    if (lstat(dir.c_str(), &info) != 0) continue;  // read_part says why
    const std::pair<dev_t, ino_t> id{info.st_dev, info.st_ino};
    if (std::find(seen.begin(), seen.end(), id) != seen.end())
      return Problem(dir + " is given twice");
    seen.push_back(id);
  }
  return std::nullopt;
}

// Why the merged run cannot go to --out: "" when it can. A link, a file, an input folder or a
// folder inside one, or a folder that holds any file merge writes.
Found out_problem(const MergeArgs& args) {
  if (Found problem = output_folder_problem(args.out_dir)) return problem;
  const std::string out = resolved(args.out_dir);
  for (const std::string& dir : args.dirs) {
    const std::string in = resolved(dir);
    if (out == in) return Problem("is one of the folders merged; give a new folder");
    if (out.rfind(in + "/", 0) == 0)
      return Problem("lies inside " + dir +
                     ", one of the folders merged; give a folder outside them");
  }
  std::vector<std::string> there;
  for (const std::string& name : run_file_names()) {
    struct stat info {};
    if (lstat((args.out_dir + "/" + name).c_str(), &info) == 0) there.push_back(name);
  }
  if (!there.empty())
    return Problem("already holds " + join(there) +
                   ", which merging would replace; give a new folder");
  return std::nullopt;
}

// The merged run's files and reports, into --out (locked and checked by the caller).
void write_merged(const MergeArgs& args, const MergedRun& merged,
                  const std::vector<CompareSpec>& specs) {
  ResultFiles files(args.out_dir, merged.results);
  write_text_file(run_file(args.out_dir, kGridFile), merged.grid_text);
  write_text_file(run_file(args.out_dir, kEnvFile),
                  json_text(environment_json(merged.env), 2) + "\n");
  if (!merged.searches.empty())
    write_text_file(args.out_dir + "/searches.json", json_text(merged.searches, 2) + "\n");
  ReportContext context;
  const auto grid = nlohmann::json::parse(merged.grid_text);
  context.title = grid.is_object() && grid.contains("name") && grid["name"].is_string()
                      ? grid["name"].get<std::string>()
                      : "merged";
  context.environment = environment_summary(merged.env);
  context.warnings = environment_warnings(merged.env);
  // What the reports open with (the machine's drift in each shard, a slow BLAS) is said here too,
  // as `report` says it; merged.warnings were said when the shards were read.
  for (const std::string& w : context.warnings) spdlog::warn("{}", w);
  context.drifted_cells = drifted_cell_indices(merged.env);
  context.band_validation = band_validation(merged.env);
  context.warnings.insert(context.warnings.end(), merged.warnings.begin(), merged.warnings.end());
  context.searches = merged.searches;
  write_reports(args.out_dir, context, merged.results, specs, merged.env);
}

int merge_command(const MergeArgs& args) {
  const auto specs = compare_specs(args.compare);
  if (const Found problem = inputs_problem(args)) {
    spdlog::error("{}; nothing was merged", problem->text);
    return kExitBadInput;
  }
  if (const Found problem = out_problem(args)) {
    spdlog::error("--out {}: {}; nothing was merged", args.out_dir, problem->text);
    return kExitBadInput;
  }
  // A shard still running holds its folder's lock: its results are not final.
  std::vector<std::unique_ptr<ReadingLock>> inputs;
  const MergedRun merged = or_exit(
      kExitBadInput,
      [&] {
        for (const std::string& dir : args.dirs) {
          struct stat info {};
          if (lstat(dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode))  // read_part refuses others
            inputs.push_back(std::make_unique<ReadingLock>(dir));
        }
        return merge_runs(args.dirs);
      },
      "", ". Nothing was merged");
  std::optional<DirectoryLock> lock;
  or_exit(
      kExitBadInput,
      [&] {
        fs::create_directories(args.out_dir);
        lock.emplace(args.out_dir);
      },
      "--out " + args.out_dir + ": ", "; nothing was merged");
  // Checked again under the lock: another merge may have written there in the meantime.
  if (const Found problem = out_problem(args)) {
    spdlog::error("--out {}: {}; nothing was merged", args.out_dir, problem->text);
    return kExitBadInput;
  }
  for (const auto& w : merged.warnings) spdlog::warn("{}", w);
  or_exit(kExitRunFailed, [&] { write_merged(args, merged, specs); });
  std::cout << "Merged " << args.dirs.size() << " run(s), " << merged.results.size()
            << " cells: " << written_files_text(args.out_dir, run_files_in(args.out_dir)) << "\n";
  return kExitOk;
}

}  // namespace

Command add_merge_command(CLI::App& subcommand) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* merge = &subcommand;
  merge->add_option("dirs", args->dirs, "The shards' run folders")->required();
  add_output_option(*merge, "--out", args->out_dir, "A new folder for the merged run",
                    OutputKind::kFolder)
      ->required();
  merge
      ->add_option("--compare", args->compare,
                   "AXIS=BASELINE:CONTENDER for the crossover analysis (default device=cpu:cuda); "
                   "give it again for more comparisons")
      ->allow_extra_args(false)
      ->take_all();
  return {merge, [args] { return merge_command(*args); }};
}

}  // namespace crossover
