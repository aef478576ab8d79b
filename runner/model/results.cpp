#include "runner/model/results.hpp"

#include <spdlog/spdlog.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <set>
#include <stdexcept>

#include "runner/model/results_csv.hpp"
#include "runner/model/user_files.hpp"

namespace crossover {
namespace {}  // namespace

nlohmann::ordered_json result_to_json(const Result& r) {
  nlohmann::ordered_json j;
  j["cell"] = r.cell.index;  // its place in the grid: reports cite cells by it
  j.update(cell_config_json(r.cell));
#define CROSSOVER_WRITE_FIELD(type, name) j[#name] = r.name;
  CROSSOVER_RESULT_FIELDS(CROSSOVER_WRITE_FIELD)
#undef CROSSOVER_WRITE_FIELD
  return j;
}

Result result_from_json(const nlohmann::json& j) {
  Result r;
  r.cell = cell_from_json(j);
  // Fields added after the first results format are optional, so older results stay readable
  // (a baseline stored by an earlier version, for `compare`); every other field is required.
  static const std::set<std::string> added_later = {"step_seconds_samples", "allreduce_seconds",
                                                    "rank_epoch_seconds", "parameter_digests"};
#define CROSSOVER_READ_FIELD(type, name) \
  if (j.contains(#name) || added_later.count(#name) == 0) r.name = json_as<type>(j.at(#name));
  CROSSOVER_RESULT_FIELDS(CROSSOVER_READ_FIELD)
#undef CROSSOVER_READ_FIELD
  return r;
}

std::vector<Result> read_results(const std::string& path) {
  if (access(path.c_str(), R_OK) != 0)
    throw std::runtime_error(path + ": cannot open the results file");
  const std::string text = read_user_file(path, kMaxResultsBytes, "a results file");
  std::vector<Result> results;
  std::size_t number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    const bool complete = end != std::string::npos;
    const std::string line = text.substr(start, complete ? end - start : std::string::npos);
    start = complete ? end + 1 : text.size();
    ++number;
    if (line.empty()) continue;
    try {
      if (const auto problem = check_json_shape(line)) {
        throw std::runtime_error(problem->path + ": " + problem->message);
      }
      results.push_back(result_from_json(nlohmann::json::parse(line)));
    } catch (const std::exception& e) {
      // A last line without its newline was cut off mid-write (a crash, a power loss): every
      // result before it is intact, so it is dropped with a warning rather than failing the file.
      if (!complete) {
        spdlog::warn(
            "{}:{}: the last line is incomplete (cut off while it was written) and is "
            "ignored; the {} result(s) before it are intact",
            path, number, results.size());
        break;
      }
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": not a result line: " + e.what());
    }
  }
  return results;
}

ResultFiles::ResultFiles(const std::string& directory)
    : directory_(directory),
      jsonl_(directory + "/results.jsonl", std::ios::trunc),
      csv_(directory + "/results.csv", std::ios::trunc) {
  if (!jsonl_ || !csv_) {
    throw std::runtime_error(directory + ": cannot create results.jsonl and results.csv there");
  }
  csv_ << csv_header() << std::flush;
}

void ResultFiles::append(const Result& result) {
  errno = 0;
  jsonl_ << result_to_json(result).dump() << '\n' << std::flush;
  csv_ << csv_row(result) << std::flush;
  if (!jsonl_ || !csv_) {
    const std::string why = errno != 0 ? std::strerror(errno) : "write error";
    throw std::runtime_error(directory_ + "/" + (!jsonl_ ? "results.jsonl" : "results.csv") +
                             ": cannot write a result (" + why + ")");
  }
}

std::uint64_t bytes_needed(std::size_t cells) {
  // A result line is a few kilobytes (every sample is kept); the reports add about as much per
  // cell again, plus a fixed part (the HTML page's script and styles).
  return (std::uint64_t{1} << 20) + std::uint64_t{64 << 10} * cells;
}

std::string space_problem(const std::string& directory, std::size_t cells) {
  struct statvfs info {};
  if (statvfs(directory.c_str(), &info) != 0) return "";  // unknown: the writes will tell
  const std::uint64_t free_bytes = std::uint64_t{info.f_bavail} * info.f_frsize;
  const std::uint64_t needed = bytes_needed(cells);
  if (free_bytes >= needed) return "";
  return directory + ": only " + std::to_string(free_bytes >> 10) +
         " KiB free on its file system; the results and reports of " + std::to_string(cells) +
         " cells need about " + std::to_string(needed >> 10) +
         " KiB. Free some space or choose another --out";
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.flush();
  if (!out) throw std::runtime_error(path + ": cannot write the file");
}

}  // namespace crossover
