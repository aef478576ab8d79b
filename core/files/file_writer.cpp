#include "core/files/file_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "core/files/user_files.hpp"

namespace crossover {
namespace {

std::runtime_error write_error(const std::string& path, int error,
                               const std::string& what = "the file") {
  return std::runtime_error(path + ": cannot write " + what + " (" + std::strerror(error) + ")");
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Writes all of `text` to `fd`; the errno of the failure, or 0.
int write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// A new temporary file beside `path`, created exclusively (it cannot be a planted link); its
// name is returned through `temporary`.
int create_temporary(const std::string& path, std::string& temporary) {
  static std::atomic<unsigned> counter{0};
  const std::string folder = folder_of(path);
  std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  if (base.size() > 100) base.resize(100);  // the temporary's name must fit NAME_MAX too
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary = folder + "/." + base + ".tmp-" + std::to_string(getpid()) + "-" +
                std::to_string(counter.fetch_add(1));
    const int fd =
        open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

void sync_folder(const std::string& folder) {
  const int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename stands; only its durability across a power loss is weaker
  fsync(fd);
  close(fd);
}

}  // namespace

void refuse_link_or_special(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return;  // missing (or unreachable: the write will say)
  if (S_ISLNK(info.st_mode)) {
    char target[4096];
    const ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
    const std::string to = n > 0 ? " -> " + std::string(target, static_cast<std::size_t>(n)) : "";
    throw std::runtime_error(path + " is a symbolic link" + to +
                             "; crossover never writes through a link. Remove it, or write "
                             "into another folder");
  }
  if (!S_ISREG(info.st_mode)) {
    throw std::runtime_error(path + " is " + file_kind_text(info.st_mode) +
                             ", not a file crossover can replace; remove it, or write into "
                             "another folder");
  }
}

void write_text_file(const std::string& path, const std::string& text) {
  refuse_link_or_special(path);
  std::string temporary;
  const int fd = create_temporary(path, temporary);
  if (fd < 0) throw write_error(path, errno);
  int error = write_all(fd, text);
  if (error == 0 && fsync(fd) != 0) error = errno;
  if (close(fd) != 0 && error == 0) error = errno;
  // rename replaces a link planted after the check above by the file, never its target.
  if (error == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    unlink(temporary.c_str());
    throw write_error(path, error);
  }
  sync_folder(folder_of(path));
}

AppendFile::AppendFile(const std::string& path, const std::string& initial) : path_(path) {
  write_text_file(path, initial);
  fd_ = open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0) throw write_error(path, errno);
  struct stat info {};
  if (fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd_);
    fd_ = -1;
    throw std::runtime_error(path + ": replaced by something other than a file while written");
  }
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) close(fd_);
}

AppendFile::AppendFile(AppendFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

AppendFile& AppendFile::operator=(AppendFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

void AppendFile::append(const std::string& text, const std::string& what) {
  if (fd_ < 0) throw std::runtime_error(path_ + ": not open for writing");
  int error = write_all(fd_, text);
  if (error == 0 && fdatasync(fd_) != 0) error = errno;
  if (error != 0) throw write_error(path_, error, what);
}

}  // namespace crossover
