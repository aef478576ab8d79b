#pragma once
// The files of a run's folder, each declared once: its name, what it holds (docs/outputs.md's
// line) and, for a report, the renderer that makes its text. The reporters (report_files), the
// output folder's rules (what --overwrite moves, what a verdict file may not replace), merge, the
// commands' "Reports:" lines and `report --help` read this list; docs/outputs.md's table is
// compared with it by a test. No LibTorch.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/files/run_files.hpp"
#include "core/files/scoped_entry.hpp"
#include "core/records/environment.hpp"
#include "core/records/results.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/render/report_context.hpp"

namespace crossover {

/// A report's text from what the run's reporters are told: the context, the results, their
/// analysis and the run's env.json record (gbench.json's context).
using RenderRunFile =
    std::function<std::string(const ReportContext&, const std::vector<Result>&, const Analysis&,
                              const std::optional<Environment>&)>;

enum class RunFileWriter {
  kSweep,    ///< run writes it as the run goes (results, environment, grid, searches)
  kReports,  ///< a reporter writes it at the end; `report` writes it again
};

struct RunFile {
  std::string name;
  std::string holds;     ///< in a few words: docs/outputs.md's line
  bool always = true;    ///< false: only some runs have it (searches.json: a grid with a search)
  RenderRunFile render;  ///< a report's renderer; empty for a file the sweep writes
  RunFileWriter writer() const { return render ? RunFileWriter::kReports : RunFileWriter::kSweep; }
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

}  // namespace crossover
