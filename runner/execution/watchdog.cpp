#include "runner/execution/watchdog.hpp"

#include <chrono>
#include <cstdlib>
#include <utility>

#include "core/text/log.hpp"
#include "core/text/text.hpp"

namespace crossover {

CellWatchdog::CellWatchdog(std::string label, double seconds, std::string then) {
  if (!(seconds > 0.0)) return;
  thread_ = std::thread([this, label = std::move(label), seconds, then = std::move(then)] {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    if (done_.wait_until(lock, deadline, [this] { return finished_; })) return;
    log_error("cell " + label + " still runs after " + format_seconds(seconds) + then);
    std::_Exit(1);  // the exit status of a run in which a cell failed
  });
}

CellWatchdog::~CellWatchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  done_.notify_one();
  thread_.join();
}

}  // namespace crossover
