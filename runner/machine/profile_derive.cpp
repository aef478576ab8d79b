#include "runner/machine/profile_derive.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "core/costmodel/cost_model.hpp"
#include "core/records/prediction.hpp"
#include "core/stats/stats.hpp"
#include "core/text/text.hpp"
#include "runner/execution/anatomy.hpp"
#include "runner/execution/watchdog.hpp"
#include "runner/machine/revision.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// The most one cell's anatomy may take here (docs/commands.md, profile --derive).
constexpr double kAnatomySecondsPerCell = 120.0;

// A measured cell with its anatomy, as derivation reads it.
struct Observed {
  const Result* result = nullptr;
  std::string run;
  StepAnatomy anatomy;
  double ops = 0.0;  // the operators the model counts on its device
  double step = 0.0;
};

// The operators the model counts for a cell: every phase but a batch made on the host.
double counted_ops(const StepAnatomy& a, const Cell& cell) {
  const StepContext c = context_of(cell);
  double ops = 0.0;
  for (const OpGroup& g : a.groups)
    if (g.phase != Phase::kData || c.batch_on_device) ops += g.count;
  return ops;
}

// Cells that have no anatomy of their own, whose anatomy is taken again here.
std::size_t anatomies_to_take(const std::vector<RunRecord>& runs) {
  std::size_t count = 0;
  for (const RunRecord& run : runs)
    for (const Result& r : run.results)
      count += r.status == CellStatus::kOk && r.step_seconds > 0.0 && r.anatomy.empty();
  return count;
}

std::vector<Observed> observe(const std::vector<RunRecord>& runs, const std::string& data_dir) {
  std::vector<Observed> out;
  const std::size_t to_take = anatomies_to_take(runs);
  std::size_t taken = 0;
  for (const RunRecord& run : runs) {
    for (const Result& r : run.results) {
      if (r.status != CellStatus::kOk || r.step_seconds <= 0.0) continue;
      Result copy = r;
      if (copy.anatomy.empty()) {
        spdlog::info("anatomy {}/{}: {} ({}, cell {})", ++taken, to_take, cell_label(r.cell),
                     run.label, r.cell.index);
        // A few probed steps on small data: a cell still at it after this is stuck.
        const CellWatchdog watchdog(cell_label(r.cell), kAnatomySecondsPerCell,
                                    ": profile --derive stops (each cell's anatomy may take " +
                                        format_seconds(kAnatomySecondsPerCell) +
                                        "); leave this run out");
        try {
          record_twin_anatomy(r.cell, data_dir, copy);
        } catch (const std::exception& e) {
          spdlog::warn("{}: cell {}: no anatomy ({}); left out", run.label, r.cell.index, e.what());
          continue;
        }
      }
      Observed o;
      o.result = &r;
      o.run = run.label;
      o.anatomy = copy.anatomy.step();
      o.ops = counted_ops(o.anatomy, r.cell);
      o.step = r.step_seconds;
      if (o.ops > 0.0) out.push_back(o);
    }
  }
  return out;
}

std::string cell_name(const Observed& o) {
  return o.run + "#" + std::to_string(o.result->cell.index);
}

// Median of `values`, or why there is none.
double median_of(const std::vector<double>& values, const std::string& what) {
  if (values.empty()) throw std::runtime_error("no cell to derive " + what + " from");
  return summarize(values).median;
}

// The cells of `kind` whose batch is cut on the device (no loader's wait in their step), sorted
// by `key` ascending.
template <typename Key>
std::vector<const Observed*> device_cells(const std::vector<Observed>& cells, DeviceKind kind,
                                          Key key) {
  std::vector<const Observed*> mine;
  for (const Observed& o : cells) {
    if (o.result->cell.device.kind == kind && context_of(o.result->cell).batch_on_device)
      mine.push_back(&o);
  }
  std::sort(mine.begin(), mine.end(),
            [&](const Observed* a, const Observed* b) { return key(*a) < key(*b); });
  return mine;
}

// dispatch = median of step / operators over the quarter of the cells (at least one) with the
// fewest FLOPs per operator: their steps are their operators' fixed cost.
double derive_dispatch(const std::vector<Observed>& cells, DeviceKind kind, Json& used) {
  auto mine =
      device_cells(cells, kind, [](const Observed& o) { return o.anatomy.flops() / o.ops; });
  mine.resize(std::min(mine.size(), std::max<std::size_t>(1, mine.size() / 4)));
  std::vector<double> values;
  for (const Observed* o : mine) {
    values.push_back(o->step / o->ops);
    used.push_back(cell_name(*o));
  }
  return median_of(values, text_of(kind) + " dispatch_seconds");
}

// bandwidth = median over the quarter of the cells with the most bytes (their batch cut on the
// device) of bytes / (step - ops x dispatch - FLOPs / P), where positive.
double derive_memory(const std::vector<Observed>& cells, DeviceKind kind, double dispatch,
                     double peak, Json& used) {
  auto mine = device_cells(cells, kind, [](const Observed& o) { return -o.anatomy.bytes(); });
  mine.resize(std::min(mine.size(), std::max<std::size_t>(1, mine.size() / 4)));
  std::vector<double> values;
  for (const Observed* o : mine) {
    const double rest = o->step - o->ops * dispatch - o->anatomy.flops() / peak;
    if (rest <= 0.0) continue;
    values.push_back(o->anatomy.bytes() / rest);
    used.push_back(cell_name(*o));
  }
  return median_of(values, text_of(kind) + " memory_bytes_per_second");
}

// The two cells that differ only in where the batch is cut: on the host (`pinned` or not) and
// on the device. h2d bytes / (their step difference), where positive.
std::vector<double> h2d_rates(const std::vector<Observed>& cells, bool pinned, Json& used) {
  std::vector<double> rates;
  for (const Observed& host : cells) {
    const Cell& c = host.result->cell;
    if (!c.device.is_cuda() || c.loader != Loader::kTensor ||
        c.data_placement != Placement::kHost || c.pin_memory != pinned ||
        host.anatomy.h2d_bytes <= 0.0)
      continue;
    for (const Observed& device : cells) {
      Cell twin = device.result->cell;
      if (twin.data_placement != Placement::kDevice || !twin.device.is_cuda()) continue;
      twin.data_placement = Placement::kHost;
      twin.pin_memory = pinned;
      if (cell_match_json(twin) != cell_match_json(c)) continue;
      const double difference = host.step - device.step;
      used.push_back(cell_name(host) + " - " + cell_name(device) + ": " +
                     format_seconds(difference));
      if (difference > 0.0) rates.push_back(host.anatomy.h2d_bytes / difference);
    }
  }
  return rates;
}

// The first number `read` finds among the runs' env.json records, or 0.
template <typename Read>
double from_env(const std::vector<RunRecord>& runs, Read read) {
  for (const RunRecord& run : runs) {
    if (!run.environment) continue;
    if (const std::optional<double> number = read(*run.environment)) return *number;
  }
  return 0.0;
}

// A device's matrix-product peak recorded at a run's start.
std::optional<double> peak_of(const Environment& env, const std::string& device) {
  for (const auto& [name, gflops] : env.peak_gflops)
    if (name == device) return gflops;
  return std::nullopt;
}

// A GPU's ladder from its peak P and its dispatch floor: 2 n^3 / max(dispatch, 2 n^3 / P).
std::vector<std::pair<double, double>> floor_ladder(double peak, double dispatch) {
  std::vector<std::pair<double, double>> ladder;
  for (double n = 8; n <= 8192; n *= 2) {
    const double flops = 2.0 * n * n * n;
    ladder.emplace_back(n, flops / std::max(dispatch, flops / peak));
  }
  return ladder;
}

// `shape`'s ladder scaled so that its rung at 1024 (interpolated) runs at `rate_1024`.
std::vector<std::pair<double, double>> scaled_ladder(const DeviceProfile& shape, double rate_1024) {
  const double factor = rate_1024 / shape.gemm_flops_per_second(2.0 * 1024.0 * 1024.0 * 1024.0);
  std::vector<std::pair<double, double>> ladder = shape.gemm;
  for (auto& rung : ladder) rung.second *= factor;
  return ladder;
}

// The CPU at every core (the runs' default threads) from the cells; one thread as `here` relates
// them.
void derive_cpu(const std::vector<Observed>& cells, const std::vector<RunRecord>& runs,
                const MachineProfile& here, Json& used, MachineProfile& p) {
  const double cpu_1024 =
      from_env(runs, [](const Environment& e) { return e.blas.matmul_1024_gflops; }) * 1e9;
  if (cpu_1024 <= 0.0)
    throw std::runtime_error(
        "no run's env.json has a usable blas.matmul_1024_gflops (a rate above 0, as every run "
        "records at its start)");
  p.cpu_all_threads.dispatch_seconds =
      derive_dispatch(cells, DeviceKind::kCpu, used["cpu_dispatch"]);
  p.cpu_all_threads.gemm = scaled_ladder(here.cpu_all_threads, cpu_1024);
  // The arithmetic taken out of a step before its bytes are counted runs at the runs' own
  // measured peak: this machine's ladder, read while it was busy, once left no time for memory
  // in any cell (a GPU host at a load of 60).
  const double measured = std::max(
      cpu_1024, from_env(runs, [](const Environment& e) { return peak_of(e, "cpu"); }) * 1e9);
  p.cpu_all_threads.memory_bytes_per_second = derive_memory(
      cells, DeviceKind::kCpu, p.cpu_all_threads.dispatch_seconds, measured, used["cpu_memory"]);
  p.cpu_one_thread = p.cpu_all_threads;
  p.cpu_one_thread.gemm =
      scaled_ladder(here.cpu_one_thread,
                    cpu_1024 * here.cpu_one_thread.gemm_flops_per_second(2.0 * 1073741824.0) /
                        here.cpu_all_threads.gemm_flops_per_second(2.0 * 1073741824.0));
  p.cpu_one_thread.memory_bytes_per_second *=
      here.cpu_one_thread.memory_bytes_per_second / here.cpu_all_threads.memory_bytes_per_second;
  // No rung above what the runs' machine measured itself: this machine's shape, scaled, can
  // claim more (one thread at 1,109 GFLOP/s from a host whose every core measured 163).
  // One thread has one core: at most twice its share of every core's peak (turbo, a sibling
  // hyper-thread idle), however this machine's two shapes relate.
  const double cores = from_env(runs, [](const Environment& e) {
    return e.cpu.logical_cores ? std::optional<double>(static_cast<double>(*e.cpu.logical_cores))
                               : std::nullopt;
  });
  const double one_core = cores > 0.0 ? measured * std::min(1.0, 2.0 / cores) : measured;
  for (auto [d, most, whose] :
       {std::tuple{&p.cpu_all_threads, measured, "the runs measured"},
        std::tuple{&p.cpu_one_thread, one_core, "twice one core's share of the runs' peak"}}) {
    for (auto& [n, rate] : d->gemm) {
      if (rate <= most) continue;
      used["capped"].push_back(std::string(d == &p.cpu_one_thread ? "one thread" : "every core") +
                               ", matmul at n=" + format_number(n) + ": " +
                               format_number(rate / 1e9) + " GFLOP/s derived, above " +
                               format_number(most / 1e9) + ", " + whose + "; that kept");
      rate = most;
    }
  }
  if (!used["capped"].empty())
    spdlog::warn(
        "{} derived CPU rate(s) lay above what the runs' machine can do (every core {} "
        "GFLOP/s, its measured peak; one thread {}) and were refused; the profile's "
        "provenance names them",
        used["capped"].size(), format_number(measured / 1e9), format_number(one_core / 1e9));
}

// The GPU from the cells, when the runs' env.json names its peak.
void derive_cuda(const std::vector<Observed>& cells, const std::vector<RunRecord>& runs, Json& used,
                 MachineProfile& p) {
  const double gpu_peak =
      from_env(runs, [](const Environment& e) { return peak_of(e, "cuda:0"); }) * 1e9;
  if (gpu_peak <= 0.0) return;
  DeviceProfile d;
  d.dispatch_seconds = derive_dispatch(cells, DeviceKind::kCuda, used["cuda_dispatch"]);
  d.gemm = floor_ladder(gpu_peak, d.dispatch_seconds);
  d.memory_bytes_per_second =
      derive_memory(cells, DeviceKind::kCuda, d.dispatch_seconds, gpu_peak, used["cuda_memory"]);
  const auto pageable = h2d_rates(cells, false, used["h2d_pageable"]);
  const auto pinned = h2d_rates(cells, true, used["h2d_pinned"]);
  d.h2d_pageable_bytes_per_second = pageable.empty() ? 25e9 : summarize(pageable).median;
  d.h2d_pinned_bytes_per_second = pinned.empty() ? 50e9 : summarize(pinned).median;
  d.sync_seconds = 0.0;  // inside each small step's dispatch, which it was derived from
  p.cuda = d;
  for (const RunRecord& run : runs) {
    if (p.gpu_name.empty() && run.environment && !run.environment->gpus.empty())
      p.gpu_name = run.environment->gpus.front().name;
  }
  if (pageable.empty() || pinned.empty()) {
    used["nominal"] =
        "host-to-device bandwidth: the runs' host and device placements differ by "
        "less than their noise, so the copy could not be derived; nominal PCIe "
        "values stand in (25 GB/s pageable, 50 GB/s pinned)";
  }
}

}  // namespace

MachineProfile derive_profile(const std::string& name, const std::vector<RunRecord>& runs,
                              const MachineProfile& here, const std::string& data_dir) {
  const std::vector<Observed> cells = observe(runs, data_dir);
  MachineProfile p;
  p.name = name;
  Json used = Json::object();
  for (const char* key : {"cpu_dispatch", "cpu_memory", "cuda_dispatch", "cuda_memory",
                          "h2d_pageable", "h2d_pinned", "capped"})
    used[key] = Json::array();
  derive_cpu(cells, runs, here, used, p);
  derive_cuda(cells, runs, used, p);
  for (const RunRecord& run : runs) {
    if (!run.environment) continue;
    const Environment& env = *run.environment;
    if (p.cpu_model.empty()) p.cpu_model = env.cpu.model;
    if (p.libtorch_version.empty()) p.libtorch_version = env.libtorch.version;
    if (p.logical_cores == 0 && env.cpu.logical_cores.value_or(0) > 0)
      p.logical_cores = static_cast<int>(*env.cpu.logical_cores);
  }
  Json runs_used = Json::array();
  for (const RunRecord& run : runs) runs_used.push_back(run.label);
  p.provenance = {
      {"derived_from", runs_used},
      {"revision", build_revision()},
      {"method",
       "derived by crossover profile --derive from the runs named, each cell's anatomy taken "
       "again on the CPU of the machine that derived it, from the cells whose batch is cut on the "
       "device: dispatch_seconds (per device) = median of step / operators over the quarter of "
       "them with the fewest FLOPs per operator; the GPU's gemm ladder = 2 "
       "n^3 / max(dispatch, 2 n^3 / P), P its env.json peak_gflops; the CPU's ladder = the "
       "deriving machine's shape scaled to the runs' blas.matmul_1024_gflops; "
       "memory_bytes_per_second = median over the quarter of them with the most bytes of bytes / "
       "(step - operators x dispatch - FLOPs / peak), peak the runs' own measured one; h2d = h2d "
       "bytes / (step with the batch on "
       "the host - step with it on the device)"},
      {"cells", used}};
  return p;
}

}  // namespace crossover
