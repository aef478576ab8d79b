#include "reports/gate/history.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <functional>
#include <regex>
#include <set>
#include <stdexcept>

#include "core/cells/cell.hpp"
#include "core/stats/bootstrap.hpp"
#include "core/stats/stats.hpp"
#include "core/text/text.hpp"

namespace crossover {
namespace {

constexpr const char* kFormat = "crossover history 1";
// An epoch time no run measures (a year): a result or a stored point beyond it is not a time that
// a ratio or an interval could be made of (1e308 would give an infinite change).
constexpr double kMostEpochSeconds = 365.0 * 24 * 3600;
// The most instructions an epoch of a counted series can hold.
constexpr double kMostCount = 1e18;

// The medians of points [from, to).
std::vector<double> medians(const HistoryCell& cell, std::size_t from, std::size_t to) {
  std::vector<double> out;
  for (std::size_t i = from; i < to; ++i) out.push_back(cell.points[i].median);
  return out;
}

// A field of a stored history, checked; `where` names it in the error.
const nlohmann::json& member(const nlohmann::json& object, const char* key,
                             nlohmann::json::value_t type, const std::string& where) {
  if (!object.is_object() || !object.contains(key))
    throw std::runtime_error(where + ": no \"" + key + "\"");
  const nlohmann::json& value = object.at(key);
  if (value.type() != type) {
    const char* expected = type == nlohmann::json::value_t::array    ? "an array"
                           : type == nlohmann::json::value_t::object ? "an object"
                                                                     : "a string";
    throw std::runtime_error(where + "." + key + ": not " + expected + " but " + value.type_name());
  }
  return value;
}

std::string text(const nlohmann::json& object, const char* key, const std::string& where) {
  return member(object, key, nlohmann::json::value_t::string, where).get<std::string>();
}

HistoryPoint point_from_json(const nlohmann::json& p, std::size_t runs, const std::string& where,
                             bool counted) {
  const double most = counted ? kMostCount : kMostEpochSeconds;
  if (!p.is_array() || p.size() != 4)
    throw std::runtime_error(where + ": not [run, median, p25, p75]");
  for (const auto& v : p)
    if (!v.is_number()) throw std::runtime_error(where + ": not [run, median, p25, p75]");
  HistoryPoint point;
  const double run = p[0].get<double>();
  if (!(run >= 0.0 && run < static_cast<double>(runs)) || run != std::floor(run))
    throw std::runtime_error(where + ": run " + p[0].dump() + " is not one of the history's runs");
  point.run = static_cast<std::size_t>(run);
  point.median = p[1].get<double>();
  point.p25 = p[2].get<double>();
  point.p75 = p[3].get<double>();
  if (!(point.median > 0.0 && point.median <= most && std::isfinite(point.p25) &&
        std::isfinite(point.p75)))
    throw std::runtime_error(where +
                             (counted
                                  ? ": a count that is not a positive number up to "
                                  : ": a time that is not a positive number of seconds up to ") +
                             format_number(most));
  // The quartiles are times too, around the median: a p25 of -1e300 would stretch a chart's axis
  // to nothing. 0 is a quartile a run did not record.
  const bool unrecorded = point.p25 == 0.0 && point.p75 == 0.0;
  if (!unrecorded && !(point.p25 > 0.0 && point.p25 <= point.median && point.p75 >= point.median &&
                       point.p75 <= most))
    throw std::runtime_error(where + ": quartiles that are not times around the median (p25 " +
                             format_number(point.p25) + ", median " + format_number(point.median) +
                             ", p75 " + format_number(point.p75) + ")");
  return point;
}

}  // namespace

namespace {

// Adds `point` to the series of `identity` and `metric`, which it starts when there is none.
void add_point(History& history, const nlohmann::ordered_json& identity, const std::string& label,
               GateMetric metric, const HistoryPoint& point) {
  // Compared as plain JSON: a stored history's keys may come back in another order.
  const nlohmann::json key = identity;
  auto cell = std::find_if(history.cells.begin(), history.cells.end(), [&](const HistoryCell& c) {
    return c.metric == metric && nlohmann::json(c.identity) == key;
  });
  if (cell == history.cells.end()) {
    HistoryCell added;
    added.identity = identity;
    added.label = label;
    added.metric = metric;
    history.cells.push_back(std::move(added));
    cell = history.cells.end() - 1;
  }
  // A cell twice in one run (the rounds of compare --rerun): its first result stands for it.
  if (!cell->points.empty() && cell->points.back().run == point.run) return;
  cell->points.push_back(point);
}

}  // namespace

void append_run(History& history, const HistoryRun& run, const std::vector<Result>& results) {
  for (const HistoryRun& r : history.runs) {
    if (r.name == run.name && r.recorded_at == run.recorded_at && r.commit == run.commit)
      throw std::invalid_argument("the history already holds the run " + run.name + " (" +
                                  run.commit + ", " + run.recorded_at + ")");
  }
  const std::size_t index = history.runs.size();
  history.runs.push_back(run);
  for (const Result& r : results) {
    history.predicted_left_out += r.status == CellStatus::kPredicted;
    if (r.status != CellStatus::kOk || !(r.epoch_seconds > 0.0) ||
        r.epoch_seconds > kMostEpochSeconds)
      continue;
    add_point(history, cell_identity_json(r.cell), cell_label(r.cell), GateMetric::kEpoch,
              {index, r.epoch_seconds, r.epoch_seconds_p25, r.epoch_seconds_p75});
    const Counts& c = r.counts;
    if (c.counted() && c.instructions_per_epoch <= kMostCount)
      add_point(history, cell_identity_json(r.cell), cell_label(r.cell) + " (instructions)",
                GateMetric::kInstructions,
                {index, c.instructions_per_epoch, quantile(c.instructions_samples, 0.25),
                 quantile(c.instructions_samples, 0.75)});
  }
}

std::string run_tick(const History& history, std::size_t r) {
  const std::string& commit = history.runs.at(r).commit;
  std::size_t same = 0, before = 0;
  for (std::size_t i = 0; i < history.runs.size(); ++i) {
    if (history.runs[i].commit != commit) continue;
    ++same;
    before += i < r;
  }
  return commit.substr(0, 7) + (same > 1 && before > 0 ? " #" + std::to_string(before + 1) : "");
}

void find_changes(History& history, const ChangePointOptions& options) {
  for (HistoryCell& cell : history.cells) {
    cell.changes.clear();
    std::vector<double> series;
    for (const HistoryPoint& p : cell.points) series.push_back(std::log(p.median));
    const std::vector<ChangePoint> found = e_divisive(series, options);
    for (std::size_t k = 0; k < found.size(); ++k) {
      const std::size_t at = found[k].index;
      const std::size_t from = k == 0 ? 0 : found[k - 1].index;
      const std::size_t to = k + 1 < found.size() ? found[k + 1].index : cell.points.size();
      const std::vector<double> before = medians(cell, from, at), after = medians(cell, at, to);
      HistoryChange change;
      change.point = at;
      change.last_before = history.runs[cell.points[at - 1].run].commit;
      change.first_after = history.runs[cell.points[at].run].commit;
      change.change = quantile(after, 0.5) / quantile(before, 0.5) - 1.0;
      const Interval ratio = bootstrap_speedup(after, before, options.seed + at);
      change.interval = {ratio.low - 1.0, ratio.high - 1.0};
      change.p_value = found[k].p_value;
      cell.changes.push_back(change);
    }
  }
}

std::optional<HistoryChange> newest_slowdown(const HistoryCell& cell) {
  if (cell.changes.empty()) return std::nullopt;
  const HistoryChange& newest = cell.changes.back();
  if (newest.change > cell.threshold && newest.interval.low > 0.0) return newest;
  return std::nullopt;
}

std::optional<HistorySuspect> newest_suspect(const HistoryCell& cell) {
  const std::size_t n = cell.points.size();
  if (newest_slowdown(cell) || n < 3) return std::nullopt;
  const auto median_of = [&](std::size_t from, std::size_t to) {
    std::vector<double> medians;
    for (std::size_t i = from; i < to; ++i) medians.push_back(cell.points[i].median);
    return summarize(medians).median;
  };
  // The bar the runs before a tail of `t` runs set: the threshold, or, where they vary more, the
  // one-sided prediction bound of a mean of t new runs from their spread (Student t on their
  // log medians, 99.9 % for one run, 99 % for two or more): a noisy night is no suspect, and two
  // bad nights in a row need less.
  const auto bar_of = [&](std::size_t before, std::size_t t) {
    std::vector<double> logs;
    for (std::size_t i = 0; i < before; ++i) logs.push_back(std::log(cell.points[i].median));
    const Summary spread = summarize(logs);
    const boost::math::students_t student(static_cast<double>(before - 1));
    const double q = boost::math::quantile(student, t == 1 ? 0.999 : 0.99);
    const double se =
        spread.stdev * std::sqrt(1.0 / static_cast<double>(t) + 1.0 / static_cast<double>(before));
    return std::max(cell.threshold, std::expm1(q * se));
  };
  // The longest tail, each of its runs slower than the runs before the tail by the threshold and
  // their mean beyond the bar; three runs before it at least, to know their spread.
  std::size_t tail = 0;
  double bar = cell.threshold;
  for (std::size_t t = 1; t + 3 <= n; ++t) {
    const double before = median_of(0, n - t);
    const double this_bar = bar_of(n - t, t);
    double log_mean = 0.0, before_mean = 0.0;
    bool slower = true;
    for (std::size_t i = n - t; i < n; ++i) {
      slower = slower && cell.points[i].median > before * (1.0 + cell.threshold);
      log_mean += std::log(cell.points[i].median) / static_cast<double>(t);
    }
    for (std::size_t i = 0; i < n - t; ++i)
      before_mean += std::log(cell.points[i].median) / static_cast<double>(n - t);
    if (!slower || log_mean - before_mean <= std::log1p(this_bar)) {
      if (t == 1) continue;  // one run within the bar: a second may still make a tail
      break;
    }
    tail = t;
    bar = this_bar;
  }
  if (tail == 0) return std::nullopt;
  HistorySuspect suspect;
  suspect.bar = bar;
  for (std::size_t i = n - tail; i < n; ++i) suspect.runs.push_back(cell.points[i].run);
  suspect.change = median_of(n - tail, n) / median_of(0, n - tail) - 1.0;
  return suspect;
}

std::vector<std::string> setup_changes(const History& history, std::size_t before,
                                       std::size_t after) {
  std::vector<std::string> out;
  if (before >= history.runs.size() || after >= history.runs.size()) return out;
  const auto& a = history.runs[before].setup;
  const auto& b = history.runs[after].setup;
  if (a.empty() || b.empty()) return out;  // a run of an older history: nothing to compare
  for (const auto& [what, value] : b.items()) {
    const std::string was =
        a.contains(what) && a[what].is_string() ? a[what].get<std::string>() : "(not recorded)";
    const std::string now = value.is_string() ? value.get<std::string>() : "(not recorded)";
    if (was != now) out.push_back(what + ": " + was + " -> " + now);
  }
  return out;
}

nlohmann::ordered_json history_json(const History& history) {
  nlohmann::ordered_json out;
  out["format"] = kFormat;
  out["runs"] = nlohmann::ordered_json::array();
  for (const HistoryRun& r : history.runs) {
    out["runs"].push_back({{"name", r.name}, {"commit", r.commit}, {"recorded_at", r.recorded_at}});
    if (!r.machine.empty()) out["runs"].back()["machine"] = r.machine;
    if (!r.setup.empty()) out["runs"].back()["setup"] = r.setup;
  }
  out["cells"] = nlohmann::ordered_json::array();
  for (const HistoryCell& c : history.cells) {
    nlohmann::ordered_json cell = {{"identity", c.identity}, {"label", c.label}};
    if (c.metric != GateMetric::kEpoch) cell["metric"] = c.metric;
    cell["threshold"] = c.threshold;
    cell["newest_slower"] = newest_slowdown(c).has_value();
    if (const auto suspect = newest_suspect(c))
      cell["suspect"] = {{"runs", suspect->runs}, {"change", suspect->change}};
    cell["points"] = nlohmann::ordered_json::array();
    for (const HistoryPoint& p : c.points)
      cell["points"].push_back({p.run, p.median, p.p25, p.p75});
    cell["changes"] = nlohmann::ordered_json::array();
    for (const HistoryChange& h : c.changes) {
      cell["changes"].push_back({{"point", h.point},
                                 {"run", c.points[h.point].run},
                                 {"last_before", h.last_before},
                                 {"first_after", h.first_after},
                                 {"change", h.change},
                                 {"interval", {h.interval.low, h.interval.high}},
                                 {"p_value", h.p_value}});
    }
    out["cells"].push_back(cell);
  }
  return out;
}

History history_from_json(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("format") || json["format"] != kFormat)
    throw std::runtime_error(std::string("not a history (its \"format\" is not \"") + kFormat +
                             "\")");
  History history;
  const auto& runs = member(json, "runs", nlohmann::json::value_t::array, "history");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string where = "runs[" + std::to_string(i) + "]";
    history.runs.push_back({text(runs[i], "name", where), text(runs[i], "commit", where),
                            text(runs[i], "recorded_at", where),
                            runs[i].contains("machine") ? text(runs[i], "machine", where) : ""});
    // The setup is only ever compared as text: a field of another type reads as not recorded.
    if (runs[i].contains("setup") && runs[i]["setup"].is_object()) {
      for (const auto& [what, value] : runs[i]["setup"].items())
        if (value.is_string() && what.size() <= 200 && value.get<std::string>().size() <= 200)
          history.runs.back().setup[what] = value;
    }
  }
  const auto& cells = member(json, "cells", nlohmann::json::value_t::array, "history");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string where = "cells[" + std::to_string(i) + "]";
    HistoryCell cell;
    cell.identity = member(cells[i], "identity", nlohmann::json::value_t::object, where);
    cell.label = text(cells[i], "label", where);
    if (cells[i].contains("metric")) {
      const std::string metric = text(cells[i], "metric", where);
      if (parse_word<GateMetric>(metric) != GateMetric::kInstructions)
        throw std::runtime_error(where + ".metric: \"" + metric +
                                 "\" is not a metric of a history (\"instructions\", or none)");
      cell.metric = GateMetric::kInstructions;
    }
    const auto& points = member(cells[i], "points", nlohmann::json::value_t::array, where);
    for (std::size_t k = 0; k < points.size(); ++k) {
      cell.points.push_back(point_from_json(points[k], history.runs.size(),
                                            where + ".points[" + std::to_string(k) + "]",
                                            cell.metric != GateMetric::kEpoch));
      if (k > 0 && cell.points[k].run <= cell.points[k - 1].run)
        throw std::runtime_error(where + ".points: runs out of order");
    }
    history.cells.push_back(std::move(cell));
  }
  return history;
}

std::vector<std::size_t> commit_positions(const std::vector<std::string>& commits,
                                          const std::vector<HistoryRun>& runs) {
  std::vector<std::size_t> positions;
  std::vector<std::string> missing;
  for (const HistoryRun& run : runs) {
    const std::string revision = run.commit.substr(0, run.commit.find('-'));
    const auto it = std::find_if(commits.begin(), commits.end(), [&](const std::string& c) {
      return revision.size() >= 7 && (c.rfind(revision, 0) == 0 || revision.rfind(c, 0) == 0);
    });
    if (it == commits.end()) missing.push_back(run.name + " (" + run.commit + ")");
    positions.push_back(static_cast<std::size_t>(it - commits.begin()));
  }
  if (!missing.empty())
    throw std::invalid_argument("lacks the commit of " + join(missing) +
                                " (git rev-list --reverse HEAD lists them)");
  return positions;
}

bool is_recorded_time(const std::string& text) {
  static const std::regex time(R"(\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?)?)");
  return std::regex_match(text, time);
}

std::vector<std::string> mixed_run_warnings(
    const std::vector<std::pair<HistoryRun, RunRecord>>& runs, bool ordered_by_commits) {
  std::vector<std::string> warnings;
  std::set<std::string> machines;
  std::vector<std::string> undated;
  std::set<std::string> first_cells;
  std::vector<std::string> other_grids;  // said once, with the runs it covers
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& [run, record] = runs[i];
    if (!is_recorded_time(run.recorded_at)) undated.push_back(run.name);
    if (record.environment)
      machines.insert(record.environment->cpu.model + " / " + record.environment->host.hostname);
    std::set<std::string> cells;
    for (const Result& r : record.results) cells.insert(cell_identity_json(r.cell).dump());
    if (i == 0) first_cells = cells;
    std::size_t shared = 0;
    for (const std::string& c : cells) shared += first_cells.count(c);
    if (i > 0 && shared < std::max(cells.size(), first_cells.size()))
      other_grids.push_back(run.name + " (" + std::to_string(shared) + " of " +
                            std::to_string(cells.size()) + ")");
  }
  if (!other_grids.empty()) {
    const std::size_t more = other_grids.size() > 5 ? other_grids.size() - 5 : 0;
    other_grids.resize(other_grids.size() - more);
    warnings.push_back(join(other_grids) +
                       (more > 0 ? " and " + std::to_string(more) + " more run(s)" : "") +
                       " share only some of their cells with " + runs.front().first.name +
                       ": runs of different grids; only the cells they share form a series");
  }
  if (!undated.empty() && !ordered_by_commits)
    warnings.push_back(join(undated) +
                       ": recorded_at is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ), so when "
                       "it ran is not known; these runs are ordered as given, after the dated "
                       "ones. --order FILE orders runs by commit");
  if (machines.size() > 1)
    warnings.push_back("the runs come from " + std::to_string(machines.size()) + " machines (" +
                       join(std::vector<std::string>(machines.begin(), machines.end())) +
                       "): a shift between them may be the machine's, not the code's");
  return warnings;
}

}  // namespace crossover
