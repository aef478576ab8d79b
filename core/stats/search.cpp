#include "core/stats/search.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/text/text.hpp"

namespace crossover {
namespace {

// Where the winner changes between `a` and `b`, as a number whose sign differs at the two: the
// speedup's logarithm between the two sides; between a side and a tie, the logarithm of the
// interval's bound that crosses 1 there (its top below the baseline's region, its bottom below
// the contender's).
double edge_measure(const Probe& p, Winner a, Winner b) {
  const bool tie = a == Winner::kTie || b == Winner::kTie;
  if (!tie) return std::log(p.speedup);
  const bool baseline = a == Winner::kBaseline || b == Winner::kBaseline;
  return std::log(baseline ? p.high : p.low);
}

}  // namespace

CrossoverSearch::CrossoverSearch(SearchSpec spec, std::string baseline, std::string contender)
    : spec_(std::move(spec)), baseline_(std::move(baseline)), contender_(std::move(contender)) {}

double CrossoverSearch::position(double value) const {
  return spec_.scale == SearchScale::kLog ? std::log(value) : value;
}

double CrossoverSearch::at(double position) const {
  const double value = spec_.scale == SearchScale::kLog ? std::exp(position) : position;
  return spec_.integer ? std::round(value) : value;
}

double CrossoverSearch::width_ratio(double low, double high) const {
  return low > 0 ? (high - low) / low : (high > 0 ? 1.0 : 0.0);
}

std::vector<CrossoverSearch::Boundary> CrossoverSearch::boundaries() const {
  std::vector<const Probe*> order;
  for (const Probe& p : probes_) order.push_back(&p);
  std::sort(order.begin(), order.end(),
            [](const Probe* a, const Probe* b) { return a->value < b->value; });
  std::vector<Boundary> out;
  for (std::size_t i = 1; i < order.size(); ++i)
    if (order[i - 1]->winner != order[i]->winner) out.push_back({order[i - 1], order[i]});
  return out;
}

bool CrossoverSearch::resolved(const Boundary& b) const {
  if (spec_.integer && b.high->value - b.low->value <= 1) return true;
  return width_ratio(b.low->value, b.high->value) <= spec_.precision;
}

// The boundary the next probe narrows: the widest (in position) not yet within precision.
std::optional<CrossoverSearch::Boundary> CrossoverSearch::widest_open() const {
  std::optional<Boundary> widest;
  double most = -1.0;
  for (const Boundary& b : boundaries()) {
    const double width = position(b.high->value) - position(b.low->value);
    if (!resolved(b) && width > most) {
      most = width;
      widest = b;
    }
  }
  return widest;
}

std::optional<double> CrossoverSearch::next() const {
  if (outcome_ != SearchOutcome::kRunning) return std::nullopt;
  if (probes_.empty()) return spec_.from;
  if (probes_.size() == 1) return spec_.to;
  const auto planned = plan();
  if (!planned) return std::nullopt;
  return planned->first;
}

// Where to probe next, and whether it aims beside a guess. The guess: where the edge measure
// (log(speedup) between the two sides), straight between the widest open bracket's ends (on
// log(value) by default), crosses zero — regula falsi, with the Illinois rule: when probes keep
// taking the same end's place, the other end's measure is halved each time, so the line stops
// missing on one side of a curved measure. A probe right at a crossing says little (it ties), so
// the probe aims 0.45 x precision below the guess; when it lands below the crossing and the
// guess is still close, the next one goes 0.9 x precision above it, bracketing a good guess with
// two probes. Every probe stays at least 0.9 x precision inside the bracket, and when two probes
// have not halved it, the next one halves it: the bracket shrinks however the speedups fall.
std::optional<std::pair<double, bool>> CrossoverSearch::plan() const {
  const auto open = widest_open();
  if (!open) return std::nullopt;
  const Probe& low = *open->low;
  const Probe& high = *open->high;
  const double u_low = position(low.value), u_high = position(high.value);
  const double width = u_high - u_low;
  const double step = spec_.scale == SearchScale::kLog
                          ? 0.9 * std::log1p(spec_.precision)
                          : 0.9 * spec_.precision * std::max(low.value, 0.0);
  double f_low = edge_measure(low, low.winner, high.winner);
  double f_high = edge_measure(high, low.winner, high.winner);
  if (same_side_ >= 2) (last_side_ < 0 ? f_high : f_low) *= std::pow(0.5, same_side_ - 1);
  const bool guessable = (f_low < 0) != (f_high < 0) && f_low != f_high;
  const double guess = u_low + f_low / (f_low - f_high) * width;
  const bool stalled = widths_.size() >= 3 && width > 0.5 * widths_[widths_.size() - 3];
  const double margin = std::min(step, width / 2);
  double u = 0.0;
  bool aimed = false;
  if (!guessable || stalled) {
    u = u_low + width / 2;
  } else if (aimed_ && &probes_.back() == &low && guess - u_low < 1.5 * step) {
    u = std::min(u_low + step, u_low + width / 2);  // the guess's other side
  } else {
    u = std::clamp(guess - step / 2, u_low + margin, u_high - margin);
    aimed = true;
  }
  double value = at(u);
  if (spec_.integer) value = std::clamp(value, low.value + 1, high.value - 1);
  if (value <= low.value || value >= high.value) return std::nullopt;
  return std::make_pair(value, aimed);
}

void CrossoverSearch::record(Probe probe) {
  if (outcome_ != SearchOutcome::kRunning) return;
  const auto planned = plan();
  aimed_ = planned && planned->first == probe.value && planned->second;
  if (const auto open = widest_open(); open && probes_.size() >= 2) {
    const int side = probe.winner == open->low->winner    ? -1
                     : probe.winner == open->high->winner ? +1
                                                          : 0;
    same_side_ = side != 0 && side == last_side_ ? same_side_ + 1 : 1;
    last_side_ = side;
  }
  probes_.push_back(std::move(probe));
  if (const auto open = widest_open())
    widths_.push_back(position(open->high->value) - position(open->low->value));
  else
    widths_.clear();
  settle();
  const auto now = bracket();
  trace_.push_back(now ? *now : std::make_pair(0.0, 0.0));
}

void CrossoverSearch::stop(const std::string& why) {
  if (outcome_ != SearchOutcome::kRunning) return;
  outcome_ = SearchOutcome::kStopped;
  stop_reason_ = why;
}

// Whether the newest probe ended the search, and how.
void CrossoverSearch::settle() {
  if (probes_.size() < 2) return;
  const auto all = boundaries();
  if (all.empty()) {
    outcome_ = SearchOutcome::kNoCrossover;
    return;
  }
  if (widest_open() && static_cast<int>(probes_.size()) >= spec_.max_probes) {
    outcome_ = SearchOutcome::kBudgetSpent;
    return;
  }
  if (plan()) return;
  // A tie far from the crossing (noise below a region the baseline wins) is not a tie region.
  outcome_ = finding().tie_region() ? SearchOutcome::kTieRegion : SearchOutcome::kCrossing;
}

std::vector<Probe> CrossoverSearch::by_value() const {
  std::vector<Probe> sorted = probes_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Probe& a, const Probe& b) { return a.value < b.value; });
  return sorted;
}

CrossingFinding CrossoverSearch::finding() const {
  return probes_.empty() ? CrossingFinding{} : find_crossing(by_value());
}

std::optional<std::pair<double, double>> CrossoverSearch::bracket() const {
  const auto all = boundaries();
  if (all.empty()) return std::nullopt;
  return std::make_pair(all.front().low->value, all.back().high->value);
}

// Each change of winner in value order, with the speedups either side: "cpu wins up to between
// 1,000 and 1,100 dataset_size (0.9x [0.88, 0.91] at 1,000); from there the two tie ...".
std::string CrossoverSearch::found() const {
  const auto name = [&](Winner w) {
    return w == Winner::kBaseline ? baseline_ : w == Winner::kContender ? contender_ : "neither";
  };
  // Where the contender wins from a value on, the rule every report states
  // (core/stats/crossing.hpp).
  const std::vector<Probe> sorted = by_value();
  if (const CrossingFinding f = find_crossing(sorted); f.crossing())
    return crossing_statement(sorted, f, spec_.key, baseline_, contender_);
  const auto all = boundaries();
  if (all.size() == 1 && all.front().low->winner != Winner::kTie &&
      all.front().high->winner != Winner::kTie) {
    const Probe& low = *all.front().low;
    const Probe& high = *all.front().high;
    return name(high.winner) + " wins from between " + format_axis_value(low.value) + " and " +
           format_axis_value(high.value) + " " + spec_.key + " on (" + name(low.winner) +
           " below): " + speedup_text(low) + " at " + format_axis_value(low.value) + ", " +
           speedup_text(high) + " at " + format_axis_value(high.value);
  }
  std::vector<const Probe*> ties;
  for (const Probe& p : probes_)
    if (p.winner == Winner::kTie) ties.push_back(&p);
  std::string text;
  if (!ties.empty()) {
    // The tie region, from the lowest probe where they tie to the highest, and the nearest
    // probes either side where one wins.
    const auto [first, last] =
        std::minmax_element(ties.begin(), ties.end(),
                            [](const Probe* a, const Probe* b) { return a->value < b->value; });
    text = "tie region from " + format_axis_value((*first)->value) + " to " +
           format_axis_value((*last)->value) + " " + spec_.key +
           " (neither wins within the intervals; the crossing lies in it)";
    std::string sides;
    for (const Boundary& b : all) {
      const Probe* side = b.low->winner == Winner::kTie ? b.high : b.low;
      if (side->winner == Winner::kTie) continue;
      sides += (sides.empty() ? "" : ", ") + name(side->winner) + " wins at " +
               format_axis_value(side->value) + " (" + speedup_text(*side) + ")";
    }
    return sides.empty() ? text : text + ": " + sides;
  }
  for (const Boundary& b : all) {
    text += (text.empty() ? "" : "; ") + name(b.high->winner) + " wins from between " +
            format_axis_value(b.low->value) + " and " + format_axis_value(b.high->value) + " " +
            spec_.key + " (" + speedup_text(*b.high) + "; " + name(b.low->winner) + " below, " +
            speedup_text(*b.low) + ")";
  }
  return text;
}

std::string CrossoverSearch::statement() const {
  const std::string n =
      std::to_string(probes_.size()) + " probe" + (probes_.size() == 1 ? "" : "s");
  switch (outcome_) {
    case SearchOutcome::kRunning:
      return "searching " + spec_.key + " (" + n + " so far)";
    case SearchOutcome::kStopped:
      return "the search along " + spec_.key + " stopped after " + n + ": " + stop_reason_;
    case SearchOutcome::kNoCrossover: {
      double lo = probes_.front().speedup, hi = lo;
      for (const Probe& p : probes_) {
        lo = std::min(lo, p.speedup);
        hi = std::max(hi, p.speedup);
      }
      const Winner w = probes_.front().winner;
      return "no crossover between " + format_axis_value(spec_.from) + " and " +
             format_axis_value(spec_.to) + " " + spec_.key + ": " +
             (w == Winner::kTie
                  ? std::string("the two tie at both ends")
                  : (w == Winner::kBaseline ? baseline_ : contender_) + " wins throughout") +
             " (" + format_number(lo) + "x-" + format_number(hi) + "x, " + n + ")";
    }
    case SearchOutcome::kBudgetSpent:
      return found() + "; " + n + ", the budget (max_probes " + std::to_string(spec_.max_probes) +
             ") spent before every bracket was within " + format_percent(spec_.precision, false);
    case SearchOutcome::kCrossing:
    case SearchOutcome::kTieRegion:
      break;
  }
  return found() + "; " + n + ", each bracket within " + format_percent(spec_.precision, false) +
         (spec_.integer ? " or between adjacent integers" : "");
}

nlohmann::ordered_json CrossoverSearch::to_json() const {
  nlohmann::ordered_json j;
  j["key"] = spec_.key;
  j["compare"] = spec_.compare;
  j["from"] = spec_.from;
  j["to"] = spec_.to;
  j["precision"] = spec_.precision;
  j["max_probes"] = spec_.max_probes;
  j["scale"] = text_of(spec_.scale);
  j["outcome"] = text_of(outcome_);
  // What the statement says: the crossing's interval and the tie region below it, where the rule
  // finds one; else from the lowest to the highest change of winner.
  if (const CrossingFinding f = finding(); f.crossing()) {
    j["bracket"] = {*f.low, *f.high};
    if (f.tie_region()) {
      const std::vector<Probe> sorted = by_value();
      j["tie_region"] = {sorted[f.tie_first].value, sorted[f.from - 1].value};
    }
  } else if (const auto b = bracket()) {
    j["bracket"] = {b->first, b->second};
  }
  j["statement"] = statement();
  j["probes"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < probes_.size(); ++i) {
    const Probe& p = probes_[i];
    nlohmann::ordered_json probe = {
        {"value", p.value}, {"speedup", p.speedup},        {"low", p.low},
        {"high", p.high},   {"winner", text_of(p.winner)}, {"cells", p.cells}};
    if (i < trace_.size() && trace_[i].second > 0)
      probe["bracket_after"] = {trace_[i].first, trace_[i].second};
    j["probes"].push_back(probe);
  }
  return j;
}

Found searches_problem(const nlohmann::ordered_json& searches) {
  if (!searches.is_array()) return Problem("not a list of searches");
  for (std::size_t i = 0; i < searches.size(); ++i) {
    const auto& s = searches[i];
    const std::string at = "search " + std::to_string(i) + ": ";
    if (!s.is_object()) return Problem(at + "not an object");
    for (const char* key : {"key", "compare", "statement", "outcome", "baseline", "contender"})
      if (!s.contains(key) || !s[key].is_string()) return Problem(at + "no text \"" + key + "\"");
    for (const char* key : {"from", "to"})
      if (!s.contains(key) || !s[key].is_number()) return Problem(at + "no number \"" + key + "\"");
    for (const char* key : {"bracket", "tie_region"})
      if (s.contains(key) && (!s[key].is_array() || s[key].size() != 2 || !s[key][0].is_number() ||
                              !s[key][1].is_number()))
        return Problem(at + "a " + (std::string(key) == "bracket" ? "bracket" : "tie region") +
                       " that is not two numbers");
    if (!s.contains("probes") || !s["probes"].is_array()) return Problem(at + "no list of probes");
    for (const auto& p : s["probes"]) {
      if (!p.is_object() || !p.contains("cells") || !p["cells"].is_array() ||
          !p.contains("winner") || !p["winner"].is_string())
        return Problem(at + "a probe without its cells or winner");
      for (const char* key : {"value", "speedup", "low", "high"})
        if (!p.contains(key) || !p[key].is_number())
          return Problem(at + "a probe without \"" + key + "\"");
      if (p.contains("bracket_after") &&
          (!p["bracket_after"].is_array() || p["bracket_after"].size() != 2 ||
           !p["bracket_after"][0].is_number() || !p["bracket_after"][1].is_number()))
        return Problem(at + "a probe's bracket that is not two numbers");
    }
  }
  return std::nullopt;
}

}  // namespace crossover
