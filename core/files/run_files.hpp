#pragma once
// The names of the run folder's files that code opens by name, and how its commands name what
// they wrote. Every file of the folder, with what it holds and its writer, is declared once in
// reports/render/run_outputs.hpp. No LibTorch.

#include <string>
#include <vector>

namespace crossover {

/// The run files other code opens by name.
inline constexpr const char* kResultsFile = "results.jsonl";
inline constexpr const char* kEnvFile = "env.json";
inline constexpr const char* kGridFile = "grid.json";

/// DIR/NAME: the file NAME of the run in DIR.
inline std::string run_file(const std::string& dir, const char* name) { return dir + "/" + name; }

/// "DIR/report.md, report.html, ...": the files a command wrote into DIR, for its last line.
inline std::string written_files_text(const std::string& dir,
                                      const std::vector<std::string>& names) {
  std::string text = dir;
  for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "/" : ", ") + names[i];
  return text;
}

}  // namespace crossover
