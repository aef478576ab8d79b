#include "reports/analysis/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/cells/keys.hpp"
#include "core/costmodel/cost_model.hpp"
#include "core/stats/crossing.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"
#include "reports/analysis/comparison.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/analysis/mode_effects.hpp"

namespace crossover {
namespace {

// The configuration with the highest throughput: by throughput, not epoch time (the smallest
// data set's epoch is trivially the shortest); in energy or cost, the most samples per joule or
// per unit of money (in_measure).
// A predicted cell faster than the best measured one is said beside it, as the verdict says a
// predicted side wins: "would be faster" where its whole band is, "may be" where the band
// allows either (`predicted`: the workload's predicted cells; in time only).
Recommendation best_throughput(const std::vector<Result>& mine,
                               const std::vector<const Result*>& predicted,
                               const CompareSpec& spec) {
  const auto by_throughput = [](const Result& a, const Result& b) {
    return a.samples_per_second < b.samples_per_second;
  };
  const Result& best = *std::max_element(mine.begin(), mine.end(), by_throughput);
  const std::string what = spec.measure == Measure::kTime     ? "highest throughput"
                           : spec.measure == Measure::kEnergy ? "most samples per joule"
                                                              : "most samples per unit of money";
  Recommendation out{best.cell.workload,
                     what + " measured: " + cell_label(best.cell) + ", " +
                         throughput_text(best.samples_per_second, spec.measure) + " (" +
                         format_measure(best.epoch_seconds, spec.measure) + " per epoch)",
                     {best.cell.index}};
  const Result* fastest = nullptr;
  for (const Result* r : predicted)
    if (fastest == nullptr || r->samples_per_second > fastest->samples_per_second) fastest = r;
  if (spec.measure != Measure::kTime || fastest == nullptr) return out;
  const double factor = band_factor(fastest->prediction.prediction_error);
  if (fastest->samples_per_second * factor <= best.samples_per_second) return out;
  out.statement += std::string("; ") +
                   (fastest->samples_per_second / factor > best.samples_per_second
                        ? "faster still, predicted: "
                        : "perhaps faster, predicted (its band allows either): ") +
                   cell_label(fastest->cell) + ", " +
                   throughput_text(fastest->samples_per_second, spec.measure) + " (not measured)";
  out.cells.push_back(fastest->cell.index);
  return out;
}

// The margin a knob's pair must clear to matter, and within which it did not: the pairs'
// equivalence margin, 5 % either side of 1.
constexpr double kKnobMargin = kEquivalenceMargin;

// A knob's effect over pairs equal in everything else, in words, only as far as their intervals
// carry it:
// - some pairs show it beyond the margin and none the other way: "speedup 1.2x (loader=tensor
//   faster; geometric mean of 3 pair(s), 2 beyond 5 %)";
// - every interval within the margin: "did not matter: speedup 1x, every interval within 5 % of
//   1 (2 pair(s))";
// - neither: "undecided (too noisy to tell): speedup 1.258x, an interval spans 0.318x to 4.308x
//   (2 pair(s))";
// - beyond the margin both ways: no mean, "depends on the cell: threads=0 faster in 1 pair(s)
//   (#2/#3 1.467x), slower in 1 (#0/#1 0.541x)".
std::string knob_effect_words(const std::vector<const Pair*>& pairs, const CompareSpec& spec) {
  double log_sum = 0.0;
  std::vector<const Pair*> faster, slower;
  bool within = true;
  const Pair* widest = pairs.front();
  for (const Pair* p : pairs) {
    log_sum += std::log(p->speedup);
    if (p->ci.low > 1.0 + kKnobMargin) faster.push_back(p);
    if (p->ci.high < 1.0 - kKnobMargin) slower.push_back(p);
    within = within && p->ci.low >= 1.0 - kKnobMargin && p->ci.high <= 1.0 + kKnobMargin;
    if (p->ci.high / p->ci.low > widest->ci.high / widest->ci.low) widest = p;
  }
  const double effect = std::exp(log_sum / static_cast<double>(pairs.size()));
  const std::string count = std::to_string(pairs.size()) + " pair(s)";
  const std::string named = spec.axis + "=" + spec.contender;
  // One wording for every ratio: a speedup (> 1: the side named is faster), or how much of the
  // baseline's energy or cost the side named uses; the direction word names that side.
  const bool time = spec.measure == Measure::kTime;
  const auto ratio_of = [&](double r) {
    return time ? format_number(r) + "x"
                : format_number(1.0 / r) + "x the " + measure_noun(spec.measure);
  };
  const std::string ratio =
      time ? "speedup " + ratio_of(effect) : named + " uses " + ratio_of(effect);
  const std::string up = time ? "faster" : "uses less", down = time ? "slower" : "uses more";
  if (!faster.empty() && !slower.empty()) {
    const auto listed = [&](const std::vector<const Pair*>& ps) {
      std::vector<std::string> items;
      for (const Pair* p : ps)
        items.push_back("#" + std::to_string(p->baseline->cell.index) + "/#" +
                        std::to_string(p->contender->cell.index) + " " + ratio_of(p->speedup));
      return std::to_string(ps.size()) + " pair(s) (" + join(items, ", ") + ")";
    };
    return "depends on the cell: " + named + " " + up + " in " + listed(faster) + ", " + down +
           " in " + listed(slower);
  }
  if (!faster.empty() || !slower.empty()) {
    const std::size_t beyond = faster.size() + slower.size();
    return ratio + " (" + named + " " + (faster.empty() ? down : up) + "; geometric mean of " +
           count + (beyond < pairs.size() ? ", " + std::to_string(beyond) + " beyond 5 %" : "") +
           ")";
  }
  if (within)
    return "did not matter: " + ratio + ", every interval within 5 % of 1 (" + count + ")";
  return "undecided (too noisy to tell): " + ratio + ", an interval spans " +
         format_number(widest->ci.low) + "x to " + format_number(widest->ci.high) + "x (" + count +
         ")";
}

// Knobs: each other value of a knob against its first, over cells equal in everything else. Where
// the devices disagree on its direction, each device's effect apart (a worker that slows the CPU
// and speeds the GPU is not a mean of the two).
std::vector<Recommendation> knob_findings(const std::vector<Result>& mine,
                                          const CompareSpec& spec) {
  std::vector<Recommendation> out;
  for (const std::string& knob : knob_names()) {
    if (knob == spec.axis) continue;
    std::vector<std::string> values;
    for (const Result& r : mine) {
      const std::string v = value_text(cell_config_json(r.cell)[knob]);
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
    for (std::size_t j = 1; j < values.size(); ++j) {
      CompareSpec knob_spec{knob, values[0], values[j], spec.measure, spec.machines_apart};
      const std::vector<Pair> pairs = pair_results(mine, knob_spec);
      if (pairs.empty()) continue;
      std::vector<std::size_t> cells;
      std::vector<const Pair*> all;
      std::map<Device, std::vector<const Pair*>> by_device;
      for (const Pair& p : pairs) {
        cells.insert(cells.end(), {p.baseline->cell.index, p.contender->cell.index});
        all.push_back(&p);
        by_device[p.baseline->cell.device].push_back(&p);
      }
      const auto direction = [](const std::vector<const Pair*>& ps) {
        double log_sum = 0.0;
        for (const Pair* p : ps) log_sum += std::log(p->speedup);
        return log_sum > 0.0;
      };
      const bool apart = by_device.size() > 1 &&
                         std::any_of(by_device.begin(), by_device.end(), [&](const auto& d) {
                           return direction(d.second) != direction(all);
                         });
      std::string words = knob + " " + values[0] + " -> " + values[j];
      if (!apart) {
        const std::string effect = knob_effect_words(all, knob_spec);
        words += (effect.rfind("did not", 0) == 0 ? " " : ": ") + effect;
      } else {
        std::vector<std::string> parts;
        for (const auto& [device, ps] : by_device)
          parts.push_back("on " + device.text() + " " + knob_effect_words(ps, knob_spec));
        words += ": " + join(parts, "; ");
      }
      out.push_back({mine.front().cell.workload, words, cells});
    }
  }
  return out;
}

}  // namespace

std::vector<Recommendation> recommend(const std::vector<Result>& results, const CompareSpec& spec,
                                      const std::vector<Crossover>& crossovers) {
  std::vector<std::string> workloads;
  for (const Result& r : results) {
    if (r.status == CellStatus::kOk &&
        std::find(workloads.begin(), workloads.end(), r.cell.workload) == workloads.end()) {
      workloads.push_back(r.cell.workload);
    }
  }
  std::vector<Recommendation> out;
  for (const std::string& workload : workloads) {
    std::vector<Result> mine;
    std::vector<const Result*> predicted;
    for (const Result& r : results) {
      if (r.status == CellStatus::kOk && r.cell.workload == workload) mine.push_back(r);
      if (r.status == CellStatus::kPredicted && r.cell.workload == workload &&
          r.samples_per_second > 0.0)
        predicted.push_back(&r);
    }
    out.push_back(best_throughput(mine, predicted, spec));
    // The crossover in epochs: after how many epochs the contender's start-up is paid back (a
    // matter of time: start-up is measured in seconds only), where that is after more than one.
    // The first such pair is the verdict's own line (reports/analysis/workload_verdict), not
    // repeated.
    bool said_in_verdict = false;
    for (const Pair& p : pair_results(mine, spec)) {
      if (p.predicted || p.winner != Winner::kContender || spec.measure != Measure::kTime ||
          !(p.contender->first_epoch_seconds > 0.0))
        continue;
      const auto epochs = break_even_epochs(*p.baseline, *p.contender);
      if (!epochs || *epochs <= 1 || !std::exchange(said_in_verdict, true)) continue;
      out.push_back({workload,
                     spec.axis + "=" + spec.contender + " pays back its start-up (" +
                         format_seconds(p.contender->startup_seconds) + " + first epoch " +
                         format_seconds(p.contender->first_epoch_seconds) + ") after " +
                         std::to_string(*epochs) + (*epochs == 1 ? " epoch" : " epochs") + " at " +
                         cell_label(p.contender->cell),
                     {p.baseline->cell.index, p.contender->cell.index}});
    }
    const auto modes = mode_findings(mine, spec, crossovers);
    out.insert(out.end(), modes.begin(), modes.end());
    const auto knobs = knob_findings(mine, spec);
    out.insert(out.end(), knobs.begin(), knobs.end());
  }
  return out;
}

const std::vector<Result>& compared_results(const Analysis& analysis,
                                            const std::vector<Result>& results) {
  return analysis.measured ? *analysis.measured : results;
}

Analysis analyse(const std::vector<Result>& results, const std::vector<CompareSpec>& specs,
                 Measure measure, bool machines_apart) {
  Analysis analysis;
  analysis.measure = measure;
  if (measure != Measure::kTime)
    analysis.measured = std::make_shared<const std::vector<Result>>(in_measure(results, measure));
  const std::vector<Result>& seen = compared_results(analysis, results);
  std::set<std::string> said;  // recommendations an earlier comparison made already
  for (CompareSpec spec : specs) {
    spec.measure = measure;
    spec.machines_apart = machines_apart || is_key(spec.axis, Key::kHost);
    ComparisonFindings f{spec, pair_results(seen, spec), {}, {}, {}};
    f.crossovers = find_crossovers(f.pairs, spec);
    for (Recommendation& r : recommend(seen, spec, f.crossovers))
      if (said.insert(r.workload + ": " + r.statement).second)
        f.recommendations.push_back(std::move(r));
    f.by_measure = crossovers_by_measure(results, spec);
    analysis.comparisons.push_back(std::move(f));
  }
  analysis.devices = compare_devices(seen, measure, machines_apart);
  analysis.scaling = scaling_rows(results);
  return analysis;
}

}  // namespace crossover
