#include "reports/render/report_gbench.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// Every time in nanoseconds, Google Benchmark's default unit: compare.py prints whole units, so a
// sub-millisecond epoch in ms read "0" or "1", and it compares a benchmark only with the
// candidate's entries of the baseline's unit, so a unit that followed each run's median would drop
// a cell whose median crossed a boundary between runs. In ns every epoch shows three digits or
// more (none is under 100 ns), and the unit never changes.
constexpr double kNanosecondsPerSecond = 1e9;
constexpr const char* kTimeUnit = "ns";
// A counted cell's median counts as Google Benchmark's user counters beside its times.
void add_counters(Json& j, const Result& r) {
  const Counts& c = r.counts;
  if (!c.counted()) return;
  j["instructions"] = c.instructions_per_epoch;
  if (!c.estimated_cycles_samples.empty()) j["estimated_cycles"] = c.estimated_cycles_per_epoch;
  j["counter"] = c.counter;
}

Json entry(const std::string& name, std::size_t family, const Result& r, std::size_t repetitions) {
  Json j;
  j["name"] = name;
  j["family_index"] = family;
  j["per_family_instance_index"] = 0;
  j["run_name"] = name;
  j["repetitions"] = repetitions;
  j["threads"] = 1;
  j["workload"] = r.cell.workload;  // extra keys are kept by readers of the format
  return j;
}

}  // namespace

nlohmann::ordered_json render_gbench_json(const std::vector<Result>& results,
                                          const std::optional<Environment>& environment) {
  const Environment none;
  const Environment& env = environment ? *environment : none;
  Json context;
  context["date"] = env.recorded_at;
  context["host_name"] = env.host.hostname;
  context["executable"] = "crossover";
  context["num_cpus"] = env.cpu.logical_cores.value_or(0);
  context["mhz_per_cpu"] = 0;  // not recorded
  context["cpu_scaling_enabled"] = !env.cpu.governor.empty() && env.cpu.governor != "performance";
  context["caches"] = Json::array();
  context["load_avg"] = env.cpu.load_average;
  context["library_build_type"] = "release";
  context["crossover_version"] = env.crossover_version;
  context["crossover_revision"] = env.crossover_revision;
  context["libtorch_version"] = env.libtorch.version;

  std::vector<const Result*> ok;
  std::vector<Json> configs;
  for (const Result& r : results) {
    if (r.status != CellStatus::kOk || r.epoch_seconds_samples.empty()) continue;
    ok.push_back(&r);
    configs.push_back(cell_config_json(r.cell));
  }
  const auto names = distinguishing_names(configs, ":", "/");
  Json benchmarks = Json::array();
  for (std::size_t i = 0; i < ok.size(); ++i) {
    const Result& r = *ok[i];
    // Aggregates only, as Google Benchmark writes them with --benchmark_report_aggregates_only:
    // one entry per cell and statistic, each name unique, so that a tracker of the format
    // (github-action-benchmark's googlecpp) keeps one series per name. No per-epoch entries (they
    // shared the cell's name), no stddev (a tracker alerts on its noise) and no cv (a ratio,
    // which trackers took for a time): the spread is in bmf.json's interval.
    const std::pair<const char*, double> aggregates[] = {{"mean", r.epoch_seconds_mean},
                                                         {"median", r.epoch_seconds}};
    for (const auto& [aggregate, value] : aggregates) {
      Json j = entry(names[i] + "_" + aggregate, i, r, r.epoch_seconds_samples.size());
      j["run_name"] = names[i];
      j["run_type"] = "aggregate";
      j["aggregate_name"] = aggregate;
      j["aggregate_unit"] = "time";
      j["iterations"] = r.epoch_seconds_samples.size();
      const double time = value * kNanosecondsPerSecond;
      j["real_time"] = time;
      j["cpu_time"] = time;
      j["time_unit"] = kTimeUnit;
      j["items_per_second"] = static_cast<double>(r.train_rows) / value;
      add_counters(j, r);
      benchmarks.push_back(j);
    }
  }
  return Json{{"context", context}, {"benchmarks", benchmarks}};
}

namespace {

// The measured cells with their names, as gbench.json names them.
std::vector<std::pair<std::string, const Result*>> named_cells(const std::vector<Result>& results) {
  std::vector<const Result*> ok;
  std::vector<Json> configs;
  for (const Result& r : results) {
    if (r.status != CellStatus::kOk || !(r.epoch_seconds > 0.0)) continue;
    ok.push_back(&r);
    configs.push_back(cell_config_json(r.cell));
  }
  const auto names = distinguishing_names(configs, ":", "/");
  std::vector<std::pair<std::string, const Result*>> out;
  for (std::size_t i = 0; i < ok.size(); ++i) out.emplace_back(names[i], ok[i]);
  return out;
}

// A cell's 95 % interval of its median epoch, its median where it has none.
std::pair<double, double> epoch_interval(const Result& r) {
  const bool has =
      r.epoch_seconds_ci_low > 0.0 && r.epoch_seconds_ci_high >= r.epoch_seconds_ci_low;
  return has ? std::make_pair(r.epoch_seconds_ci_low, r.epoch_seconds_ci_high)
             : std::make_pair(r.epoch_seconds, r.epoch_seconds);
}

}  // namespace

nlohmann::ordered_json render_bmf_json(const std::vector<Result>& results) {
  Json out = Json::object();
  for (const auto& [name, r] : named_cells(results)) {
    const auto [low, high] = epoch_interval(*r);
    out[name]["latency"] = {{"value", r->epoch_seconds * kNanosecondsPerSecond},
                            {"lower_value", low * kNanosecondsPerSecond},
                            {"upper_value", high * kNanosecondsPerSecond}};
    if (r->samples_per_second > 0.0) out[name]["throughput"] = {{"value", r->samples_per_second}};
  }
  return out;
}

nlohmann::ordered_json render_benchmark_action_json(const std::vector<Result>& results) {
  Json out = Json::array();
  for (const auto& [name, r] : named_cells(results)) {
    const auto [low, high] = epoch_interval(*r);
    const double ms = 1e3;
    out.push_back({{"name", name},
                   {"unit", "ms/epoch"},
                   {"value", r->epoch_seconds * ms},
                   {"range", "± " + format_number((high - low) * ms / 2.0)},
                   {"extra", "cell " + std::to_string(r->cell.index) + "; 95 % interval " +
                                 format_number(low * ms) + "-" + format_number(high * ms) +
                                 " ms; " + std::to_string(r->epoch_samples) + " epochs"}});
  }
  return out;
}

}  // namespace crossover
