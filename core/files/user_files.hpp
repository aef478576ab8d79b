#pragma once
// Reading files that users hand in (grids, results, environment records, cells, data sets) safely:
// only regular files, only up to a stated size, and JSON only up to a stated nesting depth and
// without a key given twice. A directory, a FIFO, /dev/zero or a file of 100,000 nested arrays
// becomes an error naming the limit, never a hang, a runaway allocation or a stack overflow.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace crossover {

inline constexpr std::uint64_t kMiB = 1024 * 1024;
inline constexpr std::uint64_t kMaxGridBytes = 16 * kMiB;         ///< a grid, or one cell.json
inline constexpr std::uint64_t kMaxRecordBytes = 16 * kMiB;       ///< env.json
inline constexpr std::uint64_t kMaxResultsBytes = 1024 * kMiB;    ///< results.jsonl
inline constexpr std::uint64_t kMaxCsvBytes = 256 * kMiB;         ///< a tabular data set
inline constexpr std::uint64_t kMaxImageFileBytes = 4096 * kMiB;  ///< one IDX or CIFAR-10 file
inline constexpr int kMaxJsonDepth = 64;  ///< arrays and objects inside each other

/// A user file that is not what it must be; what() is "FILE: PROBLEM", the problem naming the
/// limit.
class UserFileError : public std::runtime_error {
 public:
  UserFileError(const std::string& file, const std::string& problem)
      : std::runtime_error(file + ": " + problem), problem_(problem) {}
  /// The message without the file's name.
  const std::string& problem() const { return problem_; }

 private:
  std::string problem_;
};

/// Whether a reader opens a file through a symbolic link. Every record crossover reads back (a
/// run's results.jsonl, env.json, grid.json, searches.json, anatomy.jsonl; a history.json, a
/// profile, a calibration, a verdict, a grid, a TorchScript model) is read only where it is: a
/// link there could pull in any file on the machine, or silently another run's. Only a data set
/// (the user's own arrangement of a data folder, read and never written) is followed, and says so
/// with Links::kFollow at its one reader.
enum class Links { kFollow, kRefuse };

/// "1 GiB", "16 MiB", "512 bytes".
std::string bytes_text(std::uint64_t bytes);

/// Throws UserFileError unless `path` is a regular file of at most `max_bytes`; `what` names it in
/// the message ("the grid file"); with Links::kRefuse a symbolic link is refused too. Never opens
/// it, so a FIFO cannot block.
void check_regular_file(const std::string& path, std::uint64_t max_bytes, const std::string& what,
                        Links links = Links::kRefuse);

/// "a directory", "a FIFO (named pipe)", "a character device", ...: what a file of this st_mode is.
std::string file_kind_text(unsigned mode);

/// Reads a regular file of at most `max_bytes` in chunks of up to 1 MiB, handing each to `chunk`;
/// the same checks and errors as read_user_file, without holding the file in memory.
void read_user_file_chunks(const std::string& path, std::uint64_t max_bytes,
                           const std::string& what,
                           const std::function<void(const char*, std::size_t)>& chunk,
                           Links links = Links::kRefuse);

/// The whole of a regular file of at most `max_bytes`. Throws UserFileError for a file that is
/// missing, unreadable, not a regular file (directory, FIFO, device), larger than the limit, or
/// (with Links::kRefuse) a symbolic link, a loop of links included.
std::string read_user_file(const std::string& path, std::uint64_t max_bytes,
                           const std::string& what, Links links = Links::kRefuse);

/// A problem in the shape of a JSON text, at a JSON path ("experiments[0].grid").
struct JsonShapeProblem {
  std::string path;
  std::string message;
};

/// read_user_file, then check_json_shape: the text of a JSON file, ready to parse. A shape problem
/// is a UserFileError "FILE: JSON-PATH: message".
std::string read_json_text(const std::string& path, std::uint64_t max_bytes,
                           const std::string& what, Links links = Links::kRefuse);

/// read_json_text, parsed: a file that is not JSON is a UserFileError "FILE: not JSON (the
/// parser's words)", never the parser's message without the file's name.
template <typename Json = nlohmann::json>
Json read_json_file(const std::string& path, std::uint64_t max_bytes, const std::string& what,
                    Links links = Links::kRefuse) {
  const std::string text = read_json_text(path, max_bytes, what, links);
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw UserFileError(path, "not JSON, so not " + what + " (" + e.what() + ")");
  }
}

/// Throws UserFileError unless `path` is a folder itself — not a symbolic link to one (nor a
/// dangling link or a loop), not a file; `what` names it ("a shard's folder"). Follows nothing.
void check_real_folder(const std::string& path, const std::string& what);

/// Checks JSON text before it is parsed: nesting deeper than `max_depth` and any key given twice
/// in one object. Syntax errors are left to the parser (nothing is reported for them here).
/// Works without recursion, so it is safe on any input.
std::optional<JsonShapeProblem> check_json_shape(const std::string& text,
                                                 int max_depth = kMaxJsonDepth);

/// JSON text parsed in one pass with check_json_shape's checks made as it goes (nesting deeper
/// than `max_depth`, a key given twice in one object): for long texts read often (a line of
/// results.jsonl with thousands of samples), where a separate shape pass would read every number
/// twice. Throws std::runtime_error naming the problem, or nlohmann's parse_error for bad syntax.
nlohmann::json parse_checked_json(const std::string& text, int max_depth = kMaxJsonDepth);

/// Removes a folder and everything in it with plain POSIX calls (nftw, remove), never
/// std::filesystem::remove_all: LibTorch 2.x's libtorch.so exports its own copy of that function,
/// and a call bound there crashed (on an H100 machine, whose link did not put libstdc++ first; see
/// crossover_std_first in CMakeLists.txt). Errors are ignored, as remove_all(path, ec).
void remove_tree(const std::string& path);

}  // namespace crossover
