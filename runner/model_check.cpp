#include "runner/model_check.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <set>
#include <string>

#include "workloads/user_model.hpp"

namespace crossover {
namespace {

// user_model_problem(cell) in a child process; what the child said, or how it died.
std::string problem_in_child(const Cell& cell, const ModelCheck& check) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return "cannot check model " + cell.model + ": no pipe";
  const pid_t child = fork();
  if (child < 0) {
    close(pipe_ends[0]);
    close(pipe_ends[1]);
    return "cannot check model " + cell.model + ": cannot start a process";
  }
  if (child == 0) {
    close(pipe_ends[0]);
    const std::string problem = check ? check(cell) : user_model_problem(cell);
    std::size_t written = 0;
    while (written < problem.size()) {
      const ssize_t n = write(pipe_ends[1], problem.data() + written, problem.size() - written);
      if (n <= 0) break;
      written += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(pipe_ends[1]);
  std::string said;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_ends[0], buffer, sizeof buffer)) > 0;)
    said.append(buffer, static_cast<std::size_t>(n));
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFSIGNALED(status)) {
    return "model " + cell.model + " crashed LibTorch while loading or running one batch (" +
           strsignal(WTERMSIG(status)) + "); check it in Python with torch.jit.load";
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "model " + cell.model + ": its check ended with status " + std::to_string(status);
  return said;
}

}  // namespace

std::vector<GridIssue> check_user_models(const std::vector<Cell>& cells, const ModelCheck& check) {
  std::vector<GridIssue> issues;
  std::set<std::string> checked;
  for (const Cell& cell : cells) {
    if (cell.workload != "torchscript") continue;
    std::string key =
        cell.model + "|" + std::to_string(cell.classes) + "|" + std::to_string(cell.outputs);
    for (const std::int64_t size : cell.input_shape) key += "|" + std::to_string(size);
    if (!checked.insert(key).second) continue;
    if (std::string problem = problem_in_child(cell, check); !problem.empty())
      issues.push_back({"experiments[" + std::to_string(cell.experiment) + "]", problem});
  }
  return issues;
}

}  // namespace crossover
