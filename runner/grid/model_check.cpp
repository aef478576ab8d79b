#include "runner/grid/model_check.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <set>
#include <string>

#include "core/process/child.hpp"
#include "core/text/text.hpp"
#include "workloads/models/user_model.hpp"

namespace crossover {
namespace {

// What the child writes into `fd` until it closes it, or until `limit_seconds` have passed
// (false then).
bool read_within(int fd, double limit_seconds, std::string& said) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_seconds);
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) return true;
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    said.append(buffer, static_cast<std::size_t>(n));
  }
}

// user_model_problem(cell) in a child process; what the child said, how it died, or that it took
// longer than `limit_seconds` (it is killed then).
Found problem_in_child(const Cell& cell, const ModelCheck& check, double limit_seconds) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return Problem("cannot check model " + cell.model + ": no pipe");
  const int out = pipe_ends[1];
  const pid_t child = fork_child(
      [&] {
        close(pipe_ends[0]);
        const Found found = check ? check(cell) : user_model_problem(cell);
        const std::string problem = found ? found->text : "";  // nothing said: all is well
        std::size_t written = 0;
        while (written < problem.size()) {
          const ssize_t n = write(out, problem.data() + written, problem.size() - written);
          if (n <= 0) break;
          written += static_cast<std::size_t>(n);
        }
        return 0;
      },
      true);
  if (child < 0) {
    close(pipe_ends[0]);
    close(pipe_ends[1]);
    return Problem("cannot check model " + cell.model + ": cannot start a process");
  }
  close(pipe_ends[1]);
  std::string said;
  const bool finished = read_within(pipe_ends[0], limit_seconds, said);
  close(pipe_ends[0]);
  if (!finished) kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    return Problem("model " + cell.model +
                   ": its check (load it and run one batch of input_shape) did not finish within " +
                   format_number(limit_seconds) +
                   " s and was stopped; a forward that loops or waits never trains. Fix the "
                   "model, or give it longer with --model-check-seconds");
  }
  if (WIFSIGNALED(status)) {
    return Problem("model " + cell.model +
                   " crashed LibTorch while loading or running one batch (" +
                   strsignal(WTERMSIG(status)) + "); check it in Python with torch.jit.load");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Problem("model " + cell.model + ": its check ended with status " +
                   std::to_string(status));
  if (said.empty()) return std::nullopt;
  return Problem(said);
}

}  // namespace

std::vector<GridIssue> check_user_models(const std::vector<Cell>& cells, const ModelCheck& check,
                                         double limit_seconds) {
  std::vector<GridIssue> issues;
  std::set<std::string> checked;
  for (const Cell& cell : cells) {
    if (cell.workload != kUserModelWorkload) continue;
    std::string key =
        cell.model + "|" + std::to_string(cell.classes) + "|" + std::to_string(cell.outputs);
    for (const std::int64_t size : cell.input_shape) key += "|" + std::to_string(size);
    if (!checked.insert(key).second) continue;
    if (Found problem = problem_in_child(cell, check, limit_seconds))
      issues.push_back({"experiments[" + std::to_string(cell.experiment) + "]", problem->text});
  }
  return issues;
}

}  // namespace crossover
