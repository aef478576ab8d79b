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

#include "core/run_files.hpp"

namespace crossover {
namespace {

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

}  // namespace

bool holds_run(const std::string& directory) {
  return access((directory + "/results.jsonl").c_str(), F_OK) == 0 ||
         access((directory + "/env.json").c_str(), F_OK) == 0;
}

DirectoryLock::DirectoryLock(const std::string& directory) {
  const std::string path = directory + "/.crossover.lock";
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
    throw std::runtime_error(directory + " is in use by another crossover run" + who +
                             "; wait for it to end, or write into another --out");
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
  const std::string path = directory + "/.crossover.lock";
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

std::string output_folder_problem(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return "";
  if (S_ISLNK(info.st_mode))
    return "is a symbolic link; crossover writes a run only into a folder itself, never "
           "through a link: give the folder it points to, or a new one";
  if (!S_ISDIR(info.st_mode)) return "is a file, not a folder";
  return "";
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

std::string run_file_problem(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::vector<std::string> files = run_file_names();
  if (std::find(files.begin(), files.end(), name) == files.end() || !holds_run(folder)) return "";
  return path + " is a file of the run in " + folder +
         "; writing there would replace what that run measured or reported. Write into another "
         "file";
}

std::string move_previous_run(const std::string& directory, const std::string& stamp) {
  std::string folder = directory + "/previous-" + stamp;
  for (int n = 2; mkdir(folder.c_str(), 0755) != 0; ++n) {
    if (errno != EEXIST || n > 100) {
      throw std::runtime_error("cannot create " + folder + ": " + std::strerror(errno));
    }
    folder = directory + "/previous-" + stamp + "-" + std::to_string(n);
  }
  for (const std::string& name : run_file_names()) {
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
