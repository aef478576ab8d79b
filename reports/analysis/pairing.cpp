// Pairs: which cells differ only in the compared axis, and who wins each pair.
#include <algorithm>
#include <cmath>

#include "core/cells/keys.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/analysis.hpp"
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

Pair compare_pair(const Result& baseline, const Result& contender, std::uint64_t seed) {
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
  p.winner = p.ci.low > 1.0    ? Winner::kContender
             : p.ci.high < 1.0 ? Winner::kBaseline
                               : Winner::kTie;
  return p;
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
  if (spec.axis == "device") {
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
      if (const Match m = match(b, c, spec.axis == "device"); m != Match::kNone)
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

}  // namespace crossover
