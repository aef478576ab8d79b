// Pairs: which cells differ only in the compared axis, and who wins each pair; the crossovers
// along a numeric axis of a series of pairs.
#include "reports/analysis/pairing.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/cells/key_contrast.hpp"
#include "core/cells/keys.hpp"
#include "core/costmodel/cost_model.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// Keeps the members of `items` that satisfy `preferred`, when any does.
template <typename T, typename Preferred>
void keep_preferred(std::vector<T>& items, Preferred preferred) {
  if (std::none_of(items.begin(), items.end(), preferred)) return;
  items.erase(std::remove_if(items.begin(), items.end(), [&](const T& x) { return !preferred(x); }),
              items.end());
}

}  // namespace

Json pair_key(const Result& r, const CompareSpec& spec, const std::string& also_drop) {
  Json key = pairing_key(r.cell, spec.axis);
  if (!also_drop.empty()) key.erase(also_drop);
  if (!spec.machines_apart) key.erase("host");
  return key;
}

bool comparable(const Result& r) {
  if (r.status == CellStatus::kPredicted)
    return std::isfinite(r.epoch_seconds) && r.epoch_seconds > 0;
  return r.status == CellStatus::kOk && !r.epoch_seconds_samples.empty();
}

namespace {

// A side's epoch as an interval: a predicted one within its error band, a measured one its
// median's 95 % interval (the median itself when the result has none).
Interval epoch_interval(const Result& r) {
  if (r.status == CellStatus::kPredicted) {
    // A band is a factor from 1 to 1e6; one read from a file outside that is none.
    const double e = r.prediction.prediction_error > 0.0 && r.prediction.prediction_error < 1e6
                         ? r.prediction.prediction_error
                         : 0;
    return {r.epoch_seconds / (1.0 + e), r.epoch_seconds * (1.0 + e)};
  }
  const bool has =
      r.epoch_seconds_ci_low > 0.0 && r.epoch_seconds_ci_high >= r.epoch_seconds_ci_low;
  return has ? Interval{r.epoch_seconds_ci_low, r.epoch_seconds_ci_high}
             : Interval{r.epoch_seconds, r.epoch_seconds};
}

}  // namespace

Pair compare_pair(const Result& baseline, const Result& contender, std::uint64_t seed,
                  double margin) {
  Pair p;
  p.baseline = &baseline;
  p.contender = &contender;
  p.speedup = baseline.epoch_seconds / contender.epoch_seconds;
  p.predicted =
      baseline.status == CellStatus::kPredicted || contender.status == CellStatus::kPredicted;
  if (p.predicted) {
    const Interval b = epoch_interval(baseline), c = epoch_interval(contender);
    p.ci = {b.low / c.high, b.high / c.low};
  } else {
    p.ci = bootstrap_speedup(baseline.epoch_seconds_samples, contender.epoch_seconds_samples,
                             seed + 1000003 * baseline.cell.index + contender.cell.index);
  }
  // A side wins where the whole interval clears the margin: a speedup of 1.01x [1.001, 1.017]
  // is no practical difference (within_margin), 1.06x [1.015, 1.1] undecided between the two
  // (a tie), neither a win.
  p.winner = within_margin(p.ci, margin) ? Winner::kTie
             : p.ci.low > 1.0 + margin   ? Winner::kContender
             : p.ci.high < 1.0 - margin  ? Winner::kBaseline
                                         : Winner::kTie;
  return p;
}

bool within_margin(const Interval& speedup, double margin) {
  return margin > 0.0 && speedup.low >= 1.0 - margin && speedup.high <= 1.0 + margin;
}

namespace {

// A cell of one side of a comparison, with its pairing keys, found once: a grid may hold
// thousands of cells.
struct Side {
  const Result* result = nullptr;
  bool predicted = false;
  bool forced = false;   // a CUDA cell that sets a cuda_only key (a graph cell)
  bool exact = false;    // it has a partner on its own keys
  std::string key;       // pair_key
  std::string loose[3];  // loosened: of the host's keys, of the forced ones, of both
  std::string kind;      // its cuda_only keys' values
};

Side side_of(const Result& r, const CompareSpec& spec) {
  Side s;
  s.result = &r;
  s.predicted = r.status == CellStatus::kPredicted;
  s.forced = !cuda_keys_at_defaults(r.cell);
  const Json key = pair_key(r, spec);
  s.key = key.dump();
  if (is_key(spec.axis, Key::kDevice)) {
    for (int which = 1; which <= 3; ++which)
      s.loose[which - 1] = loosened(key, (which & 1) != 0, (which & 2) != 0).dump();
  }
  for (const auto& k : grid_keys())
    if (k.cuda_only && k.get) s.kind += k.get(r.cell).dump();
  return s;
}

enum class Match { kNone, kExact, kLoose };

// Two predictions never pair (the model against itself). Others pair on their keys; across
// devices also on the keys less the host's own where one side is predicted (it was made once for
// every thread count); and a side that sets a cuda_only key (a graph cell, its optimizer_impl
// forced) with no exact partner at all pairs also less the forced keys, as a search pairs it.
Match match(const Side& b, const Side& c, bool device) {
  if (b.predicted && c.predicted) return Match::kNone;
  if (b.key == c.key) return Match::kExact;
  if (!device) return Match::kNone;
  const bool one_predicted = b.predicted != c.predicted;
  if (one_predicted && b.loose[0] == c.loose[0]) return Match::kLoose;
  const bool forced = (b.forced && !b.exact) || (c.forced && !c.exact);
  const int which = one_predicted ? 3 : 2;
  return forced && b.loose[which - 1] == c.loose[which - 1] ? Match::kLoose : Match::kNone;
}

}  // namespace

std::vector<Pair> pair_results(const std::vector<Result>& results, const CompareSpec& spec,
                               std::uint64_t seed) {
  std::vector<Side> baselines, contenders;
  for (const Result& r : results) {
    if (!comparable(r)) continue;
    const std::string value = value_text(cell_config_json(r.cell)[spec.axis]);
    if (value == spec.baseline) baselines.push_back(side_of(r, spec));
    if (value == spec.contender) contenders.push_back(side_of(r, spec));
  }
  for (Side& b : baselines) {
    for (Side& c : contenders) {
      if (match(b, c, false) != Match::kExact) continue;
      b.exact = c.exact = true;
    }
  }
  // Guard and policy keys (isolate, timeout_seconds, max_repeats...) never split a pair, but where
  // a grid sweeps one on both sides (isolate false and true), a cell pairs with its own kind only,
  // not with every cross combination; and with a cell of its own machine where there is one.
  std::vector<Pair> pairs;
  std::vector<std::pair<const Side*, Match>> found;
  std::vector<const Result*> partners;
  for (const Side& b : baselines) {
    found.clear();
    for (const Side& c : contenders)
      if (const Match m = match(b, c, is_key(spec.axis, Key::kDevice)); m != Match::kNone)
        found.emplace_back(&c, m);
    // A loose partner only where no partner of its kind matches exactly.
    partners.clear();
    for (const auto& entry : found) {
      const Side* c = entry.first;
      const bool exact_of_kind = std::any_of(found.begin(), found.end(), [&](const auto& other) {
        return other.second == Match::kExact && other.first->kind == c->kind;
      });
      if (entry.second == Match::kExact || !exact_of_kind) partners.push_back(c->result);
    }
    const Result* baseline = b.result;
    keep_preferred(partners, [&](const Result* c) {
      return measuring_differences(baseline->cell, c->cell).empty();
    });
    keep_preferred(partners, [&](const Result* c) { return c->cell.host == baseline->cell.host; });
    for (const Result* c : partners) pairs.push_back(compare_pair(*baseline, *c, seed));
  }
  return pairs;
}

namespace {

using Json = nlohmann::ordered_json;

// The series a pair belongs to along `axis`: its pairing key less the axis, plus the
// contender's values of the keys pairing leaves out (a CUDA cell's data_placement or execution),
// so that a CPU cell paired with several kinds of CUDA cell lies on one series per kind.
Json series_key(const Pair& p, const CompareSpec& spec, const std::string& axis) {
  Json key = pair_key(*p.baseline, spec, axis);
  const Json contender = cell_identity_json(p.contender->cell);
  for (const auto& [k, v] : contender.items()) {
    if (k != axis && k != spec.axis && !key.contains(k) &&
        (!is_key(k, Key::kHost) || spec.machines_apart))
      key[spec.contender + " " + k] = v;
  }
  return key;
}

}  // namespace

std::string speedup_text(const Pair& p) {
  return format_number(p.speedup) + "x [" + format_number(p.ci.low) + ", " +
         format_number(p.ci.high) + "]";
}

CompareSpec parse_compare(const std::string& text) {
  const KeyContrast contrast = parse_key_contrast(text);
  CompareSpec spec;
  spec.axis = contrast.axis;
  spec.baseline = contrast.baseline;
  spec.contender = contrast.contender;
  return spec;
}

std::string predicted_mark(const Result& r) {
  if (r.status != CellStatus::kPredicted) return "";
  return " (" + predicted_interval_text(r.epoch_seconds, r.prediction.prediction_error) + ")";
}

std::string winner_text(const Pair& p, const CompareSpec& spec) {
  if (p.winner == Winner::kTie && within_margin(p.ci)) return "no practical difference";
  if (p.winner == Winner::kTie)
    return p.predicted ? "undecided (predicted: the band allows a tie)" : "tie";
  return spec.axis + "=" + (p.winner == Winner::kContender ? spec.contender : spec.baseline) +
         (p.predicted ? " (predicted)" : "");
}

std::string predicted_cells_note(std::size_t predicted) {
  return std::to_string(predicted) +
         " cell(s) were not measured: their device is not on this machine, and the cost model "
         "predicted them from their steps' anatomy and a machine profile (run --predict; "
         "docs/methodology.md). Each of their times carries its band (where 80 % of real cells "
         "like it lay), a pair whose band allows a tie is undecided, and no gate decides on them.";
}

std::optional<double> axis_value(const Result& r, const std::string& axis) {
  const Json value = cell_config_json(r.cell)[axis];
  if (value.is_number()) return value.get<double>();
  if (value.is_string() && value.get<std::string>() == kFullWord && r.train_rows > 0) {
    return static_cast<double>(r.train_rows);
  }
  return std::nullopt;
}

namespace {

using Series = std::vector<const Pair*>;

// Groups of pairs equal in everything but `axis`, each with its series key.
std::vector<std::pair<Json, Series>> series_along(const std::vector<Pair>& pairs,
                                                  const CompareSpec& spec,
                                                  const std::string& axis) {
  std::vector<std::pair<Json, Series>> groups;
  for (const Pair& p : pairs) {
    if (!axis_value(*p.baseline, axis)) continue;
    const Json key = series_key(p, spec, axis);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.push_back({key, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(&p);
  }
  return groups;
}

// Where along one series (sorted by the axis) the contender starts winning: the one rule of
// core/stats/crossing.hpp, in its words.
void locate_crossing(Crossover& c, const Series& members, const CompareSpec& spec) {
  std::vector<Probe> points;
  for (const Pair* p : members) {
    Probe point;
    point.value = *axis_value(*p->baseline, c.axis);
    point.speedup = p->speedup;
    point.low = p->ci.low;
    point.high = p->ci.high;
    point.winner = p->winner;
    points.push_back(point);
    c.values.push_back(point.value);
    c.cells.push_back(p->baseline->cell.index);
    c.cells.push_back(p->contender->cell.index);
  }
  const CrossingFinding f = find_crossing(points);
  if (f.from < points.size()) c.from = points[f.from].value;
  c.crossing = f.at;
  c.crossing_low = f.low;
  c.crossing_high = f.high;
  if (f.tie_region()) {
    c.tie_low = points[f.tie_first].value;
    c.tie_high = points[f.from - 1].value;
  }
  const bool predicted =
      std::any_of(members.begin(), members.end(), [](const Pair* p) { return p->predicted; });
  c.statement = crossing_statement(points, f, c.axis, spec.axis + "=" + spec.baseline,
                                   spec.axis + "=" + spec.contender, predicted);
}

// The other keys of the crossover's workload that vary, so the statement says where it holds.
std::string fixed_keys(const Json& key, const Crossover& c, const std::vector<Pair>& pairs,
                       const CompareSpec& spec) {
  std::vector<std::string> fixed;
  for (const auto& [k, v] : key.items()) {
    bool varies = false;
    for (const Pair& p : pairs) {
      if (p.baseline->cell.workload != c.workload) continue;
      const Json other_key = series_key(p, spec, c.axis);
      if (other_key.contains(k) && other_key[k] != v) varies = true;
    }
    if (varies) fixed.push_back(k + "=" + value_text(v));
  }
  return join(fixed, ", ");
}

// A crossover some of whose cells are predicted says so first, and what the prediction is worth.
void mark_predicted(Crossover& c, const Series& members) {
  const Result* predicted = nullptr;
  for (const Pair* p : members) {
    if (p->baseline->status == CellStatus::kPredicted) predicted = p->baseline;
    if (p->contender->status == CellStatus::kPredicted) predicted = p->contender;
  }
  if (predicted == nullptr) return;
  c.predicted = true;
  // What the prediction is worth (its profile, its band) is said once per output, not here.
  c.statement = "predicted: " + c.statement;
}

// A measured cell the model misses by more than 1.5x says so: its "why" is then the model's, not
// the cell's.
std::string model_miss(const Result& r) {
  if (r.status != CellStatus::kOk || r.prediction.predicted_epoch_seconds <= 0.0 ||
      r.epoch_seconds <= 0.0)
    return "";
  const double ratio = r.prediction.predicted_epoch_seconds / r.epoch_seconds;
  if (ratio <= 1.5 && ratio >= 1.0 / 1.5) return "";
  return ", but the model says " + format_seconds(r.prediction.predicted_epoch_seconds) +
         ", measured " + format_seconds(r.epoch_seconds) + ": it misses by " +
         format_number(std::max(ratio, 1.0 / ratio)) + "x";
}

// One side of a pair in the cost model's words: "cuda dispatch-bound (...)".
std::string side_why(const Result& r, const std::string& name) {
  const StepPrediction p = r.prediction.step(static_cast<double>(r.anatomy.ops()));
  StepAnatomy a;
  a.add(Phase::kForward, r.anatomy.step_flops, r.anatomy.step_bytes);
  a.h2d_bytes = r.anatomy.step_h2d_bytes;
  return name + " " + bound_text(p, a) + model_miss(r);
}

// Why each side wins or loses at the two ends of a series, in the cost model's words; "" when
// the cells have no account of their steps.
std::string why_text(const Series& members, const CompareSpec& spec, const std::string& axis) {
  const auto at = [&](const Pair* p) -> std::string {
    if (p->baseline->prediction.bound == Bound::kNone ||
        p->contender->prediction.bound == Bound::kNone)
      return "";
    const std::string key =
        is_key(spec.axis, Key::kDevice) ? "" : spec.axis + "=";  // threads=0's step
    return "at " + axis + " " + format_axis_value(*axis_value(*p->baseline, axis)) + ": " +
           side_why(*p->contender, key + spec.contender) + "; " +
           side_why(*p->baseline, key + spec.baseline);
  };
  const std::string first = at(members.front()), last = at(members.back());
  if (first.empty() || last.empty()) return "";
  return first + " | " + last;
}

// Whether a series says more as a crossover statement than as the rows of its pair table: it
// needs three values of the axis at least (two are two rows; pairs equal in it, the same CPU cell
// against an isolated and a shared CUDA cell, say nothing), and `threads` with 0 among its values
// is no line (0 is the libraries' default, not a count below 1).
bool worth_a_statement(const Series& members, const std::string& axis) {
  std::set<double> values;
  for (const Pair* p : members) values.insert(*axis_value(*p->baseline, axis));
  return values.size() >= 3 && !(is_key(axis, Key::kThreads) && values.count(0.0) != 0);
}

}  // namespace

std::vector<Crossover> find_crossovers(const std::vector<Pair>& pairs, const CompareSpec& spec) {
  std::vector<Crossover> out;
  for (const std::string& axis : numeric_axis_names()) {
    if (axis == spec.axis) continue;
    for (auto& [key, members] : series_along(pairs, spec, axis)) {
      std::sort(members.begin(), members.end(), [&](const Pair* a, const Pair* b) {
        return *axis_value(*a->baseline, axis) < *axis_value(*b->baseline, axis);
      });
      if (!worth_a_statement(members, axis)) continue;
      Crossover c;
      c.workload = members.front()->baseline->cell.workload;
      c.axis = axis;
      locate_crossing(c, members, spec);
      c.fixed = fixed_keys(key, c, pairs, spec);
      if (!c.fixed.empty()) c.statement += " (at " + c.fixed + ")";
      c.statement = statement_in(c.statement, spec.measure);
      mark_predicted(c, members);
      c.why = why_text(members, spec, axis);
      out.push_back(c);
    }
  }
  return out;
}

int banded_order(double a, double a_band, double b, double b_band) {
  if (a * a_band < b / b_band) return -1;
  if (a / a_band > b * b_band) return 1;
  return 0;
}

std::vector<std::size_t> tied_with_lowest(const std::vector<double>& values,
                                          const std::vector<double>& bands) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] > 0.0 && (!best || values[i] < values[*best])) best = i;
  std::vector<std::size_t> out;
  if (!best) return out;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] > 0.0 &&
        (i == *best || banded_order(values[*best], bands[*best], values[i], bands[i]) == 0))
      out.push_back(i);
  return out;
}

}  // namespace crossover
