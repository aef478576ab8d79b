#pragma once
// CI over time: runs of one grid in commit order, each cell's series of epoch medians, and where
// each series shifted (core/stats/changepoint.hpp). A history is a small JSON file (history.json)
// that one more run extends without reading the earlier ones again. The writers return text and do
// no I/O.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/records/results.hpp"
#include "core/records/run_record.hpp"
#include "core/stats/changepoint.hpp"
#include "core/stats/stats.hpp"
#include "reports/gate/gate_metric.hpp"

namespace crossover {

/// One run of the history, from its env.json.
struct HistoryRun {
  std::string name;         ///< its folder as given (a nightly job may reuse one name)
  std::string commit;       ///< crossover_revision, or the run's label when it has none
  std::string recorded_at;  ///< when the run started (UTC, ISO 8601)
  /// Why its machine was not quiet, from its env.json ("load 10.8 on 2 cores; its reference
  /// moved +35.0 % within the run"); "" when nothing says so. Marked on the charts and named
  /// beside a verdict built on the run.
  std::string machine = {};
  /// What in its env.json can skew timings by itself, by name ("LibTorch": "1.13.1", "planted
  /// slowdown …": "+25 %"; timing_setup): a suspect run or a change point names what differs
  /// between the runs either side of it.
  nlohmann::ordered_json setup = nlohmann::ordered_json::object();
};

/// A cell's epoch time in one run: its median and interquartile range (seconds); for a counted
/// series, its instructions per epoch.
struct HistoryPoint {
  std::size_t run = 0;  ///< index into History::runs
  double median = 0.0, p25 = 0.0, p75 = 0.0;
};

/// Where a cell's series shifted: the newer segment against the one before it.
struct HistoryChange {
  std::size_t point = 0;                 ///< the first point of the newer segment
  std::string last_before, first_after;  ///< the commits on either side of the change
  double change = 0.0;                   ///< median after / median before - 1
  Interval interval;                     ///< its bootstrap 95 % interval
  double p_value = 1.0;                  ///< of the permutation test
};

struct HistoryCell {
  nlohmann::ordered_json identity;  ///< the cell's identity keys (cell_identity_json)
  std::string label;
  std::vector<HistoryPoint> points;  ///< in run order; runs where it was not ok have none
  std::vector<HistoryChange> changes;
  /// A newer segment slower than the one before it by more than this fails the history: the
  /// `--threshold`, or twice the cell's run-to-run spread in a calibration.
  double threshold = 0.05;
  /// kEpoch for the series of epoch times; kInstructions for a counted cell's second series, its
  /// instructions per epoch (the `count` key): a metric of its own, with its own change points.
  GateMetric metric = GateMetric::kEpoch;
};

struct History {
  std::vector<HistoryRun> runs;  ///< oldest first
  std::vector<HistoryCell> cells;
  /// The runs' predicted cells, left out of every series (a prediction is no measurement),
  /// counted so that the history says so.
  std::size_t predicted_left_out = 0;
};

/// Run `r`'s name on a chart's axis: its commit's first 7 characters, then "#2", "#3" for the
/// second and later runs of one commit (a nightly job runs one commit several times).
std::string run_tick(const History& history, std::size_t r);

/// What can skew timings that differs between two runs of a history (by index): "LibTorch:
/// 1.13.1 -> 2.1.0", in the order of timing_setup; none where either run has no record of it.
std::vector<std::string> setup_changes(const History& history, std::size_t before,
                                       std::size_t after);

/// Adds one run's ok cells (matched on their identity keys) at the end of the history. Throws
/// std::invalid_argument when the same run (name, commit and start) is already in it.
void append_run(History& history, const HistoryRun& run, const std::vector<Result>& results);

/// Finds every cell's change points again (on the logarithm of its medians).
void find_changes(History& history, const ChangePointOptions& options = {});

/// The cell's newest change when it is a slowdown beyond its threshold (its whole interval above
/// 0): what fails `history --fail-on-change`.
std::optional<HistoryChange> newest_slowdown(const HistoryCell& cell);

/// The newest runs of a cell that are each slower than the median of the runs before them by more
/// than its bar, where no change point says so (too few runs after them for one: the
/// permutation test needs about 12 runs in all to reach p < 0.01). What a CI user should look
/// at before the change point can be named, and what `history --fail-on-suspect` fails on (the
/// nightly recipe: a slowdown fails by its second night). Each run of the tail is slower than
/// the threshold, and their mean beyond a bar: the threshold, or, where the runs before vary
/// more, the one-sided prediction bound of a mean of that many new runs (Student t on the log
/// medians of the runs before: 99.9 % for one run, 99 % for two or more). Three runs before the
/// tail at least, to know their spread.
struct HistorySuspect {
  std::vector<std::size_t> runs;  ///< indices into History::runs, oldest first
  double change = 0.0;            ///< their median / the earlier runs' median - 1
  double bar = 0.0;               ///< the slowdown their mean had to pass
};

/// The cell's suspect runs, or none (a newest slowdown already named, fewer than two earlier
/// runs, or the newest run not slower beyond the threshold).
std::optional<HistorySuspect> newest_suspect(const HistoryCell& cell);

/// Each run's position in an --order file's commits, oldest first (a commit may be a prefix of
/// the recorded revision, which may end in "-dirty"); throws std::invalid_argument ("lacks the
/// commit of ...") naming the runs it lacks.
std::vector<std::size_t> commit_positions(const std::vector<std::string>& commits,
                                          const std::vector<HistoryRun>& runs);

/// Whether `text` is a date or a time as env.json records it (2026-11-26T21:51:20Z), in a form
/// whose text order is time order.
bool is_recorded_time(const std::string& text);

/// What a history of these runs should say before it is believed, one warning each: runs of
/// other grids, runs whose start cannot order them (unless ordered by commits), runs of other
/// machines.
std::vector<std::string> mixed_run_warnings(
    const std::vector<std::pair<HistoryRun, RunRecord>>& runs, bool ordered_by_commits);

nlohmann::ordered_json history_json(const History& history);
/// Reads history_json's output; throws std::runtime_error naming what is wrong.
History history_from_json(const nlohmann::json& json);

/// history.md: a table per cell (latest, best, change points with their commits), for a PR.
std::string render_history_markdown(const History& history);
/// history.html: one chart per cell, its runs with their spread, the changes marked by commit.
std::string render_history_html(const History& history);

}  // namespace crossover
