#include "runner/output_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace crossover {

const std::vector<std::string>& run_files() {
  static const std::vector<std::string> files = {"results.jsonl", "env.json",    "grid.json",
                                                 "report.md",     "report.html", "results.csv",
                                                 "summary.json",  "gbench.json"};
  return files;
}

bool holds_run(const std::string& directory) {
  return access((directory + "/results.jsonl").c_str(), F_OK) == 0 ||
         access((directory + "/env.json").c_str(), F_OK) == 0;
}

DirectoryLock::DirectoryLock(const std::string& directory) {
  const std::string path = directory + "/.crossover.lock";
  // O_CLOEXEC: the cells' and ranks' processes must not inherit (and so keep) the lock.
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error("cannot lock " + directory + " (" + path + ": " +
                             std::strerror(errno) + ")");
  }
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {};
    const ssize_t n = pread(fd_, holder, sizeof holder - 1, 0);
    close(fd_);
    fd_ = -1;
    std::string who = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "";
    while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
    throw std::runtime_error(directory + " is in use by another crossover run" +
                             (who.empty() ? std::string() : " (process " + who + ")") +
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

std::string move_previous_run(const std::string& directory, const std::string& stamp) {
  std::string folder = directory + "/previous-" + stamp;
  for (int n = 2; mkdir(folder.c_str(), 0755) != 0; ++n) {
    if (errno != EEXIST || n > 100) {
      throw std::runtime_error("cannot create " + folder + ": " + std::strerror(errno));
    }
    folder = directory + "/previous-" + stamp + "-" + std::to_string(n);
  }
  for (const std::string& name : run_files()) {
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
