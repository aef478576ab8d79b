#pragma once
// The one writer of every file crossover creates or replaces. It never follows a symbolic link: a
// link planted where a file goes (an output folder's lock, report.md) is refused with its name,
// never written through. A file is replaced whole or not at all: the text goes to a temporary file
// beside it, is synced to disk, and is renamed into place, so a kill, a full disk or a file-size
// limit leaves the earlier file as it was. Files that grow (results.jsonl, results.csv) start the
// same way and are then appended to through a descriptor that cannot follow a link. No LibTorch.

#include <string>

namespace crossover {

/// JSON as crossover writes it: text that is not UTF-8 (a reason quoting a file name in another
/// encoding) becomes U+FFFD, never an exception that costs a result. `indent` as nlohmann's dump.
template <typename Json>
std::string json_text(const Json& json, int indent = -1) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

/// Throws std::runtime_error when `path` is a symbolic link or something other than a regular
/// file (a folder, a FIFO, a device); a missing path is fine. The message names the path and
/// what it is.
void refuse_link_or_special(const std::string& path);

/// Replaces (or creates) `path` with `text`, atomically: a temporary file in the same folder
/// (created O_EXCL | O_NOFOLLOW), fsync, rename, fsync of the folder. Throws std::runtime_error
/// naming the path and the system's reason; the earlier file, if any, is then untouched.
void write_text_file(const std::string& path, const std::string& text);

/// A file written atomically with a first text and then appended to, synced after each append.
class AppendFile {
 public:
  AppendFile() = default;
  /// Replaces `path` with `initial` (as write_text_file) and opens it for appending (O_APPEND,
  /// O_NOFOLLOW). Throws std::runtime_error naming the path.
  AppendFile(const std::string& path, const std::string& initial);
  ~AppendFile();
  AppendFile(AppendFile&& other) noexcept;
  AppendFile& operator=(AppendFile&& other) noexcept;
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  /// Appends `text` whole and syncs it; throws std::runtime_error "PATH: cannot write WHAT
  /// (the system's reason)" (a full disk, a file-size limit).
  void append(const std::string& text, const std::string& what = "the file");
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace crossover
