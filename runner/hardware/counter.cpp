#include "runner/hardware/counter.hpp"

#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "core/files/user_files.hpp"
#include "core/text/text.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CROSSOVER_HAVE_CALLGRIND 1
#else
#define CROSSOVER_HAVE_CALLGRIND 0
#endif

namespace crossover {
namespace {

// A dump holds a few kilobytes per function called; LibTorch's epochs call thousands.
constexpr std::uint64_t kMaxDumpBytes = std::uint64_t{1} << 30;

// The first executable of `name` on PATH, or "".
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

int open_perf_instructions(pid_t tid) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.inherit = 1;  // threads this one starts later count too (summed when they end)
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, 0));
}

// The CPU's counter of user-space instructions, one per thread of the process at start().
class PerfCounter : public InstructionCounter {
 public:
  ~PerfCounter() override { close_all(); }
  void start() override {
    close_all();
    // A thread pool started before (OpenMP's, OpenBLAS's) is counted through each thread's own
    // counter: inherit covers only threads started after a counter opens.
    if (DIR* dir = opendir("/proc/self/task")) {
      while (const dirent* entry = readdir(dir)) {
        if (entry->d_name[0] == '.') continue;
        const int fd = open_perf_instructions(static_cast<pid_t>(std::atoi(entry->d_name)));
        if (fd >= 0) fds_.push_back(fd);
      }
      closedir(dir);
    }
    if (fds_.empty()) throw std::runtime_error("perf: no thread of this process can be counted");
    for (int fd : fds_) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  }
  CountReading stop() override {
    CountReading reading;
    for (int fd : fds_) {
      ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
      std::uint64_t value = 0;
      if (read(fd, &value, sizeof value) == static_cast<ssize_t>(sizeof value))
        reading.instructions += static_cast<double>(value);
    }
    close_all();
    return reading;
  }
  CounterKind kind() const override { return CounterKind::kPerf; }
  std::string version() const override { return "linux perf_event"; }

 private:
  void close_all() {
    for (int fd : fds_) close(fd);
    fds_.clear();
  }
  std::vector<int> fds_;
};

#if CROSSOVER_HAVE_CALLGRIND
// Callgrind's counts of each span: instrumentation on at start(), the span dumped at stop() to
// PREFIX.PID.N (N counts the dumps from 1) and read back.
class CallgrindCounter : public InstructionCounter {
 public:
  explicit CallgrindCounter(std::string prefix) : prefix_(std::move(prefix)) {}
  // Instrumentation stays on between the spans of a series (switching it on discards valgrind's
  // translations, which every span would pay again); each span's counts start from zero.
  void start() override {
    if (!instrumenting_) CALLGRIND_START_INSTRUMENTATION;
    instrumenting_ = true;
    CALLGRIND_ZERO_STATS;
  }
  void pause() override {
    if (instrumenting_) CALLGRIND_STOP_INSTRUMENTATION;
    instrumenting_ = false;
  }
  CountReading stop() override {
    CALLGRIND_DUMP_STATS_AT("crossover counted span");
    // Dumps are numbered per process: a warm worker counts several cells.
    static int dumps = 0;
    const std::string path =
        prefix_ + "." + std::to_string(getpid()) + "." + std::to_string(++dumps);
    const CountReading reading = read_callgrind_dump(path);
    if (version_.empty()) version_ = creator(path);
    unlink(path.c_str());
    return reading;
  }
  CounterKind kind() const override { return CounterKind::kCallgrind; }
  std::string version() const override { return version_; }

 private:
  // "creator: callgrind-3.19.0" -> "valgrind-3.19.0".
  static std::string creator(const std::string& path) {
    std::istringstream in(read_user_file(path, kMaxDumpBytes, "a Callgrind dump"));
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("creator: callgrind-", 0) == 0) return "valgrind-" + line.substr(19);
      if (line.rfind("events:", 0) == 0) break;
    }
    return "valgrind";
  }
  std::string prefix_;
  bool instrumenting_ = false;
  std::string version_;
};
#endif

bool running_on_valgrind() {
#if CROSSOVER_HAVE_CALLGRIND
  return RUNNING_ON_VALGRIND != 0;
#else
  return false;
#endif
}

}  // namespace

Found perf_unavailable_reason() {
  const int fd = open_perf_instructions(0);
  if (fd >= 0) {
    close(fd);
    return std::nullopt;
  }
  const int error = errno;
  std::string why = std::string("perf_event_open: ") + std::strerror(error);
  if (error == ENOENT || error == EOPNOTSUPP || error == ENODEV)
    why += " (no hardware counters: a virtual machine?)";
  if (error == EACCES || error == EPERM) why += " (kernel.perf_event_paranoid forbids it)";
  return Problem(why);
}

CounterKind counter_for(Count count) {
  const char* text = std::getenv(kCounterVariable);
  const std::string asked = text != nullptr ? text : "";
  const std::optional<CounterKind> forced = parse_word<CounterKind>(asked);  // else "auto"
  if (!asked.empty() && asked != "auto" && !forced)
    throw std::invalid_argument(std::string(kCounterVariable) +
                                " must be \"auto\", \"perf\" or \"callgrind\", got '" + asked +
                                "'");
  if (forced == CounterKind::kCallgrind || count == Count::kCycles) {
    if (forced == CounterKind::kPerf)
      throw std::runtime_error(
          "count \"cycles\" estimates cycles from Callgrind's cache simulation; perf counts "
          "instructions alone (unset " +
          std::string(kCounterVariable) + ", or count \"instructions\")");
    return CounterKind::kCallgrind;
  }
  const Found perf = perf_unavailable_reason();
  if (forced == CounterKind::kPerf && perf)
    throw std::runtime_error(std::string(kCounterVariable) +
                             "=perf, but this machine cannot count instructions: " + perf->text);
  return perf ? CounterKind::kCallgrind : CounterKind::kPerf;
}

std::vector<std::string> callgrind_command(Count count, const std::string& prefix) {
  const std::string valgrind = on_path("valgrind");
  if (valgrind.empty())
    throw std::runtime_error(
        "count \"" + text_of(count) +
        "\" needs valgrind's Callgrind here (no hardware counters): install Debian's valgrind "
        "(apt-get install valgrind; scripts/setup.sh does)");
  std::vector<std::string> command = {valgrind,
                                      "--tool=callgrind",
                                      "--instr-atstart=no",
                                      "--callgrind-out-file=" + prefix + ".%p",
                                      "--dump-instr=no",
                                      "--compress-strings=no",
                                      "--error-exitcode=0",
                                      "--quiet"};
  if (count == Count::kCycles) command.emplace_back("--cache-sim=yes");
  return command;
}

std::vector<std::string> callgrind_environment(const std::string& prefix) {
  std::vector<std::string> env = {std::string(kCallgrindOutVariable) + "=" + prefix};
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  if (core == nullptr || *core == '\0') env.emplace_back("OPENBLAS_CORETYPE=Sandybridge");
  // oneDNN's JIT kernels (LibTorch's convolutions) likewise: AVX, without FMA.
  const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA");
  const char* dnnl = std::getenv("DNNL_MAX_CPU_ISA");
  if ((isa == nullptr || *isa == '\0') && (dnnl == nullptr || *dnnl == '\0'))
    env.emplace_back("ONEDNN_MAX_CPU_ISA=AVX");
  return env;
}

std::string valgrind_path() { return on_path("valgrind"); }

std::string instruction_set() {
  // The kernels OpenBLAS was told to use run other instructions than those it would choose.
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  std::string blas =
      core != nullptr && *core != '\0' ? std::string("; OpenBLAS ") + core : std::string();
  for (const char* name : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"}) {
    const char* isa = std::getenv(name);
    if (isa != nullptr && *isa != '\0') {
      blas += std::string("; oneDNN ") + isa;
      break;
    }
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512" + blas;
  if (__builtin_cpu_supports("avx2")) return "avx2" + blas;
  if (__builtin_cpu_supports("avx")) return "avx" + blas;
  if (__builtin_cpu_supports("sse4.2")) return "sse4.2" + blas;
  return "x86-64" + blas;
#else
  return blas;
#endif
}

std::unique_ptr<InstructionCounter> open_counter(Count count) {
  const char* prefix = std::getenv(kCallgrindOutVariable);
  if (running_on_valgrind()) {
#if CROSSOVER_HAVE_CALLGRIND
    if (prefix == nullptr || *prefix == '\0')
      throw std::runtime_error(std::string("under valgrind without ") + kCallgrindOutVariable +
                               ": the counted cell's dumps have no known name (run it through "
                               "`crossover run`, which starts it under Callgrind itself)");
    return std::make_unique<CallgrindCounter>(prefix);
#endif
  }
  if (count == Count::kCycles)
    throw std::runtime_error(
        "count \"cycles\" is estimated under Callgrind, and this process does not run under it");
  if (const Found perf = perf_unavailable_reason())
    throw std::runtime_error("count \"instructions\": no counter in this process (" + perf->text +
                             "), and it does not run under Callgrind");
  return std::make_unique<PerfCounter>();
}

void record_counts(const std::vector<CountReading>& readings, const InstructionCounter& counter,
                   Count count, double steps_per_epoch, Counts& counts) {
  counts.counter = text_of(counter.kind());
  counts.counter_version = counter.version();
  counts.counted_isa = instruction_set();
  std::vector<double> instructions, cycles;
  for (const CountReading& reading : readings) {
    instructions.push_back(reading.instructions);
    if (count == Count::kCycles) cycles.push_back(reading.estimated_cycles);
  }
  counts.set_samples(std::move(instructions), std::move(cycles), steps_per_epoch);
}

CountReading read_callgrind_dump(const std::string& path) {
  std::istringstream in(read_user_file(path, kMaxDumpBytes, "a Callgrind dump"));
  std::vector<std::string> events;
  std::vector<double> values;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("events:", 0) == 0) {
      std::istringstream names(line.substr(7));
      for (std::string name; names >> name;) events.push_back(name);
    } else if (line.rfind("summary:", 0) == 0) {
      std::istringstream numbers(line.substr(8));
      for (std::string number; numbers >> number;) {
        // Callgrind writes whole decimal numbers: anything else is no count of its.
        const bool digits =
            number.size() <= 20 && number.find_first_not_of("0123456789") == std::string::npos;
        const double value = digits ? std::strtod(number.c_str(), nullptr) : -1.0;
        if (!digits || !(value < 1e19))
          throw std::runtime_error(path + ": a count of \"" + number + "\" in its summary");
        values.push_back(value);
      }
      break;
    }
  }
  if (events.empty() || values.size() != events.size())
    throw std::runtime_error(path + ": not a Callgrind dump (no events: and summary: lines)");
  const auto event = [&](const char* name) {
    for (std::size_t i = 0; i < events.size(); ++i)
      if (events[i] == name) return values[i];
    return -1.0;
  };
  CountReading reading;
  reading.instructions = event("Ir");
  if (reading.instructions < 0.0) throw std::runtime_error(path + ": no Ir (instructions) counted");
  if (event("DLmw") >= 0.0)
    reading.estimated_cycles =
        estimated_cycles(event("Ir"), event("Dr"), event("Dw"), event("I1mr"), event("D1mr"),
                         event("D1mw"), event("ILmr"), event("DLmr"), event("DLmw"));
  return reading;
}

double estimated_cycles(double ir, double dr, double dw, double i1mr, double d1mr, double d1mw,
                        double ilmr, double dlmr, double dlmw) {
  const double accesses = ir + dr + dw;
  const double l1_misses = i1mr + d1mr + d1mw;
  const double ll_misses = ilmr + dlmr + dlmw;
  return (accesses - l1_misses) + 5.0 * (l1_misses - ll_misses) + 35.0 * ll_misses;
}

// Not inlined: its calibration and its planted spans must run the same instructions.
[[gnu::noinline]] double planted_arithmetic(long long iterations) {
  double x = 1.0;
  // Each step needs the one before, and the empty assembly hides x from the optimiser, which
  // would otherwise fold the whole loop (1.0 is its fixed point) into a constant.
  for (long long i = 0; i < iterations; ++i) {
    x = x * 0.9999999 + 1e-7;
#if defined(__GNUC__)
    asm volatile("" : "+x"(x));
#endif
  }
  return x;
}

void PlantedWork::after_epoch(double seconds, InstructionCounter* counter, CountReading& reading) {
  if (!(fraction_ > 0.0)) return;
  volatile double sink = 0.0;  // what the arithmetic computed, kept
  if (counter != nullptr) {
    // Sized by counts: the arithmetic's instructions per step are learned from what it counted
    // (a first guess of its 5, then its own count), and a span that fell short is topped up.
    const double target = fraction_ * reading.instructions;
    double done = 0.0;
    for (int span = 0; span < 3 && target - done > 1e-3 * target; ++span) {
      const double per = instructions_per_iteration_ > 0.0 ? instructions_per_iteration_ : 5.0;
      const auto iterations = static_cast<long long>((target - done) / per);
      if (iterations <= 0) break;
      counter->start();
      sink = planted_arithmetic(iterations);
      const CountReading extra = counter->stop();
      done += extra.instructions;
      reading.estimated_cycles += extra.estimated_cycles;
      instructions_per_iteration_ =
          std::max(1.0, extra.instructions / static_cast<double>(iterations));
    }
    reading.instructions += done;
    return;
  }
  using Clock = std::chrono::steady_clock;
  if (seconds_per_iteration_ <= 0.0) {
    constexpr long long kCalibration = 1 << 20;
    const Clock::time_point start = Clock::now();
    sink = planted_arithmetic(kCalibration);
    seconds_per_iteration_ =
        std::max(1e-12, std::chrono::duration<double>(Clock::now() - start).count() / kCalibration);
  }
  sink = planted_arithmetic(static_cast<long long>(fraction_ * seconds / seconds_per_iteration_));
  (void)sink;
}

double planted_work_from_environment() {
  const char* text = std::getenv(kPlantWorkVariable);
  if (text == nullptr || *text == '\0') return 0.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || std::strpbrk(text, "xXpP") != nullptr ||
      !(value >= 0.0 && value <= kMaxPlantWork))
    throw std::invalid_argument(std::string(kPlantWorkVariable) +
                                " must be a fraction of each epoch's work from 0 to " +
                                std::to_string(static_cast<int>(kMaxPlantWork)) +
                                " (0.02: every timed epoch does 2 % more), got '" + text + "'");
  return value;
}

}  // namespace crossover
