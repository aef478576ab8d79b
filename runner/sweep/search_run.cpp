#include "runner/sweep/search_run.hpp"

#include <spdlog/spdlog.h>

#include <set>

#include "core/cells/keys.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/analysis/workload_verdict.hpp"

namespace crossover {
namespace {

std::string identity(const Cell& cell) { return cell_identity_json(cell).dump(); }

Winner probe_winner(Winner w) {
  return w == Winner::kBaseline    ? Winner::kBaseline
         : w == Winner::kContender ? Winner::kContender
                                   : Winner::kTie;
}

}  // namespace

SearchRunner::SearchRunner(std::vector<SearchLine> lines, const std::vector<Result>& known,
                           std::size_t next_index)
    : lines_(std::move(lines)), next_index_(next_index) {
  for (const SearchLine& line : lines_)
    searches_.emplace_back(line.spec, line.baseline_name, line.contender_name);
  predicted_with_.assign(lines_.size(), "");
  for (const Result& r : known) {
    if (r.status == CellStatus::kOk) known_.emplace(identity(r.cell), r);
    next_index_ = std::max(next_index_, r.cell.index + 1);
  }
}

void SearchRunner::run(const MeasureCells& measure,
                       const std::function<void(const nlohmann::ordered_json&)>& after_probe,
                       const std::atomic<int>* interrupted) {
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const SearchLine& line = lines_[i];
    spdlog::info("searching {} from {} to {} for where {} beats {}{}", line.spec.key,
                 format_axis_value(line.spec.from), format_axis_value(line.spec.to),
                 line.contender_name, line.baseline_name,
                 line.fixed.empty() ? "" : " (" + line.fixed + ")");
    while (const auto value = searches_[i].next()) {
      if (interrupted != nullptr && interrupted->load() > 0) {
        searches_[i].stop("interrupted before the probe at " + format_axis_value(*value));
        break;
      }
      if (!probe(i, *value, measure)) break;
      after_probe(json());
    }
    const std::string uncertain = uncertainty(i);
    spdlog::info(
        "search: {}{}{}",
        predicted_with_[i].empty() ? "" : "predicted with the profile " + predicted_with_[i] + ": ",
        searches_[i].statement(), uncertain.empty() ? "" : "; " + uncertain);
    after_probe(json());
  }
}

// Measures (or reuses) the two cells at `value` and records the probe; false when the search
// stopped instead.
bool SearchRunner::probe(std::size_t i, double value, const MeasureCells& measure) {
  const SearchLine& line = lines_[i];
  CrossoverSearch& search = searches_[i];
  std::vector<Cell> cells = {probe_cell(line.baseline, line.spec.key, value),
                             probe_cell(line.contender, line.spec.key, value)};
  for (const Cell& cell : cells) {
    if (const Found problem = cell_problem(cell)) {
      search.stop("at " + line.spec.key + " " + format_axis_value(value) + ": " + problem->text);
      return false;
    }
  }
  std::vector<Cell> to_measure;
  for (Cell& cell : cells) {
    const auto found = known_.find(identity(cell));
    if (found != known_.end()) {
      cell.index = found->second.cell.index;
      continue;
    }
    cell.index = next_index_++;
    to_measure.push_back(cell);
  }
  const std::vector<Result> results = measure(to_measure);
  measured_.insert(measured_.end(), results.begin(), results.end());
  for (const Result& r : results) {
    // A predicted side (run --predict, no CUDA here) is a probe too: the pair's interval carries
    // its band, so a tie stays undecided; the statement says it was predicted.
    if (r.status == CellStatus::kPredicted) predicted_with_[i] = r.prediction.prediction_profile;
    if (r.status != CellStatus::kOk && r.status != CellStatus::kPredicted) {
      search.stop("cell " + std::to_string(r.cell.index) + " (" + cell_label(r.cell) + ") " +
                  text_of(r.status) + (r.reason.empty() ? "" : ": " + r.reason));
      return false;
    }
    known_.emplace(identity(r.cell), r);
  }
  if (results.size() != to_measure.size()) {
    search.stop("the probe at " + format_axis_value(value) + " was not measured");
    return false;
  }
  const Result& baseline = known_.at(identity(cells[0]));
  const Result& contender = known_.at(identity(cells[1]));
  // The search brackets where the speedup crosses 1 itself: no margin there.
  const Pair pair = compare_pair(baseline, contender, 0, 0.0);
  Probe probe;
  probe.value = value;
  probe.speedup = pair.speedup;
  probe.low = pair.ci.low;
  probe.high = pair.ci.high;
  probe.winner = probe_winner(pair.winner);
  probe.cells = {baseline.cell.index, contender.cell.index};
  search.record(probe);
  return true;
}

std::string SearchRunner::uncertainty(std::size_t i) const {
  const auto bracket = searches_[i].bracket();
  if (!bracket) return "";
  std::set<std::size_t> bracketing, noisy;
  for (const Probe& p : searches_[i].probes())
    if (p.value == bracket->first || p.value == bracket->second)
      bracketing.insert(p.cells.begin(), p.cells.end());
  for (const auto& known : known_) {
    const Result& r = known.second;
    if (bracketing.count(r.cell.index) != 0 && is_shaky(r)) noisy.insert(r.cell.index);
  }
  if (noisy.empty()) return "";
  std::vector<std::string> cells;
  for (std::size_t cell : noisy) cells.push_back(std::to_string(cell));
  return "uncertain: cell " + join(cells, ", ") +
         ", bracketing it, varied by more than a third of the median, so the crossing may lie "
         "outside the bracket: measure them again before acting on it";
}

nlohmann::ordered_json SearchRunner::json() const {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const SearchLine& line = lines_[i];
    nlohmann::ordered_json j;
    j["experiment"] = line.experiment;
    j["workload"] = line.contender.workload;
    j["fixed"] = line.fixed;
    j["baseline"] = line.baseline_name;
    j["contender"] = line.contender_name;
    const nlohmann::ordered_json search = searches_[i].to_json();
    for (const auto& [key, value] : search.items()) j[key] = value;
    j["predicted"] = !predicted_with_[i].empty();
    const std::string uncertain = uncertainty(i);
    j["uncertain"] = !uncertain.empty();
    if (!uncertain.empty() && j.contains("statement") && j["statement"].is_string())
      j["statement"] = j["statement"].get<std::string>() + "; " + uncertain;
    if (!predicted_with_[i].empty() && j.contains("statement") && j["statement"].is_string())
      j["statement"] = "predicted with the profile " + predicted_with_[i] + ": " +
                       j["statement"].get<std::string>();
    all.push_back(j);
  }
  return all;
}

}  // namespace crossover
