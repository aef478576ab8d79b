#include "reports/scores/prediction_scores.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/records/prediction.hpp"
#include "core/stats/stats.hpp"
#include "core/text/text.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// The measured result of a predicted one.
const Result& measured_of(const Checked& c, const Result& p) {
  return *std::find_if(c.measured.begin(), c.measured.end(),
                       [&](const Result& r) { return r.cell.index == p.cell.index; });
}

const Result* predicted_of(const Checked& c, const Result& m) {
  const auto it = std::find_if(c.predicted.begin(), c.predicted.end(),
                               [&](const Result& p) { return p.cell.index == m.cell.index; });
  return it == c.predicted.end() ? nullptr : &*it;
}

// Inside its band: the measured epoch within [predicted / factor, predicted * factor].
bool inside_band(const Result& p, double measured) {
  const double factor = 1.0 + p.prediction.prediction_error;
  return measured >= p.prediction.predicted_epoch_seconds / factor &&
         measured <= p.prediction.predicted_epoch_seconds * factor;
}

// One side of a pair: its epoch and interval, measured or predicted.
Interval side_interval(const Result& m, const Result& p, bool measured, double& point) {
  if (measured) {
    point = m.epoch_seconds;
    const bool has =
        m.epoch_seconds_ci_low > 0.0 && m.epoch_seconds_ci_high >= m.epoch_seconds_ci_low;
    return has ? Interval{m.epoch_seconds_ci_low, m.epoch_seconds_ci_high}
               : Interval{m.epoch_seconds, m.epoch_seconds};
  }
  point = p.prediction.predicted_epoch_seconds;
  return {point / (1.0 + p.prediction.prediction_error),
          point * (1.0 + p.prediction.prediction_error)};
}

void score_pair(const Checked& c, const Pair& m, const Result& b, const Result& k,
                bool measured_cpu, Winners& w) {
  const auto cpu = [&](const Result& r) {
    return measured_cpu && r.cell.device.kind == DeviceKind::kCpu;
  };
  double bp = 0.0, kp = 0.0;
  const Interval bi = side_interval(*m.baseline, b, cpu(b), bp);
  const Interval ki = side_interval(*m.contender, k, cpu(k), kp);
  const double speedup = bp / kp, low = bi.low / ki.high, high = bi.high / ki.low;
  Called verdict = Called::kUndecided;
  if (low > 1.0 || high < 1.0)
    verdict = (low > 1.0) == (m.speedup > 1.0) ? Called::kRight : Called::kWrong;
  (verdict == Called::kRight ? w.right : verdict == Called::kWrong ? w.wrong : w.undecided) += 1;
  w.pairs.push_back({{"run", c.run},
                     {"cells", {m.baseline->cell.index, m.contender->cell.index}},
                     {"label", cell_label(m.contender->cell)},
                     {"measured_speedup", m.speedup},
                     {"predicted_speedup", speedup},
                     {"predicted_low", low},
                     {"predicted_high", high},
                     {"verdict", text_of(verdict)}});
}

// The cells as run --predict has them on a machine with this CPU and no GPU: the CPU's measured,
// the CUDA cells predicted (status predicted, their band the interval).
std::vector<Result> as_run_predict(const Checked& c) {
  std::vector<Result> out;
  for (const Result& m : c.measured) {
    if (m.cell.device.kind == DeviceKind::kCpu) {
      out.push_back(m);
    } else if (const Result* p = predicted_of(c, m); p != nullptr) {
      out.push_back(*p);
      out.back().status = CellStatus::kPredicted;
    }
  }
  return out;
}

// One number for where a crossing lies: its interpolated point, else the middle of its range (on
// log scales, linear from 0), else where the contender wins from.
std::optional<double> crossing_point(const Crossover& x) {
  if (x.crossing) return x.crossing;
  if (x.crossing_low && x.crossing_high)
    return *x.crossing_low > 0.0 ? std::sqrt(*x.crossing_low * *x.crossing_high)
                                 : (*x.crossing_low + *x.crossing_high) / 2.0;
  return x.from;
}

const Crossover* matching(const std::vector<Crossover>& candidates, const Crossover& m) {
  const auto p = std::find_if(candidates.begin(), candidates.end(), [&](const Crossover& x) {
    return x.workload == m.workload && x.axis == m.axis && x.fixed == m.fixed;
  });
  return p == candidates.end() ? nullptr : &*p;
}

bool within_factor_2(const std::optional<double>& measured, const Crossover* predicted) {
  if (!measured || predicted == nullptr) return false;
  const std::optional<double> at = crossing_point(*predicted);
  // Along an axis from 0 (num_workers), 0 is only within a factor of 2 of itself.
  return at && *at <= 2.0 * *measured && *at >= *measured / 2.0;
}

}  // namespace

Json score_cells(const Checked& c, TextTable& table, Scores& scores) {
  Json cells = Json::array();
  for (const Result& p : c.predicted) {
    const Result& m = measured_of(c, p);
    const double error = p.prediction.predicted_epoch_seconds / m.epoch_seconds - 1.0;
    const bool banded = p.prediction.prediction_error > 0.0,
               inside = banded && inside_band(p, m.epoch_seconds);
    add_score(scores, p.cell.device.kind, p.prediction.bound, error, banded, inside);
    table.rows.push_back({c.run, std::to_string(p.cell.index), cell_label(p.cell),
                          format_seconds(m.epoch_seconds),
                          predicted_interval_text(p.prediction.predicted_epoch_seconds,
                                                  p.prediction.prediction_error),
                          format_percent(error), text_of(p.prediction.bound)});
    Json j = {{"run", c.run},
              {"cell", p.cell.index},
              {"label", cell_label(p.cell)},
              {"device", p.cell.device.text()},
              {"measured_epoch_seconds", m.epoch_seconds},
              {"predicted_epoch_seconds", p.prediction.predicted_epoch_seconds},
              {"error", error},
              {"bound", p.prediction.bound}};
    if (banded) {
      j["predicted_low_seconds"] =
          p.prediction.predicted_epoch_seconds / (1.0 + p.prediction.prediction_error);
      j["predicted_high_seconds"] =
          p.prediction.predicted_epoch_seconds * (1.0 + p.prediction.prediction_error);
      j["inside_band"] = inside;
    }
    j.update(p.prediction.terms_json());
    cells.push_back(j);
  }
  return cells;
}

Json Winners::json() const {
  return {{"right", right}, {"wrong", wrong}, {"undecided", undecided}, {"pairs", pairs}};
}

std::string Winners::text() const {
  return std::to_string(right) + " right, " + std::to_string(wrong) + " wrong, " +
         std::to_string(undecided) + " undecided";
}

void score_winners(const Checked& c, const CompareSpec& spec, Winners& as_run, Winners& both) {
  for (const Pair& m : pair_results(c.measured, spec)) {
    const Result* b = predicted_of(c, *m.baseline);
    const Result* k = predicted_of(c, *m.contender);
    if (b == nullptr || k == nullptr) continue;
    score_pair(c, m, *b, *k, true, as_run);
    score_pair(c, m, *b, *k, false, both);
  }
}

Json Crossings::json() const {
  return {{"measured", measured},
          {"as_run_predict", {{"within_factor_2", within_two}, {"inside_interval", inside}}},
          {"both_predicted", {{"within_factor_2", both_within_two}}},
          {"crossovers", list}};
}

void score_crossings(const Checked& c, const std::vector<CompareSpec>& specs, Crossings& out) {
  const std::vector<Result> mixed = as_run_predict(c);
  // The crossovers alone (the analysis's recommendations bootstrap every knob's pairs too).
  const auto crossovers = [](const std::vector<Result>& results, const CompareSpec& spec) {
    return find_crossovers(pair_results(results, spec), spec);
  };
  for (const CompareSpec& spec : specs) {
    const std::vector<Crossover> as_run = crossovers(mixed, spec),
                                 both = crossovers(c.predicted, spec);
    for (const Crossover& m : crossovers(c.measured, spec)) {
      const Crossover* p = matching(as_run, m);
      const Crossover* b = matching(both, m);
      // A crossing the measured cells locate: interpolated, or between a tie and a win.
      const std::optional<double> at = m.crossing_low ? crossing_point(m) : std::optional<double>();
      const bool two = within_factor_2(at, p), both_two = within_factor_2(at, b);
      const bool inside = at && p != nullptr && p->crossing_low && p->crossing_high &&
                          *at >= *p->crossing_low && *at <= *p->crossing_high;
      if (at) {
        ++out.measured;
        out.within_two += two ? 1 : 0;
        out.inside += inside ? 1 : 0;
        out.both_within_two += both_two ? 1 : 0;
      }
      Json j = {{"run", c.run},
                {"workload", m.workload},
                {"axis", m.axis},
                {"fixed", m.fixed},
                {"measured", m.statement},
                {"predicted", p == nullptr ? "" : p->statement},
                {"both_predicted", b == nullptr ? "" : b->statement}};
      if (at) {
        j["measured_crossing"] = *at;
        j["within_factor_2"] = two;
        j["inside_interval"] = inside;
        j["both_predicted_within_factor_2"] = both_two;
      }
      out.list.push_back(j);
      out.text +=
          "  " + c.run + ": " + m.workload + " along " + m.axis +
          (m.fixed.empty() ? "" : " (" + m.fixed + ")") + ":\n    measured: " + m.statement +
          "\n    as run --predict gives it: " +
          (p == nullptr ? std::string("none") : p->statement) +
          (at ? std::string("\n    the measured crossing ") + (two ? "within" : "more than") +
                    " a factor of 2 of the predicted, " + (inside ? "inside" : "outside") +
                    " its printed range" + "; with both sides predicted " +
                    (both_two ? "within" : "more than") + " a factor of 2"
              : std::string()) +
          "\n";
    }
  }
}

}  // namespace crossover
