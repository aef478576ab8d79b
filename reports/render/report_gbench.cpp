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
// The most iterations gbench.json lists per cell: more than any repetition count a Google
// Benchmark user compares.
constexpr std::size_t kGbenchIterations = 200;

// A counted cell's counts as Google Benchmark's user counters beside its times: one epoch's (the
// k-th of n iterations), or, for an aggregate (k < 0), the median.
void add_counters(Json& j, const Result& r, long k, std::size_t n) {
  const Counts& c = r.counts;
  if (!c.counted()) return;
  const auto pick = [&](const std::vector<double>& samples, double median) {
    return k >= 0 && !samples.empty()
               ? samples[static_cast<std::size_t>(k) * samples.size() / std::max<std::size_t>(n, 1)]
               : median;
  };
  j["instructions"] = pick(c.instructions_samples, c.instructions_per_epoch);
  if (!c.estimated_cycles_samples.empty())
    j["estimated_cycles"] = pick(c.estimated_cycles_samples, c.estimated_cycles_per_epoch);
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
    // One iteration per epoch sample, up to kGbenchIterations (a cell of 100 processes would
    // list 200,000), evenly spread beyond that; the aggregates are over every sample.
    std::vector<double> samples;
    const auto& all = r.epoch_seconds_samples;
    const std::size_t shown = std::min(all.size(), kGbenchIterations);
    for (std::size_t k = 0; k < shown; ++k) samples.push_back(all[k * all.size() / shown]);
    for (std::size_t k = 0; k < samples.size(); ++k) {
      Json j = entry(names[i], i, r, samples.size());
      j["run_type"] = "iteration";
      j["repetition_index"] = k;
      j["iterations"] = 1;
      j["real_time"] = samples[k] * kNanosecondsPerSecond;
      j["cpu_time"] = samples[k] * kNanosecondsPerSecond;
      j["time_unit"] = kTimeUnit;
      j["items_per_second"] = static_cast<double>(r.train_rows) / samples[k];
      add_counters(j, r, static_cast<long>(k), samples.size());
      benchmarks.push_back(j);
    }
    // The result's own statistics, over every sample it kept.
    // No cv: a ratio, which trackers of the format take for a time (github-action-benchmark
    // tracked it as "ns/iter").
    const std::pair<const char*, double> aggregates[] = {{"mean", r.epoch_seconds_mean},
                                                         {"median", r.epoch_seconds},
                                                         {"stddev", r.epoch_seconds_stdev}};
    for (const auto& [aggregate, value] : aggregates) {
      Json j = entry(names[i] + "_" + aggregate, i, r, samples.size());
      j["run_name"] = names[i];
      j["run_type"] = "aggregate";
      j["aggregate_name"] = aggregate;
      j["aggregate_unit"] = "time";
      j["iterations"] = all.size();
      const double time = value * kNanosecondsPerSecond;
      j["real_time"] = time;
      j["cpu_time"] = time;
      j["time_unit"] = kTimeUnit;
      if (std::string(aggregate) == "median" || std::string(aggregate) == "mean") {
        j["items_per_second"] = static_cast<double>(r.train_rows) / value;
        add_counters(j, r, -1, 0);
      }
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
  const bool has = r.epoch_seconds_ci_low > 0.0 && r.epoch_seconds_ci_high >= r.epoch_seconds_ci_low;
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
    if (r->samples_per_second > 0.0)
      out[name]["throughput"] = {{"value", r->samples_per_second}};
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
