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
#include "core/process/child.hpp"
#include "core/text/text.hpp"
#include "runner/hardware/counter.hpp"

namespace crossover {
namespace {

using Clock = std::chrono::steady_clock;

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

// Rank `rank` of the cell, its diagnostics into its log, Ctrl-C left to `run` (which lets the
// running cell finish), dying with it. `counter`: the command the rank runs under (Callgrind's for
// a counted cell), or empty.
pid_t start_rank(const Cell& cell, const LaunchOptions& options, const std::string& binary,
                 const std::string& work, int rank, const std::vector<std::string>& counter) {
  const std::string n = std::to_string(rank);
  ChildSpec spec;
  spec.argv = counter;
  for (const std::string& arg :
       {binary, std::string("worker"), std::string("--cell"), work + "/cell.json",
        std::string("--out"), work + "/rank-" + n + ".json", std::string("--data-dir"),
        options.data_dir, std::string("--quiet")})
    spec.argv.push_back(arg);
  if (options.timing_only) spec.argv.emplace_back("--timing-only");
  if (cell.parallel == Parallel::kDdp) {
    // The ranks meet through a file in this private folder, not a TCP store: nothing they
    // start listens beyond loopback (Gloo's pairs bind to MASTER_ADDR's loopback address).
    spec.environment = {"CROSSOVER_STORE_FILE=" + work + "/store", "MASTER_ADDR=127.0.0.1",
                        "WORLD_SIZE=" + std::to_string(cell.nproc), "RANK=" + n, "LOCAL_RANK=" + n};
  }
  if (!counter.empty()) {
    for (const std::string& variable : callgrind_environment(work + "/callgrind"))
      spec.environment.push_back(variable);
  }
  spec.stderr_file = work + "/rank-" + n + ".log";
  spec.ignore_interrupt = true;
  spec.die_with_parent = true;
  return start_child(spec);
}

// A SIGTERM to `run` stops the cell's processes now (each in its own group); true once sent.
bool pass_on_termination(const std::atomic<int>* interrupted, const std::vector<pid_t>& pids) {
  if (interrupted == nullptr || interrupted->load() != SIGTERM) return false;
  for (pid_t p : pids) {
    if (p > 0) kill(-p, SIGTERM);
  }
  return true;
}

// Stops every rank still running, with its process group.
void kill_ranks(const std::vector<pid_t>& ranks) {
  for (pid_t p : ranks) {
    if (p > 0) kill(-p, SIGKILL);
  }
}

// Waits for every rank; the first that fails, the timeout or a SIGTERM to `run` stops the
// others. Returns why the cell failed, or "" when every rank exited 0.
std::string wait_for_ranks(std::vector<pid_t>& ranks, const std::string& work, bool ddp,
                           Clock::time_point start, double timeout,
                           const std::atomic<int>* interrupted) {
  std::string reason;
  bool terminated = false;
  for (std::size_t running = ranks.size(); running > 0;) {
    for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
      int status = 0;
      if (ranks[rank] <= 0 || waitpid(ranks[rank], &status, WNOHANG) != ranks[rank]) continue;
      --running;
      ranks[rank] = -1;
      if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) && reason.empty()) {
        reason = (ddp ? "rank " + std::to_string(rank) : std::string("the cell's process")) + " " +
                 exit_text(status) + last_lines(work + "/rank-" + std::to_string(rank) + ".log");
        if (terminated) reason = "the run was stopped (SIGTERM) while this cell ran; " + reason;
        kill_ranks(ranks);
      }
    }
    if (!terminated && reason.empty()) terminated = pass_on_termination(interrupted, ranks);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (elapsed > timeout && reason.empty()) {
      reason = "timed out after " + format_number(timeout) + " s; " +
               (ddp ? "the ranks were" : "its process was") + " stopped";
      kill_ranks(ranks);
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
      const pid_t pid = start_rank(cell, options, binary, work, rank, counter);
      if (pid < 0) {
        kill_ranks(ranks);
        for (pid_t p : ranks) waitpid(p, nullptr, 0);
        throw std::runtime_error("cannot start rank " + std::to_string(rank));
      }
      ranks.push_back(pid);
    }
    const std::string reason =
        wait_for_ranks(ranks, work, ddp, start, timeout, options.interrupted);
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
    kill(-worker.pid, SIGKILL);
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
  // A counted worker without hardware counters serves under Callgrind: LibTorch's start under
  // valgrind (about 10 s here) is paid once per worker, not per counted cell.
  ChildSpec spec;
  if (cell.count != Count::kNone && counter_for(cell.count) == CounterKind::kCallgrind) {
    spec.argv = callgrind_command(cell.count, worker->work + "/callgrind");
    spec.environment = callgrind_environment(worker->work + "/callgrind");
  }
  for (const std::string& arg :
       {options_.binary, std::string("worker"), std::string("--serve"), worker->work,
        std::string("--data-dir"), options_.data_dir, std::string("--quiet")})
    spec.argv.push_back(arg);
  spec.channel = pair[1];  // the worker's end, as its fd 3
  spec.stdin_file = "/dev/null";
  spec.stderr_file = worker->work + "/worker.log";
  spec.ignore_interrupt = true;  // Ctrl-C is for `run`, which lets the running cell finish
  spec.die_with_parent = true;
  const pid_t pid = start_child(spec);
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
    bool terminated = false;
    for (std::string reply; reason.empty();) {
      pollfd ready{worker.channel, POLLIN, 0};
      if (poll(&ready, 1, 20) > 0) {
        if (read_line(worker.channel, reply) && reply == n) break;
        // The worker closed its end: it died (a crash, the out-of-memory killer) or broke the
        // protocol, which costs this cell as a dead process does.
        int status = 0;
        if (waitpid(worker.pid, &status, WNOHANG) == 0) {
          kill(-worker.pid, SIGKILL);
          waitpid(worker.pid, &status, 0);
        }
        worker.pid = -1;
        std::string output = last_lines(stem + ".log");
        if (output.empty()) output = last_lines(worker.work + "/worker.log");
        reason =
            std::string(terminated ? "the run was stopped (SIGTERM) while this cell ran; " : "") +
            "the cell's process " + exit_text(status) + output;
      } else if (!terminated && pass_on_termination(options_.interrupted, {worker.pid})) {
        terminated = true;
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
