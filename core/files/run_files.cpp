#include "core/files/run_files.hpp"

#include <unistd.h>

#include <utility>

namespace crossover {
namespace {

std::vector<RunFile>& declared_files() {
  using W = RunFileWriter;
  static std::vector<RunFile> files = {
      {"report.md", W::kReports, "the report for a pull request", true},
      {"report.html", W::kReports, "the report with its charts, one self-contained page", true},
      {"summary.json", W::kReports, "the crossover statements and pairs, machine-readable", true},
      {kResultsFile, W::kSweep, "one line per cell, as each cell ends", true},
      {"results.csv", W::kReports, "the same columns as a table", true},
      {"gbench.json", W::kReports, "the cells in Google Benchmark's format", true},
      {kEnvFile, W::kSweep, "the machine, the libraries and the reference timings", true},
      {kGridFile, W::kSweep, "the grid as run", true},
      {"searches.json", W::kSweep, "each search's probes (a grid with a search)", false},
  };
  return files;
}

}  // namespace

const std::vector<RunFile>& run_folder_files() { return declared_files(); }

ScopedRunFile::ScopedRunFile(RunFile file)
    : ScopedEntry(declared_files(), std::move(file), "run file") {}

std::vector<std::string> run_file_names() {
  std::vector<std::string> names;
  for (const RunFile& f : run_folder_files()) names.push_back(f.name);
  return names;
}

std::vector<std::string> run_file_names(RunFileWriter writer) {
  std::vector<std::string> names;
  for (const RunFile& f : run_folder_files())
    if (f.writer == writer) names.push_back(f.name);
  return names;
}

std::vector<std::string> run_files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const RunFile& file : run_folder_files()) {
    if (file.always || access((dir + "/" + file.name).c_str(), F_OK) == 0)
      names.push_back(file.name);
  }
  return names;
}

std::string written_files_text(const std::string& dir, const std::vector<std::string>& names) {
  std::string text = dir;
  for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "/" : ", ") + names[i];
  return text;
}

}  // namespace crossover
