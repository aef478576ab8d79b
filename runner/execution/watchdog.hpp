#pragma once
// The end of a cell that runs in the run's own process. A cell in a child process is killed at
// its timeout and fails alone (launch.hpp); a cell in this process cannot be stopped inside
// LibTorch, so at its deadline the run itself ends: every cell before it is in results.jsonl
// already (synced cell by cell), the message names the cell and how to let it fail alone, and
// `run --resume` continues. So it is with a SIGTERM while such a cell runs (a scheduler's stop,
// `kill`): the run cannot wait for the cell, so it ends at once with the same account; a SIGINT
// is said at once and lets the cell finish. No LibTorch.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace crossover {

/// While alive, ends the process with exit status 1 once `seconds` pass (none when `seconds` is
/// 0 or less), after one error line: "cell LABEL still runs after N s" and `then` (what ends
/// and the way out; by default a run's words). With `interrupted` (the signal the run caught, 0
/// before one): at a SIGTERM it ends the process with status 143 (128 + SIGTERM) after an
/// error line that names the cell and the way on; at a SIGINT it says the cell finishes first.
class CellWatchdog {
 public:
  CellWatchdog(std::string label, double seconds, std::string then = kRunStops,
               const std::atomic<int>* interrupted = nullptr);
  static constexpr const char* kRunStops =
      " (its timeout_seconds, by default 4 x time_budget_seconds + 120 s): the run stops here. "
      "The cells before it are in results.jsonl; give the cell \"isolate\": true (it then fails "
      "alone at its timeout) or a larger time_budget_seconds, and continue with run --resume";
  ~CellWatchdog();
  CellWatchdog(const CellWatchdog&) = delete;
  CellWatchdog& operator=(const CellWatchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace crossover
