#include "runner/execution/launch.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "core/files/file_writer.hpp"
#include "core/files/user_files.hpp"
#include "runner/hardware/counter.hpp"

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

// The cell's timeout, else the options', else its default (4 x its time budget + 120 s).
double cell_timeout(const Cell& cell, const LaunchOptions& options) {
  return cell.timeout_seconds > 0.0      ? cell.timeout_seconds
         : options.timeout_seconds > 0.0 ? options.timeout_seconds
                                         : default_timeout_seconds(cell);
}

Result failed(const Cell& cell, const std::string& reason) {
  Result r;
  r.cell = cell;
  r.status = CellStatus::kFailed;
  r.reason = reason;
  return r;
}

// In the forked child: rank `rank` of the cell, its diagnostics into its log; never returns.
// `counter`: the command the rank runs under (Callgrind's for a counted cell), or empty.
[[noreturn]] void exec_rank(const Cell& cell, const LaunchOptions& options,
                            const std::string& binary, const std::string& work, int rank,
                            const std::vector<std::string>& counter) {
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
  if (!counter.empty()) {
    for (const std::string& variable : callgrind_environment(work + "/callgrind")) {
      const auto equals = variable.find('=');
      setenv(variable.substr(0, equals).c_str(), variable.substr(equals + 1).c_str(), 1);
    }
  }
  std::vector<std::string> args = counter;
  const std::vector<std::string> worker = {binary,   "worker", "--cell",     work + "/cell.json",
                                   "--out",  out,      "--data-dir", options.data_dir,
                                   "--quiet"};
  args.insert(args.end(), worker.begin(), worker.end());
  if (options.timing_only) args.emplace_back("--timing-only");
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
  const double timeout = cell_timeout(cell, options);
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
    // A counted cell without hardware counters runs under Callgrind, which writes its dumps here.
    const std::vector<std::string> counter =
        cell.count != Count::kNone && counter_for(cell.count) == CounterKind::kCallgrind
            ? callgrind_command(cell.count, work + "/callgrind")
            : std::vector<std::string>{};
    std::vector<pid_t> ranks;
    for (int rank = 0; rank < processes; ++rank) {
      const pid_t pid = fork();
      if (pid == 0) exec_rank(cell, options, binary, work, rank, counter);
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

namespace {

// The worker's end of its channel with the pool.
constexpr int kChannel = 3;
// Idle warm workers kept at once (each holds LibTorch, its data sets and, on a GPU, a context);
// starting one more retires the least recently used.
constexpr std::size_t kMaxWorkers = 3;

// A cell's process key: a warm worker serves only cells that share it (what a fresh process
// would show the cell: the device, and the process-wide threads and determinism).
std::string worker_key(const Cell& cell) {
  return cell.device.text() + "|threads=" + std::to_string(cell.threads) +
         "|deterministic=" + std::to_string(static_cast<int>(cell.deterministic)) +
         "|count=" + text_of(cell.count);
}

// The environment of a child: this process's, and `extra` ("NAME=value") before it. Made before
// fork, since between fork and exec nothing may allocate.
std::vector<char*> child_environment(std::vector<std::string>& extra) {
  std::vector<char*> env;
  for (std::string& e : extra) env.push_back(e.data());
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  env.push_back(nullptr);
  return env;
}

bool send_line(int fd, const std::string& text) {
  const std::string line = text + "\n";
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// One line from `fd` (without its newline); false at end of file or on an error.
bool read_line(int fd, std::string& line) {
  line.clear();
  for (char c = 0;;) {
    const ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (c == '\n') return true;
    if (line.size() > 64) return false;  // the protocol's lines are numbers
    line += c;
  }
}

}  // namespace

struct WorkerPool::Worker {
  pid_t pid = -1;
  int channel = -1;  ///< the pool's end of the socket pair
  std::string work;  ///< its folder
  std::string key;
  int id = 0;     ///< numbered with every process the pool started
  int cells = 0;  ///< cells it ran
};

WorkerPool::WorkerPool(LaunchOptions options, bool warm)
    : options_(std::move(options)), warm_(warm) {}

WorkerPool::~WorkerPool() {
  while (!workers_.empty()) retire(0);
}

void WorkerPool::retire(std::size_t index) {
  Worker& worker = *workers_[index];
  close(worker.channel);
  if (worker.pid > 0) {
    kill(worker.pid, SIGKILL);
    waitpid(worker.pid, nullptr, 0);
  }
  remove_tree(worker.work);
  workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(index));
}

WorkerPool::Worker& WorkerPool::worker_for(const std::string& key, const Cell& cell) {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i]->key != key) continue;
    // The most recently used goes last.
    std::rotate(workers_.begin() + static_cast<std::ptrdiff_t>(i),
                workers_.begin() + static_cast<std::ptrdiff_t>(i) + 1, workers_.end());
    return *workers_.back();
  }
  if (workers_.size() >= kMaxWorkers) retire(0);
  if (options_.binary.empty()) options_.binary = self_executable();
  auto worker = std::make_unique<Worker>();
  worker->key = key;
  char pattern[] = "/tmp/crossover-worker-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("cannot create a worker's folder");
  worker->work = pattern;
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    remove_tree(worker->work);
    throw std::runtime_error("cannot create a worker's channel");
  }
  // Everything the child needs is made before fork: between fork and exec it only makes calls
  // that allocate nothing (LibTorch's threads may hold the allocator's lock at the fork).
  // A counted worker without hardware counters serves under Callgrind: LibTorch's start under
  // valgrind (about 10 s here) is paid once per worker, not per counted cell.
  std::vector<std::string> args, extra_env;
  if (cell.count != Count::kNone && counter_for(cell.count) == CounterKind::kCallgrind) {
    args = callgrind_command(cell.count, worker->work + "/callgrind");
    extra_env = callgrind_environment(worker->work + "/callgrind");
  }
  for (const char* arg : {options_.binary.c_str(), "worker", "--serve", worker->work.c_str(),
                          "--data-dir", options_.data_dir.c_str(), "--quiet"})
    args.emplace_back(arg);
  std::vector<char*> env = child_environment(extra_env);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const std::string log = worker->work + "/worker.log";
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGINT, SIG_IGN);  // Ctrl-C is for `run`, which lets the running cell finish
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The worker keeps its end as fd 3 (dup2 clears close-on-exec; on fd 3 already, fcntl does).
    if (pair[1] == kChannel)
      fcntl(kChannel, F_SETFD, 0);
    else
      dup2(pair[1], kChannel);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
    if (fd >= 0) dup2(fd, STDERR_FILENO);
    execve(argv[0], argv.data(), env.data());
    _exit(127);
  }
  close(pair[1]);
  if (pid < 0) {
    close(pair[0]);
    remove_tree(worker->work);
    throw std::runtime_error("cannot start a worker process");
  }
  worker->pid = pid;
  worker->channel = pair[0];
  worker->id = ++started_;
  workers_.push_back(std::move(worker));
  return *workers_.back();
}

Result WorkerPool::run_fresh(const Cell& cell, bool timing_only) {
  LaunchOptions options = options_;
  options.timing_only = timing_only;
  Result result = run_ranks(cell, options);
  result.worker = ++started_;
  result.worker_cells_before = 0;
  return result;
}

Result WorkerPool::run(const Cell& cell) {
  if (!warm_ || cell.parallel == Parallel::kDdp) return run_fresh(cell);
  const Clock::time_point start = Clock::now();
  const double timeout = cell_timeout(cell, options_);
  Result result;
  std::string reason;
  bool keep = false;
  try {
    Worker& worker = worker_for(worker_key(cell), cell);
    const std::string n = std::to_string(++requests_);
    const std::string stem = worker.work + "/cell-" + n,
                      out = worker.work + "/result-" + n + ".json";
    Result request;
    request.cell = cell;
    write_text_file(stem + ".json", json_text(result_to_json(request)) + "\n");
    result.worker = worker.id;
    result.worker_cells_before = worker.cells++;
    if (!send_line(worker.channel, n)) reason = "its worker process could not be reached";
    for (std::string reply; reason.empty();) {
      pollfd ready{worker.channel, POLLIN, 0};
      if (poll(&ready, 1, 20) > 0) {
        if (read_line(worker.channel, reply) && reply == n) break;
        // The worker closed its end: it died (a crash, the out-of-memory killer) or broke the
        // protocol, which costs this cell as a dead process does.
        int status = 0;
        if (waitpid(worker.pid, &status, WNOHANG) == 0) {
          kill(worker.pid, SIGKILL);
          waitpid(worker.pid, &status, 0);
        }
        worker.pid = -1;
        std::string output = last_lines(stem + ".log");
        if (output.empty()) output = last_lines(worker.work + "/worker.log");
        reason = "the cell's process " + status_text(status) + output;
      } else if (std::chrono::duration<double>(Clock::now() - start).count() > timeout) {
        char text[96];
        std::snprintf(text, sizeof text, "timed out after %g s; its process was stopped", timeout);
        reason = text;
      }
    }
    if (reason.empty()) {
      const int id = result.worker, before = result.worker_cells_before;
      result = read_results(out).at(0);
      result.cell = cell;
      result.worker = id;
      result.worker_cells_before = before;
      keep = result.status == CellStatus::kOk;
      for (const std::string& path : {stem + ".json", stem + ".log", out}) unlink(path.c_str());
    }
  } catch (const std::exception& e) {
    reason = e.what();
  }
  if (!reason.empty()) {
    const int id = result.worker, before = result.worker_cells_before;
    result = failed(cell, reason);
    result.worker = id;
    result.worker_cells_before = before;
  }
  // A cell that did not end ok leaves its worker in doubt: it goes, with its folder.
  if (!keep && !workers_.empty() && workers_.back()->id == result.worker)
    retire(workers_.size() - 1);
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

int serve_cells(const std::string& dir,
                const std::function<bool(const std::string&, const std::string&)>& run_one) {
  for (std::string n; read_line(kChannel, n);) {
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos) return 1;
    const std::string stem = dir + "/cell-" + n;
    // This cell's stderr: its own log, whose last lines explain a failure.
    const int fd =
        open((stem + ".log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    if (!run_one(stem + ".json", dir + "/result-" + n + ".json")) return 1;
    if (!send_line(kChannel, n)) return 1;
  }
  return 0;
}

std::string self_executable() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  return std::string(path, static_cast<std::size_t>(length));
}

}  // namespace crossover
