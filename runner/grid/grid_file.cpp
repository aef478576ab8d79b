#include "runner/grid/grid_file.hpp"

#include <unistd.h>

#include <cctype>
#include <filesystem>

#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "runner/grid/grid_error.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// Whether `text` begins, after white space, with `prefix` in any case.
bool starts_with_word(const std::string& text, const std::string& prefix) {
  std::size_t at = 0;
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  if (text.size() - at < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != prefix[i]) return false;
  return true;
}

// What a JSON object is, by the keys only that kind of file has; nothing for none of them.
Found known_json_kind(const nlohmann::json& root) {
  const auto has = [&](const char* key) { return root.contains(key); };
  if (has("crossover_revision") && has("recorded_at"))
    return Problem(
        "a run's env.json (its machine record), not a grid: the grid.json beside it is the "
        "grid that run ran");
  if (has("comparisons") && has("cells") && has("bounds"))
    return Problem(
        "a run's summary.json, not a grid: the grid.json beside it is the grid that run ran");
  if (has("cpu") && has("provenance"))
    return Problem(
        "a machine profile (crossover profile --out), not a grid: give it to run --profile, "
        "or to --predict cuda=FILE");
  if (has("runs") && has("cells") && has("format"))
    return Problem("a history (crossover history --out), not a grid");
  if (has("cell") && has("workload") && has("status"))
    return Problem("one cell's result (a line of results.jsonl), not a grid");
  return std::nullopt;
}

}  // namespace

Found not_a_grid(const std::string& text) {
  if (text.rfind("PK\x03\x04", 0) == 0)
    return Problem(
        "a zip archive (torch.jit.save writes a TorchScript model as one), not a grid: name a "
        "model in a grid's experiment, {\"workload\": \"torchscript\", \"settings\": "
        "{\"model\": \"FILE\", \"input_shape\": [...], \"classes\": N}} as "
        "configs/torchscript-example.json does");
  if (text.rfind("\x1f\x8b", 0) == 0)
    return Problem("a gzip file, not a grid (a grid is JSON text)");
  if (starts_with_word(text, "<!doctype") || starts_with_word(text, "<html"))
    return Problem(
        "an HTML file (a run's report.html?), not a grid: the grid.json beside a run's "
        "reports is the grid it ran");
  const auto root = nlohmann::json::parse(text, nullptr, false);
  if (!root.is_discarded()) return root.is_object() ? known_json_kind(root) : std::nullopt;
  // Several JSON objects, one per line: a run's results.
  const auto first = nlohmann::json::parse(text.substr(0, text.find('\n')), nullptr, false);
  if (!first.is_discarded() && first.is_object() && first.contains("cell") &&
      first.contains("workload"))
    return Problem(
        "a run's results (results.jsonl), not a grid: give its folder to report, compare or "
        "history; the grid.json beside it is the grid that run ran");
  return std::nullopt;
}

namespace {

// What the usual mistakes look like at the byte where the parser stopped: a trailing comma, single
// quotes, a comment. "" when it is none of them.
std::string json_mistake_hint(const std::string& text, std::size_t at) {
  if (at >= text.size()) return "";
  const char c = text[at];
  if (c == '\'') return " (JSON strings take double quotes: \"name\", not 'name')";
  if (c == '/' && at + 1 < text.size() && (text[at + 1] == '/' || text[at + 1] == '*'))
    return " (JSON has no comments: remove it; a grid's or experiment's \"description\" holds "
           "notes)";
  if (c == '}' || c == ']') {
    std::size_t before = at;
    while (before > 0 && std::isspace(static_cast<unsigned char>(text[before - 1]))) --before;
    if (before > 0 && text[before - 1] == ',')
      return " (a trailing comma: JSON allows none after the last item of a list or object)";
  }
  return "";
}

}  // namespace

Json parse_grid_json(const std::string& text, const std::string& file) {
  if (const Found kind = not_a_grid(text)) throw GridError(file, {{"(document)", kind->text}});
  // Nesting and duplicate keys first: the parser would keep one of two equal keys silently.
  if (const auto problem = check_json_shape(text)) {
    throw GridError(file, {{problem->path, problem->message}});
  }
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Turn the byte offset into the line and column an editor shows.
    std::size_t line = 1;
    std::size_t column = 1;
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    // nlohmann's text repeats the position ("parse error at line 1, column 76: syntax error ...").
    std::string detail = e.what();
    const auto syntax = detail.find(": ", detail.find("parse error"));
    if (syntax != std::string::npos) detail = detail.substr(syntax + 2);
    throw GridError(file, {{"(document)", "malformed JSON at line " + std::to_string(line) +
                                              ", column " + std::to_string(column) + ": " + detail +
                                              json_mistake_hint(text, end)}});
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double (1e400) is an out_of_range error without a position.
    std::string detail = e.what();
    const auto bracket = detail.find("] ");
    if (bracket != std::string::npos) detail = detail.substr(bracket + 2);
    throw GridError(file, {{"(document)", "malformed JSON: " + detail}});
  }
}

std::string read_grid_file(const std::string& path) {
  if (access(path.c_str(), R_OK) != 0)
    throw GridError(path, {{"(file)", "cannot open the grid file: no such file or not readable"}});
  std::error_code error;
  if (fs::is_directory(path, error) && fs::is_regular_file(fs::path(path) / kGridFile, error))
    throw GridError(path, {{"(file)", "a run's folder, not a grid file: the grid it ran is " +
                                          (fs::path(path) / kGridFile).string()}});
  try {
    return read_user_file(path, kMaxGridBytes, "a grid");
  } catch (const UserFileError& e) {
    throw GridError(path, {{"(file)", e.problem()}});
  }
}

}  // namespace crossover
