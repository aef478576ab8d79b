#include "runner/execution/busy_load.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/process/child.hpp"

namespace crossover {

int planted_load_from_environment() {
  const char* text = std::getenv(kPlantLoadVariable);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > kMaxPlantLoad) {
    throw std::invalid_argument(std::string(kPlantLoadVariable) +
                                " must be a number of busy processes from 0 to " +
                                std::to_string(kMaxPlantLoad) + ", got '" + text + "'");
  }
  return static_cast<int>(value);
}

double planted_slowdown_from_environment() {
  const char* text = std::getenv(kPlantSlowdownVariable);
  if (text == nullptr || *text == '\0') return 0.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !(value >= 0.0 && value <= kMaxPlantSlowdown)) {
    throw std::invalid_argument(std::string(kPlantSlowdownVariable) +
                                " must be a fraction of each epoch's time from 0 to " +
                                std::to_string(static_cast<int>(kMaxPlantSlowdown)) +
                                " (0.25: every timed epoch 25 % slower), got '" + text + "'");
  }
  return value;
}

BusyLoad::BusyLoad(int processes) {
  for (int i = 0; i < processes; ++i) {
    const pid_t child = fork_child(
        [] {
          volatile unsigned long spin = 0;
          for (;;) spin = spin + 1;
          return 0;
        },
        true);  // never outlive the run
    if (child > 0) children_.push_back(child);
  }
}

int other_running_processes() {
  std::vector<int> reads;
  for (int i = 0; i < 5; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream stat("/proc/stat");
    for (std::string word; stat >> word;) {
      int running = 0;
      if (word == "procs_running" && stat >> running) reads.push_back(running - 1);
    }
  }
  if (reads.empty()) return -1;
  std::sort(reads.begin(), reads.end());
  return std::max(0, reads[reads.size() / 2]);
}

void BusyLoad::stop() {
  for (const pid_t child : children_) kill(child, SIGKILL);
  for (const pid_t child : children_) waitpid(child, nullptr, 0);
  children_.clear();
}

void BusyLoad::pause() {
  for (const pid_t child : children_) kill(child, SIGSTOP);
}

void BusyLoad::resume() {
  for (const pid_t child : children_) kill(child, SIGCONT);
}

BusyLoad::~BusyLoad() { stop(); }

}  // namespace crossover
