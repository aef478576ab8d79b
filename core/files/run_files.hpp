#pragma once
// The files of a run's folder, declared once: their names, who writes them and what they hold.
// The reporters, the output folder's rules (what --overwrite moves, what a verdict file may not
// replace), merge, the commands' "Reports:" lines and docs/outputs.md's table (a test compares
// them) read this list. No LibTorch.

#include <string>
#include <vector>

#include "core/files/scoped_entry.hpp"

namespace crossover {

/// The run files other code opens by name.
inline constexpr const char* kResultsFile = "results.jsonl";
inline constexpr const char* kEnvFile = "env.json";
inline constexpr const char* kGridFile = "grid.json";

/// DIR/NAME: the file NAME of the run in DIR.
inline std::string run_file(const std::string& dir, const char* name) { return dir + "/" + name; }

enum class RunFileWriter {
  kSweep,    ///< run writes it as the run goes (results, environment, grid, searches)
  kReports,  ///< a reporter writes it at the end; `report` writes it again
};

struct RunFile {
  std::string name;
  RunFileWriter writer = RunFileWriter::kReports;
  std::string holds;   ///< in a few words
  bool always = true;  ///< false: only some runs have it (searches.json: a grid with a search)
};

/// Every file of a run's folder, in the order the "Reports:" lines name them.
const std::vector<RunFile>& run_folder_files();

/// Declares one more file until this ends (a test's throw-away file: docs/development.md).
class ScopedRunFile : public ScopedEntry<RunFile> {
 public:
  explicit ScopedRunFile(RunFile file);
};

/// Their names; with `writer`, only the files that writer writes.
std::vector<std::string> run_file_names();
std::vector<std::string> run_file_names(RunFileWriter writer);

/// The names of run_folder_files() that are in DIR, in their order (an `always` file listed
/// unlooked): what `run` and `merge` name as written.
std::vector<std::string> run_files_in(const std::string& dir);

/// "DIR/report.md, report.html, ...": the files a command wrote into DIR, for its last line.
std::string written_files_text(const std::string& dir, const std::vector<std::string>& names);

}  // namespace crossover
