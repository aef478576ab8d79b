#pragma once
// The one place a child process is started (tests/test_layers.cpp holds every fork() to this
// file): a program run with exec, or a function run in a forked copy of this process.

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace crossover {

/// What a program is started with.
struct ChildSpec {
  std::vector<std::string> argv;         ///< argv[0]: the program's path (not searched for)
  std::vector<std::string> environment;  ///< "NAME=value", before this process's (the first wins)
  std::string stdin_file;   ///< "": this process's; else the file, read only (/dev/null to close)
  std::string stdout_file;  ///< "": this process's; else created or emptied, never through a link
  std::string stderr_file;  ///< as stdout_file
  int channel = -1;         ///< a descriptor the child keeps as its fd 3 (-1: none)
  bool own_group = true;    ///< in a process group of its own: it and its children stop together
  bool ignore_interrupt = false;  ///< SIGINT ignored: the parent decides when it stops
  bool die_with_parent = false;   ///< SIGKILL when this process ends (PR_SET_PDEATHSIG)
};

/// Starts `spec`'s program: its pid, or -1 when no process could be made (a program that cannot
/// be executed exits 127). Everything the child needs is built before the fork, so that between
/// fork and exec it allocates nothing (LibTorch's threads may hold the allocator's lock).
pid_t start_child(const ChildSpec& spec);

/// Runs `body` in a forked copy of this process, which exits with what it returns: its pid, or
/// -1. `body` runs alone in the copy (this process's other threads are not there): it must not
/// wait on a lock they could hold.
pid_t fork_child(const std::function<int()>& body, bool die_with_parent);

/// How a child ended: "exited with status N" or "was killed by signal N (name)", SIGKILL's with
/// the out-of-memory killer named.
std::string exit_text(int wait_status);

/// A wait_status as a shell gives it: its exit status, or 128 + the signal that ended it.
int shell_status(int wait_status);

}  // namespace crossover
