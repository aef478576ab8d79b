#include "runner/execution/watchdog.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <utility>

#include "core/text/log.hpp"
#include "core/text/text.hpp"

namespace crossover {

CellWatchdog::CellWatchdog(std::string label, double seconds, std::string then,
                           const std::atomic<int>* interrupted) {
  if (!(seconds > 0.0) && interrupted == nullptr) return;
  thread_ = std::thread([this, label = std::move(label), seconds, then = std::move(then),
                         interrupted] {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    const auto deadline =
        seconds > 0.0 ? now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(seconds))
                      : std::chrono::steady_clock::time_point::max();
    // A signal is looked for every 100 ms: a SIGTERM's sender waits seconds at most.
    constexpr auto kLook = std::chrono::milliseconds(100);
    bool said = false;
    while (true) {
      const auto next = std::chrono::steady_clock::now() + kLook;
      if (done_.wait_until(lock, std::min(deadline, next), [this] { return finished_; })) return;
      if (std::chrono::steady_clock::now() >= deadline) break;
      const int signal = interrupted != nullptr ? interrupted->load() : 0;
      if (signal == SIGTERM) {
        log_error("SIGTERM while cell " + label +
                  " ran in this process, which cannot stop it midway: the run stops now. The "
                  "cells before it are in results.jsonl; continue with run --resume (a cell with "
                  "\"isolate\": true is stopped alone)");
        std::_Exit(128 + SIGTERM);
      }
      if (signal == SIGINT && !said) {
        said = true;
        log_warning("interrupted: cell " + label +
                    " finishes first, then the reports are written for what finished (interrupt "
                    "again to stop at once)");
      }
    }
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
