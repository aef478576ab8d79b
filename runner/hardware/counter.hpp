#pragma once
// Counting instead of timing: what a counted cell's timed epochs execute (the `count` key). Two
// counters: the CPU's own (perf_event_open, user-space instructions, where the machine has a
// performance monitoring unit: free, exact to a few instructions) and Callgrind's (valgrind's
// simulated CPU: exact and repeatable on any machine, virtual or busy, 10-50x slower where it
// instruments). Under Callgrind the cell's process starts with instrumentation off
// (`--instr-atstart=no`), and the counter switches it on around each timed epoch alone (client
// requests of valgrind/callgrind.h), so LibTorch's start, the data and the anatomy run at
// valgrind's base speed. Each epoch's count is dumped to a file the counter reads back at once.
// Counts of two counters, or of two instruction sets (valgrind hides AVX-512), are never compared.

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cells/modes.hpp"
#include "core/records/result_parts.hpp"
#include "core/text/problem.hpp"

namespace crossover {

/// The environment variable that names the counter of an `instructions` cell: "callgrind",
/// "perf" or "auto" (the default: perf where it counts, Callgrind elsewhere). `cycles` always
/// uses Callgrind, whose cache simulation the estimate needs.
inline constexpr const char* kCounterVariable = "CROSSOVER_COUNTER";
/// Set by the launcher in a counted cell's process under Callgrind: its dump files' prefix
/// (`--callgrind-out-file=PREFIX.%p`, so each dump is PREFIX.PID.N).
inline constexpr const char* kCallgrindOutVariable = "CROSSOVER_CALLGRIND_OUT";

/// What one counted span executed.
struct CountReading {
  double instructions = 0.0;
  double estimated_cycles = 0.0;  ///< 0 without a cache simulation
};

/// Which counter counts a cell.
enum class CounterKind { kCallgrind, kPerf };
inline constexpr auto words(CounterKind) {
  return std::array{std::pair{CounterKind::kCallgrind, std::string_view("callgrind")},
                    std::pair{CounterKind::kPerf, std::string_view("perf")}};
}

/// Whether this machine's CPU counts user-space instructions for this process: nothing when it
/// does, else why not ("perf_event_open: No such file or directory (no PMU: a virtual machine?)").
Found perf_unavailable_reason();

/// The counter for a cell counted `count`: CROSSOVER_COUNTER's, else perf where it counts and
/// the count is `instructions`, else Callgrind. Throws std::invalid_argument naming the variable
/// for a value other than auto, perf and callgrind, and std::runtime_error when perf is asked for
/// but cannot count here, or for `cycles` under perf.
CounterKind counter_for(Count count);

/// The valgrind command line that runs a counted cell's process under Callgrind, writing its
/// dumps to PREFIX.PID.N (`cycles`: with the cache simulation). Throws std::runtime_error naming
/// the package when valgrind is not installed.
std::vector<std::string> callgrind_command(Count count, const std::string& prefix);

/// What a counted process under Callgrind has in its environment besides this one's ("NAME=value"):
/// its dumps' prefix, OPENBLAS_CORETYPE=Sandybridge and ONEDNN_MAX_CPU_ISA=AVX unless they are
/// set. valgrind runs fused multiply-adds through helper calls, so OpenBLAS's Haswell kernels ran
/// ~700x slower than the CPU (5 million instructions a second, a Fashion-MNIST MLP cell 216 s);
/// its Sandy Bridge kernels (AVX, no FMA) count 35 % more instructions, the cell in 12 s. oneDNN's
/// AVX kernels took a CNN cell from 42 s to 26 s. Counts record both (counted_isa).
std::vector<std::string> callgrind_environment(const std::string& prefix);

/// The valgrind on PATH, "" where it is not installed.
std::string valgrind_path();

/// The vector instructions this process may use, as the CPU (or valgrind's simulated one) says:
/// "avx512", "avx2", "avx", "sse4.2" or "x86-64" ("" elsewhere), and the OpenBLAS core type it
/// was told to use ("avx2; OpenBLAS Sandybridge"): counts made where the code could choose other
/// kernels are not the same work.
std::string instruction_set();

/// A counter of the spans between start() and stop(), in this process.
class InstructionCounter {
 public:
  virtual ~InstructionCounter() = default;
  /// Counts from now on (Callgrind: instrumentation switched on, if it is not, and the counts
  /// zeroed).
  virtual void start() = 0;
  /// What was counted since start().
  virtual CountReading stop() = 0;
  /// Ends a series of spans: Callgrind switches instrumentation off, so that what follows runs at
  /// valgrind's base speed. The next start() switches it on again.
  virtual void pause() {}
  virtual CounterKind kind() const = 0;
  /// "valgrind-3.19.0", "linux perf_event".
  virtual std::string version() const = 0;
};

/// The counter of a cell counted `count` in this process: Callgrind's when it runs under
/// valgrind (CROSSOVER_CALLGRIND_OUT set), else the CPU's. Throws std::runtime_error saying why
/// none can count (not under valgrind and no hardware counter, or `cycles` outside Callgrind).
std::unique_ptr<InstructionCounter> open_counter(Count count);

/// What `counter` counted in a cell's timed epochs (`readings`, in order), into `counts`: the
/// counter, its version, the instruction set, every epoch's instructions and (count "cycles")
/// estimated cycles, and their statistics per epoch and per step.
void record_counts(const std::vector<CountReading>& readings, const InstructionCounter& counter,
                   Count count, double steps_per_epoch, Counts& counts);

/// Reads one Callgrind dump's counts (its `events:` and `summary:` lines); throws
/// std::runtime_error naming the file when it has neither, or an event count that is not a number.
CountReading read_callgrind_dump(const std::string& path);

/// The estimated cycles of Callgrind's cache-simulation events, as iai-callgrind estimates them:
/// L1 hits + 5 x last-level hits + 35 x memory accesses (Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw).
double estimated_cycles(double ir, double dr, double dw, double i1mr, double d1mr, double d1mw,
                        double ilmr, double dlmr, double dlmw);

/// Planted work of known size (CROSSOVER_PLANT_WORK): a dependent chain of floating-point
/// arithmetic, `iterations` long, that no compiler can shorten; what it computed (to be kept).
double planted_arithmetic(long long iterations);

/// The environment variable that plants extra work in every timed epoch: that fraction of the
/// epoch's own work done again as arithmetic (0.02: 2 % more instructions under a counter, about
/// 2 % more time otherwise); its largest value.
inline constexpr const char* kPlantWorkVariable = "CROSSOVER_PLANT_WORK";
inline constexpr double kMaxPlantWork = 10.0;

/// The planted work of one cell: after each timed epoch, `fraction` of that epoch's work done
/// again. Under a counter, fraction x its instructions to within 0.1 % (sized by the arithmetic's
/// own counts, topped up where a span fell short, so it is as repeatable as they are), counted
/// and added to its reading; otherwise fraction x its seconds of the same arithmetic.
class PlantedWork {
 public:
  explicit PlantedWork(double fraction) : fraction_(fraction) {}
  /// Runs the extra work of an epoch that took `seconds` and counted `reading` (with `counter`,
  /// else null), adding what the extra counted to `reading`.
  void after_epoch(double seconds, InstructionCounter* counter, CountReading& reading);

 private:
  double fraction_;
  double instructions_per_iteration_ = 0.0;
  double seconds_per_iteration_ = 0.0;
};

/// A cell's counter (null: not counted) and what is planted in its timed epochs: the planted
/// slowdown's share of each epoch's time, and the planted work.
struct EpochExtras {
  InstructionCounter* counter = nullptr;
  double slowdown = 0.0;
  PlantedWork work{0.0};
};

/// CROSSOVER_PLANT_WORK as a fraction: 0 when unset; throws std::invalid_argument naming the
/// variable when it is not a number from 0 to 10.
double planted_work_from_environment();

}  // namespace crossover
