#include "core/process/child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

extern char** environ;

namespace crossover {
namespace {

constexpr int kChannel = 3;

// In the child, before anything else: its group, its signals, its death with the parent.
void set_up_child(bool own_group, bool ignore_interrupt, bool die_with_parent, pid_t parent) {
  if (own_group) setpgid(0, 0);
  signal(SIGINT, ignore_interrupt ? SIG_IGN : SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (die_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);  // the parent ended before the line above took effect
  }
}

// In the child: `fd` becomes `path` (nothing when "", _exit(127) when it cannot be opened).
void redirect(int fd, const char* path, bool write) {
  if (path == nullptr) return;
  const int flags = write ? O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW : O_RDONLY;
  const int opened = open(path, flags, 0644);
  if (opened < 0 || dup2(opened, fd) < 0) _exit(127);
  if (opened != fd) close(opened);
}

const char* c_str_or_null(const std::string& text) { return text.empty() ? nullptr : text.c_str(); }

}  // namespace

pid_t start_child(const ChildSpec& spec) {
  if (spec.argv.empty()) return -1;
  // Everything is made before fork: after it, only async-signal-safe calls.
  std::vector<std::string> argv = spec.argv, extra = spec.environment;
  std::vector<char*> raw, env;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  for (auto& e : extra) env.push_back(e.data());
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  env.push_back(nullptr);
  const char* in = c_str_or_null(spec.stdin_file);
  const char* out = c_str_or_null(spec.stdout_file);
  const char* err = c_str_or_null(spec.stderr_file);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    set_up_child(spec.own_group, spec.ignore_interrupt, spec.die_with_parent, parent);
    // The channel as fd 3 (dup2 clears close-on-exec; on fd 3 already, fcntl does).
    if (spec.channel == kChannel)
      fcntl(kChannel, F_SETFD, 0);
    else if (spec.channel >= 0)
      dup2(spec.channel, kChannel);
    redirect(STDIN_FILENO, in, false);
    redirect(STDOUT_FILENO, out, true);
    redirect(STDERR_FILENO, err, true);
    execve(raw[0], raw.data(), env.data());
    _exit(127);
  }
  if (child > 0 && spec.own_group) setpgid(child, child);  // as the child does, whichever first
  return child;
}

pid_t fork_child(const std::function<int()>& body, bool die_with_parent) {
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    set_up_child(false, false, die_with_parent, parent);
    _exit(body());
  }
  return child;
}

std::string exit_text(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    std::string text =
        "was killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    // Nothing but the kernel's out-of-memory killer sends SIGKILL unasked.
    if (signal == SIGKILL) text += ", as the out-of-memory killer does (see dmesg)";
    return text;
  }
  return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
}

int shell_status(int wait_status) {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

}  // namespace crossover
