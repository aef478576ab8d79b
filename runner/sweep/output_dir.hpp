#pragma once
// The output directory of a run: one run at a time may write into it, and the files of an earlier
// run are never replaced without being asked. No LibTorch.

#include <string>
#include <vector>

#include "core/text/problem.hpp"

namespace crossover {

/// True when `directory` holds files of a run (results.jsonl or env.json).
bool holds_run(const std::string& directory);

/// "DIR is in use by another crossover run (process N); wait for it to end, or write into another
/// --out" when a live run holds `directory`'s lock. Takes no lock and creates no
/// file, so a dry run may ask; a run asks before it says the folder holds a run's files, which a
/// live run writes early.
Found in_use_problem(const std::string& directory);

/// An exclusive lock on a run's output directory, held until it is destroyed (or the process
/// ends, however it ends: the kernel releases it, so a dead run never blocks the next).
class DirectoryLock {
 public:
  /// Takes the lock on `directory` (which must exist) through `directory/.crossover.lock`, which
  /// records the holder's process id. Throws std::runtime_error naming the directory and the
  /// process that holds it.
  explicit DirectoryLock(const std::string& directory);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

/// A shared lock on a run's folder, for a command that only reads it (`merge`): no run can start
/// in it while held, and taking it creates and writes nothing there. A folder without a lock
/// file, or whose lock is not a regular file (a FIFO, a link: never opened through), has no run
/// in it.
class ReadingLock {
 public:
  /// Throws std::runtime_error "DIR is still running (process N)" when a run holds the folder.
  explicit ReadingLock(const std::string& directory);
  ~ReadingLock();
  ReadingLock(const ReadingLock&) = delete;
  ReadingLock& operator=(const ReadingLock&) = delete;

 private:
  int fd_ = -1;
};

/// The first folder on the way to `path`'s last part, as given ("a" of "a/b/c.json"), that is a
/// symbolic link; "" when none is (the root's own entries, /tmp or /home, are not looked at).
std::string linked_folder(const std::string& path);

/// Why `path` cannot be a run's output folder: a symbolic link (to a folder, dangling, or a
/// loop) or inside one (linked_folder), or something other than a folder. Nothing when it can
/// (a missing path included).
Found output_folder_problem(const std::string& path);

/// Creates a new folder named `base`, or `base-2`, `base-3`, ... when that exists (two runs started
/// in the same second), its parents as needed; returns its name. Throws std::runtime_error.
std::string create_unique_directory(const std::string& base);

/// Why `path` must not be written by a command that is not the run of that folder: it names one
/// of a run's files (core/files/run_files.hpp) in a folder that holds a run.
Found run_file_problem(const std::string& path);

/// The files of a history's folder (`crossover history`), history.json first.
const std::vector<std::string>& history_file_names();

/// Why a command may not write the file `path` that an option (--out, --json, --fit-band,
/// --markdown) names: a symbolic link, a folder or anything but a regular file
/// there, or a file in a folder that is a symbolic link; a folder's lock (.crossover.lock); a file
/// of a run (run_file_problem) or of a history whose folder holds one; or one of `inputs`, the
/// files this command reads (the same file by another name included). Every command checks its
/// outputs with this before it measures or writes anything, so an output is new or its own, never
/// another command's.
Found output_file_problem(const std::string& path, const std::vector<std::string>& inputs);

/// Moves the files `names` in `directory` into `directory/previous-<stamp>/` (another name when
/// that exists), keeping every other file where it is. Returns the folder; throws
/// std::runtime_error naming what could not be moved.
std::string move_previous(const std::string& directory, const std::string& stamp,
                          const std::vector<std::string>& names);

/// move_previous of a run's files (core/files/run_files.hpp).
std::string move_previous_run(const std::string& directory, const std::string& stamp);

}  // namespace crossover
