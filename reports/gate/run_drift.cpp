#include "reports/gate/run_drift.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "core/stats/stats.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// The reference measurements around one cell, or around the whole run when the cell has none
// (no index given, or a run of an older crossover).
ReferenceSpan reference_around(const Environment& env, std::optional<std::size_t> cell) {
  if (cell)
    if (const ReferenceSpan* span = env.reference.around(*cell)) return *span;
  return env.reference.run();
}

// The geometric mean of a span's before and after times of `what`, or 0 when unrecorded.
double reference_seconds(const ReferenceSpan& around, double ReferenceTimes::*what) {
  std::vector<double> times;
  for (const auto& when : {around.before, around.after})
    if (when && (*when).*what > 0.0) times.push_back((*when).*what);
  if (times.empty()) return 0.0;
  double log_sum = 0.0;
  for (double t : times) log_sum += std::log(t);
  return std::exp(log_sum / static_cast<double>(times.size()));
}

// after / before of the reference that moved most; 1 without both.
double within_run_move(const ReferenceSpan& around) {
  double furthest = 1.0;
  if (!around.before || !around.after) return furthest;
  for (const auto what : {&ReferenceTimes::matmul_seconds, &ReferenceTimes::step_seconds}) {
    const double before = (*around.before).*what;
    const double after = (*around.after).*what;
    if (before > 0.0 && after > 0.0 &&
        std::abs(std::log(after / before)) > std::abs(std::log(furthest)))
      furthest = after / before;
  }
  return furthest;
}

std::string signed_percent(double ratio) { return format_percent(ratio - 1.0); }

// log(after / before) of `what` over a span; nothing without both.
std::optional<double> span_move(const ReferenceSpan& span, double ReferenceTimes::*what) {
  if (!span.before || !span.after) return std::nullopt;
  const double before = (*span.before).*what, after = (*span.after).*what;
  if (!(before > 0.0) || !(after > 0.0)) return std::nullopt;
  return std::log(after / before);
}

// The variance of the log of the reference's level around one cell of a run (the mean of its
// timings before and after): its before-to-after move there, or the run's typical move around
// its cells where that is larger (two timings that happened to agree prove little), as the
// variance of a mean of two: move^2 / 4.
double level_variance(const Environment& env, const ReferenceSpan& around,
                      double ReferenceTimes::*what) {
  std::vector<double> squares;
  for (const auto& [cell, span] : env.reference.cells)
    if (const auto move = span_move(span, what)) squares.push_back(*move * *move);
  if (squares.empty())
    if (const auto move = span_move(env.reference.run(), what)) squares.push_back(*move * *move);
  double typical = 0.0;
  for (double sq : squares) typical += sq / static_cast<double>(squares.size());
  const double local = span_move(around, what).value_or(0.0);
  return std::max(typical, local * local) / 4.0;
}

// Each ok cell's index and the medians of its epoch and step samples, by identity.
struct CellMedians {
  std::size_t index = 0;
  double epoch = 0.0;
  double step = 0.0;
  bool all_cores = false;  // uses_all_cores
};

std::map<std::string, CellMedians> cell_medians(const RunRecord& run) {
  std::map<std::string, CellMedians> out;
  for (const Result& r : run.results) {
    if (r.status != CellStatus::kOk || r.epoch_seconds_samples.empty()) continue;
    const std::string key = cell_identity_json(r.cell).dump();
    if (out.count(key) != 0) continue;
    const double step =
        r.step_seconds_samples.empty() ? 0.0 : quantile(r.step_seconds_samples, 0.5);
    out[key] = {r.cell.index, quantile(r.epoch_seconds_samples, 0.5), step, uses_all_cores(r.cell)};
  }
  return out;
}

Json spread_json(const CellSpread& s) {
  return {{"beta", s.beta},
          {"sigma", s.sigma},
          {"sigma_raw", s.sigma_raw},
          {"pairs", s.pairs},
          {"degrees_of_freedom", s.degrees_of_freedom}};
}

CellSpread spread_from_json(const nlohmann::json& j, const std::string& where) {
  CellSpread s;
  try {
    s.beta = j.at("beta").get<double>();
    s.sigma = j.at("sigma").get<double>();
    s.sigma_raw = j.at("sigma_raw").get<double>();
    // A count: never a float cast to an integer (1e300 pairs would be undefined behaviour).
    const nlohmann::json& pairs = j.at("pairs");
    if (!pairs.is_number_integer() || pairs.get<double>() < 0.0 || pairs.get<double>() > 1e9)
      throw std::invalid_argument(where + ": pairs must be a whole number from 0 to 1e9");
    s.pairs = pairs.get<std::size_t>();
    s.degrees_of_freedom = j.at("degrees_of_freedom").get<double>();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
  // sigma is a spread of log times: 10 would be a factor of 22,000 between two runs.
  if (!(s.sigma >= 0.0 && s.sigma <= 10.0) || !(s.sigma_raw >= 0.0 && s.sigma_raw <= 10.0) ||
      !(s.degrees_of_freedom >= 1.0 && s.degrees_of_freedom <= 1e9) ||
      !(s.beta >= 0.0 && s.beta <= 1.0))
    throw std::invalid_argument(where +
                                ": sigma and sigma_raw must be within [0, 10], beta within [0, "
                                "1] and degrees_of_freedom within [1, 1e9]");
  return s;
}

}  // namespace

std::optional<ReferenceDrift> reference_drift(const Environment& baseline_env,
                                              const Environment& candidate_env,
                                              std::optional<std::size_t> baseline_cell,
                                              std::optional<std::size_t> candidate_cell,
                                              bool all_cores) {
  const ReferenceSpan b = reference_around(baseline_env, baseline_cell);
  const ReferenceSpan c = reference_around(candidate_env, candidate_cell);
  const bool all = all_cores && reference_seconds(b, &ReferenceTimes::step_all_seconds) > 0.0 &&
                   reference_seconds(c, &ReferenceTimes::step_all_seconds) > 0.0;
  const auto matmul = all ? &ReferenceTimes::matmul_all_seconds : &ReferenceTimes::matmul_seconds;
  const auto step = all ? &ReferenceTimes::step_all_seconds : &ReferenceTimes::step_seconds;
  const double bm = reference_seconds(b, matmul);
  const double bs = reference_seconds(b, step);
  const double cm = reference_seconds(c, matmul);
  const double cs = reference_seconds(c, step);
  if (bm <= 0.0 || bs <= 0.0 || cm <= 0.0 || cs <= 0.0) return std::nullopt;
  ReferenceDrift d;
  d.matmul = cm / bm;
  d.step = cs / bs;
  d.machine = std::sqrt(d.matmul * d.step);
  d.within_baseline = within_run_move(b);
  d.within_candidate = within_run_move(c);
  // machine = sqrt(matmul * step): its log is the mean of two logs whose noises need not be
  // independent (one neighbour slows both), so their variances are averaged, not halved.
  double variance = 0.0;
  for (const auto what : {matmul, step})
    variance +=
        (level_variance(baseline_env, b, what) + level_variance(candidate_env, c, what)) / 2.0;
  d.noise = std::max(std::sqrt(variance), kReferenceNoiseFloor);
  return d;
}

std::vector<CellDrift> drifted_cells(const Environment& env) {
  std::vector<CellDrift> out;
  // A merged run: each shard's cells against its own start, never another shard's; then the
  // cells of a resume of it against the resuming process's start.
  std::set<std::size_t> in_shards;
  for (const MergedShard& shard : env.shards) {
    for (const auto& [cell, around] : shard.env.reference.cells) in_shards.insert(cell);
    if (!shard.env.shards.empty()) continue;  // a merge of merges is read one level deep
    const std::vector<CellDrift> mine = drifted_cells(shard.env);
    out.insert(out.end(), mine.begin(), mine.end());
  }
  const ReferenceRecord& reference = env.reference;
  const double at_start =
      reference_seconds({reference.before, std::nullopt}, &ReferenceTimes::matmul_seconds);
  for (const auto& [cell, around] : reference.cells) {
    if (at_start <= 0.0 || in_shards.count(cell) != 0) continue;
    const double seconds = reference_seconds(around, &ReferenceTimes::matmul_seconds);
    if (seconds <= 0.0) continue;
    const double ratio = seconds / at_start;
    if (std::abs(std::log(ratio)) > std::log(1.0 + kDriftShare)) out.push_back({cell, ratio});
  }
  std::sort(out.begin(), out.end(),
            [](const CellDrift& a, const CellDrift& b) { return a.cell < b.cell; });
  return out;
}

double furthest_drift(const std::vector<CellDrift>& drifted) {
  double furthest = 1.0;
  for (const CellDrift& d : drifted)
    if (std::abs(std::log(d.ratio)) > std::abs(std::log(furthest))) furthest = d.ratio;
  return furthest;
}

std::set<std::size_t> drifted_cell_indices(const Environment& env) {
  std::set<std::size_t> out;
  for (const CellDrift& d : drifted_cells(env)) out.insert(d.cell);
  return out;
}

namespace {

// "cell 3" or "cells 1, 2 and 5", twelve at most, then how many more.
std::string cells_text(const std::vector<CellDrift>& drifted) {
  std::vector<std::string> cells;
  for (const CellDrift& d : drifted)
    if (cells.size() < 12) cells.push_back(std::to_string(d.cell));
  if (drifted.size() > cells.size())
    cells.push_back(std::to_string(drifted.size() - cells.size()) + " more");
  return cells.size() == 1
             ? "cell " + cells[0]
             : "cells " + join(std::vector<std::string>(cells.begin(), cells.end() - 1)) + " and " +
                   cells.back();
}

}  // namespace

std::string drift_warning(const Environment& env) {
  const std::vector<CellDrift> drifted = drifted_cells(env);
  if (drifted.empty()) return "";
  // Each direction with its own cells and its furthest move, in words that say the direction (a
  // time ratio of 0.354 is a machine 2.8x faster, not -64.6 %): a merged run whose shards moved
  // both ways says both, as each shard said its own.
  std::vector<CellDrift> slower, faster;
  for (const CellDrift& d : drifted) (d.ratio >= 1.0 ? slower : faster).push_back(d);
  std::vector<std::string> moves;
  if (!slower.empty())
    moves.push_back("around " + cells_text(slower) + " it took up to " +
                    format_percent(furthest_drift(slower) - 1.0, false) +
                    " longer than before the first cell (the machine got slower)");
  if (!faster.empty())
    moves.push_back("around " + cells_text(faster) + " it ran up to " +
                    format_number(1.0 / furthest_drift(faster)) +
                    "x as fast as before the first cell (the machine got faster)");
  return "The machine's speed moved during the run, by the reference matrix product: " +
         join(moves, "; ") +
         ". Other work on the machine, or a clock that changed: what is built on those cells "
         "may not hold; measure them again on a quiet machine.";
}

bool ReferenceDrift::stands_out() const {
  return machine > 0.0 && std::abs(std::log(machine)) > 1.96 * noise;
}

bool ReferenceDrift::moved() const {
  return stands_out() || (machine > 0.0 && std::abs(std::log(machine)) > std::log1p(kDriftShare));
}

std::string drift_text(const ReferenceDrift& d) {
  std::string noise = "its noise ±" + format_percent(std::expm1(1.96 * d.noise), false);
  if (!d.moved())
    return "machine steady within its noise (reference " + signed_percent(d.machine) + ", " +
           noise + ")";
  if (!d.stands_out())
    noise += ": within it, but beyond the " + format_percent(kDriftShare, false) +
             " a run calls drifted, so not steady";
  return "the candidate's machine was " +
         (d.machine > 1.0 ? signed_percent(d.machine).substr(1) + " slower"
                          : signed_percent(1.0 / d.machine).substr(1) + " faster") +
         " (reference matmul " + signed_percent(d.matmul) + ", step " + signed_percent(d.step) +
         "; " + noise + ")";
}

const CellSpread& CellCalibration::spread(GateMetric metric) const {
  return metric == GateMetric::kStep ? step : epoch;
}

const CellCalibration* Calibration::find(const nlohmann::ordered_json& identity) const {
  // As plain json: a file read back has its keys in another order. The machine's label is no
  // part of a cell here: a calibration is of a runner, whatever it was called.
  nlohmann::json wanted = identity;
  wanted.erase("host");
  for (const auto& cell : cells) {
    nlohmann::json config = cell.config;
    config.erase("host");
    if (config == wanted) return &cell;
  }
  return nullptr;
}

nlohmann::ordered_json runner_of(const Environment& env) {
  Json runner = Json::object();
  if (!env.host.hostname.empty()) runner["host"] = env.host.hostname;
  if (!env.cpu.model.empty()) runner["cpu"] = env.cpu.model;
  if (env.cpu.logical_cores) runner["logical_cores"] = *env.cpu.logical_cores;
  return runner;
}

Calibration calibrate_pairs(const std::vector<std::pair<RunRecord, RunRecord>>& pairs,
                            std::optional<std::size_t> leave_out) {
  struct Series {
    Json config;
    std::vector<double> epoch, step, machine;
  };
  std::map<std::string, Series> series;
  std::vector<std::string> order;
  std::size_t used = 0;
  bool every_pair_has_reference = true;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (leave_out && *leave_out == i) continue;
    ++used;
    const auto& [first, second] = pairs[i];
    const auto a = cell_medians(first), b = cell_medians(second);
    for (const auto& [key, medians] : a) {
      const auto other = b.find(key);
      if (other == b.end()) continue;
      const auto drift =
          first.environment && second.environment
              ? reference_drift(*first.environment, *second.environment, medians.index,
                                other->second.index, medians.all_cores)
              : std::nullopt;
      every_pair_has_reference &= drift.has_value();
      auto [it, inserted] = series.try_emplace(key);
      if (inserted) {
        it->second.config = Json::parse(key);
        order.push_back(key);
      }
      it->second.epoch.push_back(std::log(other->second.epoch / medians.epoch));
      const bool steps = medians.step > 0.0 && other->second.step > 0.0;
      it->second.step.push_back(steps ? std::log(other->second.step / medians.step) : 0.0);
      it->second.machine.push_back(drift ? std::log(drift->machine) : 0.0);
    }
  }
  if (used < 2)
    throw std::invalid_argument("a calibration needs at least two A/A pairs of runs, got " +
                                std::to_string(used));
  Calibration calibration;
  if (!pairs.empty() && pairs.front().first.environment)
    calibration.runner = runner_of(*pairs.front().first.environment);
  std::vector<Json> configs;
  for (const auto& key : order) {
    if (series[key].epoch.size() == used) configs.push_back(series[key].config);
  }
  const auto names = distinguishing_names(configs);
  for (std::size_t k = 0; k < configs.size(); ++k) {
    const Series& s = series[configs[k].dump()];
    const std::vector<double> none;
    const auto& machine = every_pair_has_reference ? s.machine : none;
    calibration.cells.push_back({names[k], configs[k], estimate_spread(s.epoch, machine),
                                 estimate_spread(s.step, machine)});
  }
  return calibration;
}

nlohmann::ordered_json calibration_json(const Calibration& c) {
  Json cells = Json::array();
  for (const auto& cell : c.cells) {
    cells.push_back({{"name", cell.name},
                     {"config", cell.config},
                     {"epoch", spread_json(cell.epoch)},
                     {"step", spread_json(cell.step)}});
  }
  return {{"runner", c.runner}, {"cells", cells}};
}

Calibration calibration_from_json(const nlohmann::json& j, const std::string& source) {
  Calibration c;
  c.source = source;
  if (!j.is_object() || !j.contains("cells") || !j["cells"].is_array())
    throw std::invalid_argument(source +
                                ": not a calibration (no \"cells\" list); give the "
                                "calibrate.json that crossover calibrate wrote");
  if (j.contains("runner") && j["runner"].is_object()) c.runner = j["runner"];
  for (std::size_t i = 0; i < j["cells"].size(); ++i) {
    const auto& cell = j["cells"][i];
    const std::string where = source + ": cells[" + std::to_string(i) + "]";
    if (!cell.is_object() || !cell.contains("config") || !cell["config"].is_object() ||
        !cell.contains("epoch") || !cell.contains("step"))
      throw std::invalid_argument(where + " needs \"config\", \"epoch\" and \"step\"");
    c.cells.push_back({cell.value("name", std::string()), cell["config"],
                       spread_from_json(cell["epoch"], where + ".epoch"),
                       spread_from_json(cell["step"], where + ".step")});
  }
  return c;
}

}  // namespace crossover
