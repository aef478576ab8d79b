#pragma once
// The end of a cell that runs in the run's own process. A cell in a child process is killed at
// its timeout and fails alone (launch.hpp); a cell in this process cannot be stopped inside
// LibTorch, so at its deadline the run itself ends: every cell before it is in results.jsonl
// already (synced cell by cell), the message names the cell and how to let it fail alone, and
// `run --resume` continues. No LibTorch.

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace crossover {

/// While alive, ends the process with exit status 1 once `seconds` pass (none when `seconds` is
/// 0 or less), after one error line: "cell LABEL still runs after N s" and `then` (what ends
/// and the way out; by default a run's words).
class CellWatchdog {
 public:
  CellWatchdog(std::string label, double seconds, std::string then = kRunStops);
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
