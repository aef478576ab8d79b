#include "core/files/user_files.hpp"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace crossover {
namespace {

void check_stat(const std::string& path, const struct stat& info, std::uint64_t max_bytes,
                const std::string& what) {
  if (!S_ISREG(info.st_mode)) {
    throw UserFileError(
        path, file_kind_text(info.st_mode) + ", not a regular file; give " + what + " as a file");
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    throw UserFileError(path, bytes_text(static_cast<std::uint64_t>(info.st_size)) +
                                  ", over the limit of " + bytes_text(max_bytes) + " for " + what);
  }
}

std::string link_problem(const std::string& what) {
  return "a symbolic link (or a loop of them); " + what +
         " is read only where it is, never through a link: give the file it points to";
}

// Follows a JSON text's structure through nlohmann's SAX parser, which keeps its own stack
// instead of recursing. Stops at the first problem.
class ShapeCheck {
 public:
  using Json = nlohmann::json;
  explicit ShapeCheck(int max_depth) : max_depth_(max_depth) {}

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(Json::number_integer_t) { return value(); }
  bool number_unsigned(Json::number_unsigned_t) { return value(); }
  bool number_float(Json::number_float_t, const std::string&) { return value(); }
  bool string(std::string&) { return value(); }
  bool binary(Json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& key) {
    Frame& frame = stack_.back();
    frame.key = key;
    if (!frame.keys.insert(key).second) {
      problem_ = {path(), "the key \"" + key +
                              "\" is given twice in one object; JSON keeps only one of them, so "
                              "remove or merge the other"};
      return false;
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;  // the parser that follows reports syntax with its line and column
  }

  const std::optional<JsonShapeProblem>& problem() const { return problem_; }

 private:
  struct Frame {
    bool object = false;
    std::string key;             // the current key, in an object
    std::size_t index = 0;       // the current element, in an array
    std::set<std::string> keys;  // the keys seen, in an object
  };

  // The JSON path of the value being read: "experiments[1].grid.batch_size".
  std::string path() const {
    std::string out;
    for (const Frame& frame : stack_) {
      if (frame.object) {
        out += (out.empty() ? "" : ".") + frame.key;
      } else {
        out += "[" + std::to_string(frame.index) + "]";
      }
    }
    return out.empty() ? "(document)" : out;
  }

  bool value() {
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().index;
    return true;
  }
  bool open(bool object) {
    if (static_cast<int>(stack_.size()) >= max_depth_) {
      problem_ = {path(), "arrays and objects nested more than " + std::to_string(max_depth_) +
                              " deep, the limit; no crossover file needs more than a few"};
      return false;
    }
    stack_.push_back({object, "", 0, {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return value();
  }

  int max_depth_;
  std::vector<Frame> stack_;
  std::optional<JsonShapeProblem> problem_;
};

}  // namespace

std::string file_kind_text(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

std::string bytes_text(std::uint64_t bytes) {
  if (bytes >= 1024 * kMiB && bytes % (1024 * kMiB) == 0)
    return std::to_string(bytes / (1024 * kMiB)) + " GiB";
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

void check_regular_file(const std::string& path, std::uint64_t max_bytes, const std::string& what,
                        Links links) {
  struct stat info {};
  if ((links == Links::kRefuse ? lstat(path.c_str(), &info) : stat(path.c_str(), &info)) != 0) {
    throw UserFileError(path, "cannot read " + what + ": " + std::strerror(errno));
  }
  if (S_ISLNK(info.st_mode)) throw UserFileError(path, link_problem(what));
  check_stat(path, info, max_bytes, what);
}

void read_user_file_chunks(const std::string& path, std::uint64_t max_bytes,
                           const std::string& what,
                           const std::function<void(const char*, std::size_t)>& chunk,
                           Links links) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  const int fd = open(
      path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (links == Links::kRefuse ? O_NOFOLLOW : 0));
  if (fd < 0 && errno == ELOOP && links == Links::kRefuse) {
    throw UserFileError(path, link_problem(what));
  }
  if (fd < 0) throw UserFileError(path, "cannot read " + what + ": " + std::strerror(errno));
  try {
    struct stat info {};
    if (fstat(fd, &info) != 0) {
      throw UserFileError(path, "cannot read " + what + ": " + std::strerror(errno));
    }
    check_stat(path, info, max_bytes, what);
    std::vector<char> buffer(static_cast<std::size_t>(
        std::min<std::uint64_t>(static_cast<std::uint64_t>(info.st_size) + 1, 1 << 20)));
    std::uint64_t total = 0;
    for (;;) {
      const ssize_t n = read(fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw UserFileError(path, "cannot read " + what + ": " + std::strerror(errno));
      if (n == 0) break;
      total += static_cast<std::uint64_t>(n);
      if (total > max_bytes) {  // it grew while being read
        throw UserFileError(path, "grew over the limit of " + bytes_text(max_bytes) + " for " +
                                      what + " while it was read");
      }
      chunk(buffer.data(), static_cast<std::size_t>(n));
    }
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
}

std::string read_user_file(const std::string& path, std::uint64_t max_bytes,
                           const std::string& what, Links links) {
  std::string text;
  read_user_file_chunks(
      path, max_bytes, what, [&](const char* data, std::size_t size) { text.append(data, size); },
      links);
  return text;
}

std::string read_json_text(const std::string& path, std::uint64_t max_bytes,
                           const std::string& what, Links links) {
  std::string text = read_user_file(path, max_bytes, what, links);
  if (const auto problem = check_json_shape(text)) {
    throw UserFileError(path, problem->path + ": " + problem->message);
  }
  return text;
}

std::optional<JsonShapeProblem> check_json_shape(const std::string& text, int max_depth) {
  ShapeCheck check(max_depth);
  nlohmann::json::sax_parse(text, &check, nlohmann::json::input_format_t::json,
                            /*strict=*/false);
  return check.problem();
}

nlohmann::json parse_checked_json(const std::string& text, int max_depth) {
  using Event = nlohmann::json::parse_event_t;
  std::vector<std::set<std::string>> keys;  // the keys seen, one set per object being read
  return nlohmann::json::parse(text, [&](int depth, Event event, nlohmann::json& parsed) {
    if (depth > max_depth) {
      throw std::runtime_error("arrays and objects nested more than " + std::to_string(max_depth) +
                               " deep, the limit; no crossover file needs more than a few");
    }
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end && !keys.empty()) keys.pop_back();
    if (event == Event::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second) {
      throw std::runtime_error("the key \"" + parsed.get<std::string>() +
                               "\" is given twice in one object; JSON keeps only one of them, so "
                               "remove or merge the other");
    }
    return true;
  });
}

void check_real_folder(const std::string& path, const std::string& what) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) {
    throw UserFileError(path, errno == ENOENT
                                  ? "does not exist; give " + what
                                  : "cannot read " + what + ": " + std::strerror(errno));
  }
  if (S_ISLNK(info.st_mode))
    throw UserFileError(path, "a symbolic link; give " + what + " itself, not a link to it");
  if (!S_ISDIR(info.st_mode))
    throw UserFileError(path, file_kind_text(info.st_mode) + ", not a folder; give " + what);
}

void remove_tree(const std::string& path) {
  nftw(
      path.c_str(),
      [](const char* file, const struct stat*, int, struct FTW*) {
        std::remove(file);  // unlink for files, rmdir for (already emptied) folders
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS);
}

}  // namespace crossover
