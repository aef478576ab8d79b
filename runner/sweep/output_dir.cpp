#include "runner/sweep/output_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "reports/render/run_outputs.hpp"

namespace crossover {
namespace {

constexpr const char* kLockFile = ".crossover.lock";
constexpr const char* kAnatomyFile = "anatomy.jsonl";  // predict --check --save-anatomy's

// "runs/a/results.jsonl" -> {"runs/a", "results.jsonl"}; a bare name's folder is ".".
std::pair<std::string, std::string> folder_and_name(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// " (process 1234)": who holds a lock, as its file says; "" when it says no process id.
std::string holder_text(int fd) {
  char holder[32] = {};
  const ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
  std::string who = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "";
  while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
  if (who.empty() ||
      !std::all_of(who.begin(), who.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return "";
  return " (process " + who + ")";
}

std::string in_use_text(const std::string& directory, const std::string& who) {
  return directory + " is in use by another crossover run" + who +
         "; wait for it to end, or give another folder";
}

}  // namespace

Found in_use_problem(const std::string& directory) {
  const int fd =
      open((directory + "/" + kLockFile).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat info {};
  if (fd < 0) return std::nullopt;
  Found problem;
  if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && flock(fd, LOCK_SH | LOCK_NB) != 0)
    problem = Problem(in_use_text(directory, holder_text(fd)));
  close(fd);  // releases a shared lock taken
  return problem;
}

bool holds_run(const std::string& directory) {
  return access(run_file(directory, kResultsFile).c_str(), F_OK) == 0 ||
         access(run_file(directory, kEnvFile).c_str(), F_OK) == 0;
}

DirectoryLock::DirectoryLock(const std::string& directory) {
  const std::string path = directory + "/" + kLockFile;
  // O_CLOEXEC: the cells' and ranks' processes must not inherit (and so keep) the lock.
  // O_NOFOLLOW: a link planted as the lock would make the run truncate its target.
  // O_NONBLOCK: a FIFO planted there must not block the open; fstat refuses it below.
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd_ < 0 && errno == ELOOP) {
    throw std::runtime_error(path +
                             " is a symbolic link; crossover never writes through a "
                             "link. Remove it, or write into another --out");
  }
  if (fd_ < 0) {
    throw std::runtime_error("cannot lock " + directory + " (" + path + ": " +
                             std::strerror(errno) + ")");
  }
  struct stat info {};
  if (fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd_);
    fd_ = -1;
    throw std::runtime_error(path +
                             " is not a regular file; remove it, or write into another "
                             "--out");
  }
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const std::string who = holder_text(fd_);
    close(fd_);
    fd_ = -1;
    throw std::runtime_error(in_use_text(directory, who));
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd_, 0) != 0 || pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the note of who holds it; only the message of a refused run suffers.
  }
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the lock
}

ReadingLock::ReadingLock(const std::string& directory) {
  const std::string path = directory + "/" + kLockFile;
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat info {};
  if (fd_ < 0 || fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;  // no lock a run could hold
    return;
  }
  if (flock(fd_, LOCK_SH | LOCK_NB) == 0) return;
  const std::string who = holder_text(fd_);
  close(fd_);
  fd_ = -1;
  throw std::runtime_error(directory + " is still running" + who);
}

ReadingLock::~ReadingLock() {
  if (fd_ >= 0) close(fd_);
}

std::string linked_folder(const std::string& path) {
  // Each folder the path names on the way to its last part, as given ("a", "a/b"); below the
  // root's own entries (/tmp, /home), which are the system's, not the command's to create.
  std::string prefix;
  std::size_t start = 0;
  if (!path.empty() && path[0] == '/') {
    prefix = "/";
    start = path.find('/', 1);
    if (start == std::string::npos) return "";
    prefix = path.substr(0, start);
  }
  for (std::size_t slash = path.find('/', start + 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string folder = path.substr(0, slash);
    if (folder.empty() || folder == prefix) continue;
    const std::string last = folder.substr(folder.rfind('/') + 1);
    if (last.empty() || last == "." || last == "..") continue;
    struct stat info {};
    if (lstat(folder.c_str(), &info) != 0) return "";  // what does not exist yet is no link
    if (S_ISLNK(info.st_mode)) return folder;
  }
  return "";
}

Found output_folder_problem(const std::string& given) {
  // "LINK/" names the link's target to lstat: the link is the name without its slashes.
  std::string path = given;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (const std::string link = linked_folder(path + "/"); !link.empty() && link != path)
    return Problem("is inside " + link +
                   ", a symbolic link; crossover never writes through a link: "
                   "give the folder it points to, or a new one");
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return std::nullopt;
  if (S_ISLNK(info.st_mode))
    return Problem(
        "is a symbolic link; crossover writes a run only into a folder itself, never "
        "through a link: give the folder it points to, or a new one");
  if (S_ISREG(info.st_mode)) return Problem("is a file, not a folder");
  if (!S_ISDIR(info.st_mode))
    return Problem("is " + file_kind_text(info.st_mode) + ", not a folder");
  return std::nullopt;
}

std::string create_unique_directory(const std::string& base) {
  const auto slash = base.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    std::error_code error;
    std::filesystem::create_directories(base.substr(0, slash), error);
  }
  std::string folder = base;
  for (int n = 2; mkdir(folder.c_str(), 0755) != 0; ++n) {
    if (errno != EEXIST || n > 1000) {
      throw std::runtime_error("cannot create " + folder + ": " + std::strerror(errno));
    }
    folder = base + "-" + std::to_string(n);
  }
  return folder;
}

Found run_file_problem(const std::string& path) {
  const auto [folder, name] = folder_and_name(path);
  const std::vector<std::string> files = run_file_names();
  if (std::find(files.begin(), files.end(), name) == files.end() && name != kAnatomyFile)
    return std::nullopt;
  // A lock without results yet is a run that has just begun.
  if (!holds_run(folder) && access((folder + "/" + kLockFile).c_str(), F_OK) != 0)
    return std::nullopt;
  return Problem(
      path + " is a file of the run in " + folder +
      "; writing there would replace what that run measured or reported. Write into another "
      "file");
}

const std::vector<std::string>& history_file_names() {
  static const std::vector<std::string> names = {"history.json", "history.md", "history.html"};
  return names;
}

Found output_file_problem(const std::string& path, const std::vector<std::string>& inputs) {
  struct stat info {};
  if (lstat(path.c_str(), &info) == 0) {
    if (S_ISLNK(info.st_mode))
      return Problem(path +
                     " is a symbolic link; crossover never writes through a link: give the file "
                     "itself, or a new name");
    if (S_ISDIR(info.st_mode)) return Problem(path + " is a folder; give the name of a file");
    if (!S_ISREG(info.st_mode))
      return Problem(path + " is " + file_kind_text(info.st_mode) +
                     "; give the name of a regular file");
  }
  const auto [folder, name] = folder_and_name(path);
  if (const std::string link = linked_folder(path); !link.empty())
    return Problem(path + " is in " + link +
                   ", a symbolic link; crossover never writes through a "
                   "link: give the folder it points to, or a new one");
  if (name == kLockFile)
    return Problem(
        path + " is the lock of " + folder +
        ", which keeps two commands from writing that folder at once; write into another file");
  if (Found problem = run_file_problem(path)) return problem;
  const auto& history = history_file_names();
  if (std::find(history.begin(), history.end(), name) != history.end() &&
      access((folder + "/history.json").c_str(), F_OK) == 0)
    return Problem(path + " is a file of the history in " + folder +
                   "; `crossover history --append RUN --into " + folder +
                   "` adds to it. Write into another file");
  for (const std::string& input : inputs) {
    std::error_code error;
    if (!input.empty() && std::filesystem::equivalent(path, input, error))
      return Problem(path + " is " + (input == path ? "" : input + ", ") +
                     "a file this command reads; write into another file");
  }
  return std::nullopt;
}

std::string move_previous_run(const std::string& directory, const std::string& stamp) {
  return move_previous(directory, stamp, run_file_names());
}

std::string move_previous(const std::string& directory, const std::string& stamp,
                          const std::vector<std::string>& names) {
  std::string folder = directory + "/previous-" + stamp;
  for (int n = 2; mkdir(folder.c_str(), 0755) != 0; ++n) {
    if (errno != EEXIST || n > 100) {
      throw std::runtime_error("cannot create " + folder + ": " + std::strerror(errno));
    }
    folder = directory + "/previous-" + stamp + "-" + std::to_string(n);
  }
  for (const std::string& name : names) {
    const std::string from = directory + "/" + name;
    if (access(from.c_str(), F_OK) != 0) continue;
    if (std::rename(from.c_str(), (folder + "/" + name).c_str()) != 0) {
      throw std::runtime_error("cannot move " + from + " into " + folder + ": " +
                               std::strerror(errno));
    }
  }
  return folder;
}

}  // namespace crossover
