#include "core/search.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/text.hpp"

namespace crossover {
namespace {

// While the bracket spans more than this factor, probes halve it; inside, they interpolate.
constexpr double kTightRatio = 10.0;

std::string speedup_text(const Probe& p) {
  return format_number(p.speedup) + "x [" + format_number(p.low) + ", " + format_number(p.high) +
         "]";
}

const char* winner_name(ProbeWinner w) {
  return w == ProbeWinner::kBaseline    ? "baseline"
         : w == ProbeWinner::kContender ? "contender"
                                        : "tie";
}

// The probes in ascending order of value.
std::vector<const Probe*> sorted(const std::vector<Probe>& probes) {
  std::vector<const Probe*> out;
  for (const Probe& p : probes) out.push_back(&p);
  std::sort(out.begin(), out.end(),
            [](const Probe* a, const Probe* b) { return a->value < b->value; });
  return out;
}

// The adjacent probes (in value) whose winners differ; with no tie among them, there is one.
std::optional<std::pair<const Probe*, const Probe*>> decisive_bracket(
    const std::vector<Probe>& probes) {
  const auto order = sorted(probes);
  for (std::size_t i = 1; i < order.size(); ++i) {
    if (order[i - 1]->winner != order[i]->winner) return std::make_pair(order[i - 1], order[i]);
  }
  return std::nullopt;
}

}  // namespace

const char* outcome_name(SearchOutcome outcome) {
  switch (outcome) {
    case SearchOutcome::kRunning:
      return "running";
    case SearchOutcome::kCrossing:
      return "crossing";
    case SearchOutcome::kBudgetSpent:
      return "budget-spent";
    case SearchOutcome::kNoCrossover:
      return "no-crossover";
    case SearchOutcome::kTieRegion:
      return "tie-region";
    case SearchOutcome::kStopped:
      return "stopped";
  }
  return "running";
}

CrossoverSearch::CrossoverSearch(SearchSpec spec, std::string baseline, std::string contender)
    : spec_(std::move(spec)), baseline_(std::move(baseline)), contender_(std::move(contender)) {}

double CrossoverSearch::position(double value) const {
  return spec_.log_scale ? std::log(value) : value;
}

double CrossoverSearch::at(double position) const {
  const double value = spec_.log_scale ? std::exp(position) : position;
  return spec_.integer ? std::round(value) : value;
}

double CrossoverSearch::width_ratio(double low, double high) const {
  return low > 0 ? (high - low) / low : (high > 0 ? 1.0 : 0.0);
}

std::optional<double> CrossoverSearch::next() const {
  if (outcome_ != SearchOutcome::kRunning) return std::nullopt;
  if (probes_.empty()) return spec_.from;
  if (probes_.size() == 1) return spec_.to;
  const auto planned = plan();
  if (!planned) return std::nullopt;
  return planned->first;
}

// Where to probe next, and whether it aims beside a guess of the crossing. The guess: where
// log(speedup), straight between the bracket's ends (on log(value) by default), crosses zero; the
// midpoint when the two ends' speedups do not straddle 1 or two probes in a row replaced the same
// end (a curved speedup that the line keeps missing on one side). A probe right at the crossing
// ties and says nothing, so the probe aims 0.45 x precision below the guess, and when the
// crossing lies above it, the next one 0.9 x precision above it: a good guess is bracketed by
// the two. While the bracket spans more than kTightRatio, each probe stays in its middle half,
// cutting at least a quarter whatever the curve; inside, at least 0.9 x precision from its ends.
std::optional<std::pair<double, bool>> CrossoverSearch::plan() const {
  const auto bracket = decisive_bracket(probes_);
  if (!bracket) return std::nullopt;
  const Probe& low = *bracket->first;
  const Probe& high = *bracket->second;
  const double u_low = position(low.value), u_high = position(high.value);
  const double width = u_high - u_low;
  const double step = spec_.log_scale ? 0.9 * std::log1p(spec_.precision)
                                      : 0.9 * spec_.precision * std::max(low.value, 0.0);
  const double f_low = std::log(low.speedup), f_high = std::log(high.speedup);
  const bool guessable = (f_low < 0) != (f_high < 0) && f_low != f_high && same_side_ < 2;
  double u = 0.0;
  bool aimed = false;
  if (aimed_ && last_side_ == -1) {
    u = std::min(u_low + step, u_low + width / 2);  // the guess's other side
  } else {
    const double margin =
        high.value > kTightRatio * low.value ? width / 4 : std::min(step, width / 2);
    const double target =
        guessable ? u_low + f_low / (f_low - f_high) * width - step / 2 : u_low + width / 2;
    u = std::clamp(target, u_low + margin, u_high - margin);
    aimed = guessable && u == target;
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
  const auto before = decisive_bracket(probes_);
  if (before) {
    const int side = probe.winner == before->first->winner ? -1 : +1;
    same_side_ = side == last_side_ ? same_side_ + 1 : 1;
    last_side_ = side;
  }
  probes_.push_back(std::move(probe));
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
  if (probes_.back().winner == ProbeWinner::kTie) {
    outcome_ = SearchOutcome::kTieRegion;
    return;
  }
  if (probes_.size() < 2) return;
  const auto b = decisive_bracket(probes_);
  if (!b) {
    outcome_ = SearchOutcome::kNoCrossover;
    return;
  }
  const bool adjacent = spec_.integer && b->second->value - b->first->value <= 1;
  if (adjacent || width_ratio(b->first->value, b->second->value) <= spec_.precision) {
    outcome_ = SearchOutcome::kCrossing;
  } else if (static_cast<int>(probes_.size()) >= spec_.max_probes) {
    outcome_ = SearchOutcome::kBudgetSpent;
  } else if (!plan()) {
    outcome_ = SearchOutcome::kCrossing;  // no value left between the ends
  }
}

std::optional<std::pair<double, double>> CrossoverSearch::bracket() const {
  if (outcome_ == SearchOutcome::kTieRegion) {
    // From the nearest probe below the tie that one side won to the nearest above.
    const double tie = probes_.back().value;
    double low = tie, high = tie;
    for (const Probe& p : probes_) {
      if (p.winner == ProbeWinner::kTie) continue;
      if (p.value < tie && (low == tie || p.value > low)) low = p.value;
      if (p.value > tie && (high == tie || p.value < high)) high = p.value;
    }
    return std::make_pair(low, high);
  }
  const auto b = decisive_bracket(probes_);
  if (!b) return std::nullopt;
  return std::make_pair(b->first->value, b->second->value);
}

std::string CrossoverSearch::statement() const {
  const std::string n =
      std::to_string(probes_.size()) + " probe" + (probes_.size() == 1 ? "" : "s");
  const auto side = [&](ProbeWinner w) {
    return w == ProbeWinner::kBaseline ? baseline_ : contender_;
  };
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
      return "no crossover between " + format_axis_value(spec_.from) + " and " +
             format_axis_value(spec_.to) + " " + spec_.key + ": " + side(probes_.front().winner) +
             " wins throughout (" + format_number(lo) + "x-" + format_number(hi) + "x, " + n + ")";
    }
    case SearchOutcome::kTieRegion: {
      const auto [lo, hi] = *bracket();
      const Probe& tie = probes_.back();
      return "tie region from " + format_axis_value(lo) + " to " + format_axis_value(hi) + " " +
             spec_.key + ": at " + format_axis_value(tie.value) +
             " the two tie within their intervals (" + speedup_text(tie) + "), after " + n;
    }
    case SearchOutcome::kCrossing:
    case SearchOutcome::kBudgetSpent:
      break;
  }
  const auto b = decisive_bracket(probes_);
  const Probe& low = *b->first;
  const Probe& high = *b->second;
  std::string text = side(high.winner) + " wins from between " + format_axis_value(low.value) +
                     " and " + format_axis_value(high.value) + " " + spec_.key + " on (" +
                     side(low.winner) + " below): " + speedup_text(low) + " at " +
                     format_axis_value(low.value) + ", " + speedup_text(high) + " at " +
                     format_axis_value(high.value) + "; " + n;
  if (outcome_ == SearchOutcome::kBudgetSpent) {
    text += ", the budget (max_probes " + std::to_string(spec_.max_probes) +
            ") spent before the bracket was within " + format_percent(spec_.precision, false);
  } else {
    text += ", bracket within " + format_percent(width_ratio(low.value, high.value), false);
  }
  return text;
}

nlohmann::ordered_json CrossoverSearch::to_json() const {
  nlohmann::ordered_json j;
  j["key"] = spec_.key;
  j["compare"] = spec_.compare;
  j["from"] = spec_.from;
  j["to"] = spec_.to;
  j["precision"] = spec_.precision;
  j["max_probes"] = spec_.max_probes;
  j["scale"] = spec_.log_scale ? "log" : "linear";
  j["outcome"] = outcome_name(outcome_);
  if (const auto b = bracket()) j["bracket"] = {b->first, b->second};
  j["statement"] = statement();
  j["probes"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < probes_.size(); ++i) {
    const Probe& p = probes_[i];
    nlohmann::ordered_json probe = {{"value", p.value},
                                    {"speedup", p.speedup},
                                    {"low", p.low},
                                    {"high", p.high},
                                    {"winner", winner_name(p.winner)},
                                    {"cells", p.cells}};
    if (i < trace_.size() && trace_[i].second > 0)
      probe["bracket_after"] = {trace_[i].first, trace_[i].second};
    j["probes"].push_back(probe);
  }
  return j;
}

}  // namespace crossover
