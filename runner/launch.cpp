#include "runner/launch.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "core/file_writer.hpp"
#include "core/user_files.hpp"

namespace crossover {
namespace {

using Clock = std::chrono::steady_clock;

std::string status_text(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    std::string text = std::string("was killed by signal ") + std::to_string(signal) + " (" +
                       strsignal(signal) + ")";
    // Nothing but the kernel's out-of-memory killer sends SIGKILL unasked.
    if (signal == SIGKILL) text += ", as the out-of-memory killer does (see dmesg)";
    return text;
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

// "; last output: ..." from the last lines of a child's log, or "".
std::string last_lines(const std::string& path, std::size_t count = 3) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.empty()) return "";
  std::string out;
  for (std::size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
    out += (out.empty() ? "" : " | ") + lines[i];
  return "; last output: " + out;
}

Result failed(const Cell& cell, const std::string& reason) {
  Result r;
  r.cell = cell;
  r.status = CellStatus::kFailed;
  r.reason = reason;
  return r;
}

// In the forked child: rank `rank` of the cell, its diagnostics into its log; never returns.
[[noreturn]] void exec_rank(const Cell& cell, const LaunchOptions& options,
                            const std::string& binary, const std::string& work, int rank) {
  const bool ddp = cell.parallel == Parallel::kDdp;
  const std::string out = work + "/rank-" + std::to_string(rank) + ".json";
  // Ctrl-C is for `run`, which lets the running cell finish; the ranks die with it.
  signal(SIGINT, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Its diagnostics go to a log, whose last lines explain a failure.
  const std::string log = work + "/rank-" + std::to_string(rank) + ".log";
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
  if (fd >= 0) {
    dup2(fd, STDERR_FILENO);
    close(fd);
  }
  if (ddp) {
    // The ranks meet through a file in this private folder, not a TCP store: nothing they
    // start listens beyond loopback (Gloo's pairs bind to MASTER_ADDR's loopback address).
    setenv("CROSSOVER_STORE_FILE", (work + "/store").c_str(), 1);
    setenv("MASTER_ADDR", "127.0.0.1", 1);
    setenv("WORLD_SIZE", std::to_string(cell.nproc).c_str(), 1);
    setenv("RANK", std::to_string(rank).c_str(), 1);
    setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
  }
  std::vector<std::string> args = {binary,   "worker", "--cell",     work + "/cell.json",
                                   "--out",  out,      "--data-dir", options.data_dir,
                                   "--quiet"};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  _exit(127);
}

// Waits for every rank; the first that fails, or the timeout, stops the others. Returns why the
// cell failed, or "" when every rank exited 0.
std::string wait_for_ranks(std::vector<pid_t>& ranks, const std::string& work, bool ddp,
                           Clock::time_point start, double timeout) {
  std::string reason;
  std::size_t running = ranks.size();
  while (running > 0) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      const auto it = std::find(ranks.begin(), ranks.end(), pid);
      if (it == ranks.end()) continue;
      --running;
      const auto rank = static_cast<std::size_t>(it - ranks.begin());
      *it = -1;
      if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) && reason.empty()) {
        reason = (ddp ? "rank " + std::to_string(rank) : std::string("the cell's process")) + " " +
                 status_text(status) + last_lines(work + "/rank-" + std::to_string(rank) + ".log");
        for (pid_t p : ranks) {
          if (p > 0) kill(p, SIGKILL);
        }
      }
      continue;
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (elapsed > timeout && reason.empty()) {
      char text[96];
      std::snprintf(text, sizeof text, "timed out after %g s; %s stopped", timeout,
                    ddp ? "the ranks were" : "its process was");
      reason = text;
      for (pid_t p : ranks) {
        if (p > 0) kill(p, SIGKILL);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return reason;
}

}  // namespace

Result run_ranks(const Cell& cell, const LaunchOptions& options) {
  const Clock::time_point start = Clock::now();
  std::string binary = options.binary;
  const double timeout = cell.timeout_seconds > 0.0      ? cell.timeout_seconds
                         : options.timeout_seconds > 0.0 ? options.timeout_seconds
                                                         : 4.0 * cell.time_budget_seconds + 120.0;
  char pattern[] = "/tmp/crossover-ddp-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return failed(cell, "cannot create a directory for the ranks");
  const std::string work = pattern;
  Result result;
  try {
    if (binary.empty()) binary = self_executable();
    Result request;
    request.cell = cell;
    write_text_file(work + "/cell.json", json_text(result_to_json(request)) + "\n");
    const bool ddp = cell.parallel == Parallel::kDdp;
    const int processes = ddp ? cell.nproc : 1;
    std::vector<pid_t> ranks;
    for (int rank = 0; rank < processes; ++rank) {
      const pid_t pid = fork();
      if (pid == 0) exec_rank(cell, options, binary, work, rank);
      if (pid < 0) {
        for (pid_t p : ranks) kill(p, SIGKILL);
        throw std::runtime_error("cannot start rank " + std::to_string(rank));
      }
      ranks.push_back(pid);
    }
    const std::string reason = wait_for_ranks(ranks, work, ddp, start, timeout);
    if (!reason.empty()) {
      result = failed(cell, reason);
    } else {
      result = read_results(work + "/rank-0.json").at(0);
      result.cell = cell;
    }
  } catch (const std::exception& e) {
    result = failed(cell, e.what());
  }
  remove_tree(work);
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

std::string self_executable() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  return std::string(path, static_cast<std::size_t>(length));
}

}  // namespace crossover
