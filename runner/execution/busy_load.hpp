#pragma once
// Busy processes that compete for the cores: the planted slowdown of `crossover calibrate`.
// `run` starts them after the reference measurement and stops them before the second one when
// CROSSOVER_PLANT_LOAD=N is set, and holds them still while it times the reference between cells,
// so they slow the cells (as a slower training step would) and not the reference (which would
// read them as a machine that changed speed).

#include <sys/types.h>

#include <vector>

namespace crossover {

/// The environment variable that asks `run` for a planted load, and its largest value.
inline constexpr const char* kPlantLoadVariable = "CROSSOVER_PLANT_LOAD";
inline constexpr int kMaxPlantLoad = 64;

/// CROSSOVER_PLANT_LOAD as a count of busy processes: 0 when unset; throws
/// std::invalid_argument naming the variable when it is not a whole number from 0 to 64.
int planted_load_from_environment();

/// The environment variable that plants a slowdown of known size in the code itself: each timed
/// epoch spins for that fraction of its own time (0.25: every epoch 25 % slower), while the
/// reference is untouched. For checking what a gate catches; its largest value.
inline constexpr const char* kPlantSlowdownVariable = "CROSSOVER_PLANT_SLOWDOWN";
inline constexpr double kMaxPlantSlowdown = 10.0;

/// CROSSOVER_PLANT_SLOWDOWN as a fraction: 0 when unset; throws std::invalid_argument naming the
/// variable when it is not a number from 0 to 10.
double planted_slowdown_from_environment();

/// How many other processes are running on the CPUs now (/proc/stat's procs_running less this
/// one; the median of five reads 20 ms apart), or -1 where it cannot be read: a profile or a
/// reference measured beside them reads the machine slow.
int other_running_processes();

/// `processes` children that spin until the object is destroyed (or the parent dies).
class BusyLoad {
 public:
  explicit BusyLoad(int processes);
  ~BusyLoad();
  BusyLoad(const BusyLoad&) = delete;
  BusyLoad& operator=(const BusyLoad&) = delete;

  /// Stops the children now and waits for them.
  void stop();
  /// Holds the children still (SIGSTOP) and lets them go on (SIGCONT): the reference between
  /// two cells is timed without them.
  void pause();
  void resume();
  int size() const { return static_cast<int>(children_.size()); }

 private:
  std::vector<pid_t> children_;
};

}  // namespace crossover
