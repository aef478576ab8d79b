#include "reports/analysis/workload_verdict.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/cells/keys.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/comparison.hpp"

namespace crossover {
namespace {

// A side in a verdict's words: "cuda" along the device, "threads=0" along any other axis.
std::string side_name(const CompareSpec& spec, const std::string& value) {
  return is_key(spec.axis, Key::kDevice) ? value : spec.axis + "=" + value;
}

// An axis value or an interpolated crossing: from 100 on a whole number ("5,785").
std::string value_words(double v) { return format_axis_value(v >= 100.0 ? std::round(v) : v); }

// The crossover a workload's verdict is said along: one where the contender comes to win, the
// one with the most cells (a longer series) among them, else the workload's first.
const Crossover* main_crossover(const ComparisonFindings& f, const std::string& workload) {
  const Crossover* best = nullptr;
  for (const Crossover& c : f.crossovers) {
    if (c.workload != workload) continue;
    if (best == nullptr || (c.from && !best->from) ||
        (c.from.has_value() == best->from.has_value() && c.cells.size() > best->cells.size()))
      best = &c;
  }
  return best;
}

// Where the contender wins along one crossover, in one clause: "cuda wins from dataset_size
// 10,000 on; below, undecided at 112 (the crossing lies between 112 and 10,000)".
std::string crossing_words(const Crossover& c, const CompareSpec& spec, bool predicted) {
  const std::string winner = side_name(spec, spec.contender) + (predicted ? " (predicted)" : "");
  const std::string loser = side_name(spec, spec.baseline);
  const std::string at = c.fixed.empty() ? "" : " (at " + c.fixed + ")";
  const std::string range = value_words(c.values.front()) + " to " + value_words(c.values.back());
  if (!c.from) {
    return "along " + c.axis + " (" + range + ")" + at + ", " + winner +
           " does not win throughout up to the largest";
  }
  if (*c.from == c.values.front())
    return winner + " wins at every " + c.axis + " measured (" + range + ")" + at;
  std::string out = winner + " wins from " + c.axis + " " + value_words(*c.from) + " on";
  // A crossing with a predicted side is a prediction: its range is where the band's edges cross
  // the measured side (docs/methodology.md), 80 %, not a 95 % interval.
  const std::string crossing = predicted ? "the predicted crossing" : "the crossing";
  if (c.crossing) {
    out +=
        "; below that " + loser + " wins: " + crossing + " lies near " + value_words(*c.crossing);
    if (c.crossing_low && c.crossing_high)
      out += " (" + value_words(*c.crossing_low) + "-" + value_words(*c.crossing_high) +
             (predicted ? ", its 80 % band" : "") + ")";
  } else if (c.tie_low && c.tie_high) {
    const std::string ties = *c.tie_low == *c.tie_high ? "at " + value_words(*c.tie_low)
                                                       : "from " + value_words(*c.tie_low) +
                                                             " to " + value_words(*c.tie_high);
    out += "; " + std::string(predicted ? "undecided " : "a tie ") + ties + " (" + crossing +
           " lies between " + value_words(*c.tie_high) + " and " + value_words(*c.from) + ")";
  }
  return out + at;
}

// `words` without the clauses it shares with `first` ("cuda wins from 10,000 on; below that cpu
// wins: " before two crossings): where they part, from the start of that clause.
std::string unshared_words(const std::string& first, const std::string& words) {
  std::size_t same = 0;
  while (same < first.size() && same < words.size() && first[same] == words[same]) ++same;
  std::size_t clause = 0;
  for (const std::string separator : {"; ", ": "}) {
    const std::size_t at = words.rfind(separator, same >= 2 ? same - 2 : 0);
    if (at != std::string::npos && at + 2 <= same) clause = std::max(clause, at + 2);
  }
  return words.substr(clause);
}

// The verdict along a workload's series of pairs, the main one first: one clause when every
// series says the same whatever the other keys ("cuda wins at every batch_size measured (1,000 to
// 20,000)"), else each different clause with where it holds ("... (at num_workers=0); at
// num_workers=1: ..."), three at most.
std::string series_words(const ComparisonFindings& f, const Crossover& main, bool predicted) {
  std::vector<std::pair<std::string, std::vector<std::string>>> said;  // words, and where
  const auto add = [&](const Crossover& c) {
    Crossover anywhere = c;
    anywhere.fixed.clear();
    const std::string words = crossing_words(anywhere, f.spec, predicted);
    const auto same =
        std::find_if(said.begin(), said.end(), [&](const auto& s) { return s.first == words; });
    if (same == said.end())
      said.push_back({words, {c.fixed}});
    else
      same->second.push_back(c.fixed);
  };
  add(main);
  for (const Crossover& c : f.crossovers)
    if (&c != &main && c.workload == main.workload) add(c);
  if (said.size() == 1) return said.front().first;
  std::string out;
  const std::size_t shown = std::min<std::size_t>(said.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) {
    const std::string at = join(said[i].second, "; ");
    out += i == 0 ? said[i].first + " (at " + at + ")"
                  : "; at " + at + ": " + unshared_words(said.front().first, said[i].first);
  }
  if (said.size() > shown)
    out += "; " + std::to_string(said.size() - shown) + " more series differ (see the crossovers)";
  return out;
}

// "cuda wins 4 of 6 pairs (5.84x to 68.9x), 2 undecided": the pairs' own count, for a workload
// with no series to cross along.
std::string count_words(const std::vector<const Pair*>& mine, const CompareSpec& spec,
                        bool predicted) {
  std::size_t contender = 0, baseline = 0, ties = 0;
  double low = 0.0, high = 0.0;
  for (const Pair* p : mine) {
    if (p->winner == Winner::kContender) ++contender;
    if (p->winner == Winner::kBaseline) ++baseline;
    if (p->winner == Winner::kTie) ++ties;
    low = low == 0.0 ? p->speedup : std::min(low, p->speedup);
    high = std::max(high, p->speedup);
  }
  const std::string of = " of " + std::to_string(mine.size()) + " pair(s)";
  const std::string speedups = " (speedup " + format_number(low) + "x" +
                               (high > low ? " to " + format_number(high) + "x" : "") + ")";
  std::vector<std::string> parts;
  if (contender > 0)
    parts.push_back(side_name(spec, spec.contender) + (predicted ? " (predicted)" : "") + " wins " +
                    std::to_string(contender) + of);
  if (baseline > 0)
    parts.push_back(side_name(spec, spec.baseline) + " wins " + std::to_string(baseline) +
                    (contender > 0 ? "" : of));
  if (ties > 0)
    parts.push_back(std::to_string(ties) + (predicted ? " undecided" : " tie(s)") +
                    (contender + baseline > 0 ? "" : of));
  return join(parts, ", ") + speedups;
}

// A measured contender's start-up against its steady lead: after how many epochs it pays back,
// at the smallest setting where it wins, when that is after more than one.
std::string payback_words(const std::vector<const Pair*>& mine, const CompareSpec& spec) {
  if (spec.measure != Measure::kTime) return "";
  for (const Pair* p : mine) {
    // A start-up that was not recorded (no first epoch) has nothing to pay back.
    if (p->predicted || p->winner != Winner::kContender ||
        !(p->contender->first_epoch_seconds > 0.0))
      continue;
    const auto epochs = break_even_epochs(*p->baseline, *p->contender);
    if (!epochs || *epochs <= 1) continue;  // ahead from the first epoch: nothing to add
    return "counting its start-up (" + format_seconds(p->contender->startup_seconds) +
           " + first epoch " + format_seconds(p->contender->first_epoch_seconds) + "), " +
           side_name(spec, spec.contender) + " is ahead after " + std::to_string(*epochs) +
           (*epochs == 1 ? " epoch" : " epochs") + " at " + cell_label(p->contender->cell);
  }
  return "";
}

// The cells behind the verdict that are too noisy to act on, or that ran while the machine's
// speed had moved (`drifted`), in one warning.
std::string noise_words(const std::vector<const Pair*>& mine,
                        const std::set<std::size_t>& drifted) {
  std::set<std::size_t> shaky, moved, all;
  for (const Pair* p : mine) {
    for (const Result* r : {p->baseline, p->contender}) {
      all.insert(r->cell.index);
      if (r->status != CellStatus::kOk) continue;
      if (is_shaky(*r)) shaky.insert(r->cell.index);
      if (drifted.count(r->cell.index) != 0) moved.insert(r->cell.index);
    }
  }
  if (shaky.empty() && moved.empty()) return "";
  // "1 (cell 4) varied by more than a third of its median", "3 (cells 12, 15, 17) each varied ...".
  const auto listed = [](const std::set<std::size_t>& cells) {
    std::vector<std::string> words;
    for (std::size_t i : cells) words.push_back(std::to_string(i));
    return std::to_string(cells.size()) + (cells.size() == 1 ? " (cell " : " (cells ") +
           join(words, ", ") + ")" + (cells.size() == 1 ? "" : " each");
  };
  std::vector<std::string> parts;
  if (!shaky.empty()) parts.push_back(listed(shaky) + " varied by more than a third of its median");
  if (!moved.empty())
    parts.push_back(listed(moved) +
                    " ran while the machine's speed had moved by more than a fifth");
  std::set<std::size_t> named = shaky;
  named.insert(moved.begin(), moved.end());
  return "noisy: of the " + std::to_string(all.size()) + " cells behind this, " +
         join(parts, "; ") + ": measure " + (named.size() == 1 ? "it" : "them") +
         " again before acting on it";
}

}  // namespace

std::vector<WorkloadVerdict> verdicts(const Analysis& analysis,
                                      const std::set<std::size_t>& drifted) {
  std::vector<WorkloadVerdict> out;
  if (analysis.comparisons.empty()) return out;
  const ComparisonFindings& f = analysis.comparisons.front();
  std::vector<std::string> workloads;
  for (const Pair& p : f.pairs) {
    if (std::find(workloads.begin(), workloads.end(), p.baseline->cell.workload) == workloads.end())
      workloads.push_back(p.baseline->cell.workload);
  }
  for (const std::string& workload : workloads) {
    std::vector<const Pair*> mine;
    for (const Pair& p : f.pairs)
      if (p.baseline->cell.workload == workload) mine.push_back(&p);
    WorkloadVerdict v;
    v.workload = workload;
    v.predicted = std::any_of(mine.begin(), mine.end(), [](const Pair* p) { return p->predicted; });
    const Crossover* c = main_crossover(f, workload);
    v.lines.push_back(workload + ": " +
                      (c != nullptr && c->from ? series_words(f, *c, v.predicted)
                                               : count_words(mine, f.spec, v.predicted)));
    if (const std::string payback = payback_words(mine, f.spec); !payback.empty())
      v.lines.push_back(payback);
    if (const std::string noise = noise_words(mine, drifted); !noise.empty())
      v.lines.push_back(noise);
    out.push_back(std::move(v));
  }
  return out;
}

std::string verdict_heading(const Analysis& analysis) {
  if (analysis.comparisons.empty()) return "";
  const CompareSpec& spec = analysis.comparisons.front().spec;
  return "Verdict (" + spec.axis + "=" + spec.baseline + " vs " + spec.contender + ")";
}

std::string verdict_caveat(const std::vector<Result>& results, const std::string& band) {
  const bool measured_cpu = std::any_of(results.begin(), results.end(), [](const Result& r) {
    return r.status == CellStatus::kOk && r.cell.device.kind == DeviceKind::kCpu;
  });
  for (const Result& r : results) {
    if (r.status != CellStatus::kPredicted) continue;
    const std::string against =
        measured_cpu ? ", against the CPU measured here, not the GPU host's (docs/gpu.md)" : "";
    if (r.prediction.prediction_error <= 0.0)
      return r.cell.device.text() + " predicted with the profile " +
             r.prediction.prediction_profile + ", not measured, with no validated band" + against;
    return r.cell.device.text() + " predicted with the profile " + r.prediction.prediction_profile +
           ", not measured" + against + "; a side wins only where the 80 % band excludes a tie; " +
           (band.empty() ? "the band is split conformal on real runs" : band);
  }
  return "";
}

}  // namespace crossover
