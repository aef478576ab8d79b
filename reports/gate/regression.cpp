#include "reports/gate/regression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "core/stats/stats.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/analysis/cell_names.hpp"
#include "reports/gate/one_run_evidence.hpp"
#include "reports/gate/regression_report.hpp"
#include "reports/gate/run_groups.hpp"
#include "reports/render/table_writer.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// Verdicts in the order the reports list them: the worst first (the enum's order).
int severity(Verdict verdict) { return static_cast<int>(verdict); }

// A counter's or an instruction set's name from a results file, on one line.
std::string one_line(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return text;
}

// Why two counted results cannot be compared on `metric`, or nothing: one not counted, counted by
// two counters or on two instruction sets, or without estimated cycles.
Found uncountable(const Result& base, const Result& cand, GateMetric metric) {
  for (const auto& [side, r] : {std::pair{"baseline", &base}, std::pair{"candidate", &cand}}) {
    if (!r->counts.counted())
      return Problem(std::string(side) + " not counted (" +
                     (r->cell.device.is_cuda()
                          ? "a CUDA cell is timed only: compare it with --metric epoch"
                          : "its count key is \"none\", or an older result") +
                     ")");
    if (metric == GateMetric::kCycles && r->counts.estimated_cycles_samples.empty())
      return Problem(
          std::string(side) +
          " counted instructions alone (count \"instructions\"): no cycles "
          "to compare; compare --metric instructions, or count \"cycles\" on both sides");
  }
  if (base.counts.counter != cand.counts.counter)
    return Problem(
        "counted by " + one_line(base.counts.counter) + " in the baseline and by " +
        one_line(cand.counts.counter) +
        " in the candidate: counts of two counters are never compared (set CROSSOVER_COUNTER "
        "alike on both sides)");
  if (base.counts.counted_isa != cand.counts.counted_isa)
    return Problem(
        "counted on " + one_line(base.counts.counted_isa) + " in the baseline and on " +
        one_line(cand.counts.counted_isa) +
        " in the candidate: with other vector instructions the code runs other kernels, so "
        "the counts are not the same work");
  return std::nullopt;
}

// Why two groups cannot be compared, decided as a value; refusal_text says it.
enum class Refusal {
  kBaselineNotMeasured,   ///< no ok result in the baseline
  kCandidateNotMeasured,  ///< none in the candidate
  kDataDiffer,            ///< another data source or other rows
  kNoEnergy,              ///< --metric energy, and a side measured none
  kUncountable,           ///< a count metric, and a side has no counted epoch to compare
  kTooFewSamples,         ///< too few to reach alpha, and not several runs per side
};

// Whether the two groups can be compared at all: nothing when they can, else why, with the
// verdict that says so in `v`. Fills the medians and the sample counts either way.
std::optional<Refusal> comparable(CellVerdict& v, const Group& b, const Group& c,
                                  const RegressionOptions& o) {
  const Result* base = b.first_ok();
  const Result* cand = c.first_ok();
  if (base == nullptr) {
    // Measured on neither side (skipped or predicted on both, or failed in both): nothing was
    // compared, and it is not counted among the compared cells.
    v.verdict = cand == nullptr ? Verdict::kNotMeasured : Verdict::kNotCompared;
    return Refusal::kBaselineNotMeasured;
  }
  v.baseline_cell = base->cell.index;
  if (cand == nullptr) {
    const bool failed = c.results.front()->status == CellStatus::kFailed;
    v.verdict = failed ? Verdict::kFailed : Verdict::kNotCompared;
    return Refusal::kCandidateNotMeasured;
  }
  v.candidate_cell = cand->cell.index;
  const auto b_runs = b.runs(o.metric);
  const auto c_runs = c.runs(o.metric);
  const auto bs = b.samples(o.metric);
  const auto cs = c.samples(o.metric);
  v.baseline_runs = b_runs.size();
  v.candidate_runs = c_runs.size();
  v.baseline_samples = bs.size();
  v.candidate_samples = cs.size();
  if (!bs.empty()) v.baseline_median = quantile(bs, 0.5);
  if (!cs.empty()) v.candidate_median = quantile(cs, 0.5);
  if (base->data_source != cand->data_source || base->train_rows != cand->train_rows) {
    v.verdict = Verdict::kInconclusive;
    return Refusal::kDataDiffer;
  }
  if ((o.metric == GateMetric::kEnergy || is_count_metric(o.metric)) &&
      (bs.empty() || cs.empty())) {
    v.verdict = Verdict::kNotCompared;
    return o.metric == GateMetric::kEnergy ? Refusal::kNoEnergy : Refusal::kUncountable;
  }
  if (is_count_metric(o.metric)) return std::nullopt;
  const bool by_runs = b_runs.size() >= 2 && c_runs.size() >= 2;
  if (!by_runs &&
      (bs.size() < 2 || cs.size() < 2 || smallest_p_value(bs.size(), cs.size()) > o.alpha)) {
    v.verdict = Verdict::kInconclusive;
    return Refusal::kTooFewSamples;
  }
  return std::nullopt;
}

// A refusal in words, with the facts of the two groups that made it.
std::string refusal_text(Refusal refusal, const Group& b, const Group& c,
                         const RegressionOptions& o) {
  const auto side = [](const char* name, const Result& r) {
    return std::string(name) + " " + text_of(r.status) + (r.reason.empty() ? "" : ": " + r.reason);
  };
  const Result* base = b.first_ok();
  const Result* cand = c.first_ok();
  switch (refusal) {
    case Refusal::kBaselineNotMeasured:
      return side("baseline", *b.results.front());
    case Refusal::kCandidateNotMeasured:
      return side("candidate", *c.results.front());
    case Refusal::kDataDiffer:
      return fmt::format("the data differ: baseline {} {} rows, candidate {} {} rows",
                         text_of(base->data_source), base->train_rows, text_of(cand->data_source),
                         cand->train_rows);
    case Refusal::kNoEnergy: {
      const bool baseline = b.samples(o.metric).empty();
      const std::string& note = (baseline ? *base : *cand).energy.energy_note;
      return std::string(baseline ? "baseline" : "candidate") + ": no energy measured (" +
             (note.empty() ? "an older result" : note) + ")";
    }
    case Refusal::kUncountable: {
      const Found why = uncountable(*base, *cand, o.metric);
      return why ? why->text : "no counted epoch on one side";
    }
    case Refusal::kTooFewSamples:
      return fmt::format("too few samples ({} and {}): at least {} per side can reach alpha ",
                         b.samples(o.metric).size(), c.samples(o.metric).size(),
                         samples_needed(o.alpha)) +
             format_number(o.alpha) + "; raise repeats or epochs";
  }
  return "not compared";  // (every refusal is worded above)
}

// The verdict a rule gives; `worse`: the change goes the way a regression does.
Verdict verdict_of(Rule rule, bool worse) {
  switch (rule) {
    case Rule::kCountedMore:
    case Rule::kCountedLess:
    case Rule::kBeyond:
      return worse ? Verdict::kRegression : Verdict::kImprovement;
    case Rule::kIdenticalCounts:
    case Rule::kCountsWithin:
    case Rule::kSignificantWithin:
    case Rule::kNotSignificantWithin:
      return Verdict::kNoChange;
    case Rule::kCountsAcross:
    case Rule::kExplainedByDrift:
    case Rule::kAssumedSpread:
    case Rule::kTooNoisy:
      return Verdict::kInconclusive;
    case Rule::kNone:
      break;
  }
  return Verdict::kNotCompared;
}

// A counted cell: the counts are exact where the code did the same work, and each epoch of a run
// repeats its own count in the next run (a repeat's first epoch counts a little more than its
// second, in every run alike). So the epochs pair by their order, and the interval of the change
// is the range of the pairs' changes: identical counts make it a point, and an A/A change 0.
void judge_counts(CellVerdict& v, const Result& base, const Result& cand,
                  const std::vector<double>& bs, const std::vector<double>& cs,
                  const RegressionOptions& o) {
  if (const Found why = uncountable(base, cand, o.metric)) {
    v.verdict = Verdict::kNotCompared;
    v.reason = why->text;
    return;
  }
  const std::size_t pairs = std::min(bs.size(), cs.size());
  Interval range{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  for (std::size_t i = 0; i < pairs; ++i) {
    range.low = std::min(range.low, cs[i] / bs[i] - 1.0);
    range.high = std::max(range.high, cs[i] / bs[i] - 1.0);
  }
  v.tested = true;
  v.test = TestUsed::kCounts;
  v.decided_by = DecidedBy::kCounts;
  v.baseline_median = quantile(bs, 0.5);
  v.candidate_median = quantile(cs, 0.5);
  v.change = v.candidate_median / v.baseline_median - 1.0;
  v.change_ci = range;
  v.net_change = v.decided_change = v.change;
  v.decided_ci = v.change_ci;
  v.p_value = v.run_level_p = 1.0;
  v.rule = v.change_ci.low >= o.threshold                           ? Rule::kCountedMore
           : v.change_ci.high <= -o.threshold                       ? Rule::kCountedLess
           : v.change_ci.low == v.change_ci.high && v.change == 0.0 ? Rule::kIdenticalCounts
           : v.change_ci.low > -o.threshold && v.change_ci.high < o.threshold ? Rule::kCountsWithin
                                                                              : Rule::kCountsAcross;
  v.verdict = verdict_of(v.rule, v.change_ci.low >= o.threshold);
  v.reason = rule_text(v, o);
  v.evidence = fmt::format("counted by {} ({}, {}): {} epochs paired in order",
                           one_line(base.counts.counter), one_line(base.counts.counter_version),
                           one_line(base.counts.counted_isa), pairs);
  if (bs.size() != cs.size())
    v.reason +=
        fmt::format("; {} and {} epochs counted: the first {} paired", bs.size(), cs.size(), pairs);
  if (base.counts.counter_version != cand.counts.counter_version)
    v.reason += "; counter " + one_line(base.counts.counter_version) + " against " +
                one_line(cand.counts.counter_version);
}

// Several runs per side: the run is the unit of replication, not the epoch (Welch's t on the
// runs' medians).
// Paired where the runs were made in pairs (paired_runs): each pair's log ratio, tested by a
// one-sample t, so that a slow phase of the machine over both runs of a pair cancels.
Evidence run_level_evidence(CellVerdict& v, const Runs& b_runs, const Runs& c_runs,
                            const std::pair<Runs, Runs>& pairs, const RegressionOptions& o,
                            const std::string& unit) {
  const bool paired = !pairs.first.empty();
  const RunLevelTest t =
      paired ? paired_run_test(pairs.first, pairs.second) : run_level_test(b_runs, c_runs);
  v.test = paired ? TestUsed::kPairedRuns : TestUsed::kWelchRuns;
  // The medians the table prints beside the change are what the test compared: the geometric
  // means of the runs' medians (the pooled samples' median can differ, and once read -9.5 %
  // beside 692 us and 699 us).
  v.baseline_median = t.baseline_center;
  v.candidate_median = t.candidate_center;
  v.change = t.change;
  v.change_ci = t.change_ci;
  v.p_value = t.p_value;
  v.run_level_p = t.p_value;
  v.net_change = v.change;
  v.decided_by = DecidedBy::kRunLevel;
  v.evidence = paired ? fmt::format("run-level test: paired t on {} {} pairs' log ratios, p = {}",
                                    pairs.first.size(), unit, p_text(v.p_value))
                      : fmt::format(
                            "run-level test: Welch t on {} and {} {} medians (not made in pairs), "
                            "p = {}",
                            b_runs.size(), c_runs.size(), unit, p_text(v.p_value));
  return {v.change, v.change_ci, v.p_value < o.alpha};
}

// The rule that combines the evidence into a verdict.
Rule decided_rule(const Evidence& e, const RegressionOptions& o) {
  if (e.explained) return Rule::kExplainedByDrift;
  if (e.significant)
    return std::abs(e.effective) >= o.threshold ? Rule::kBeyond : Rule::kSignificantWithin;
  if (e.interval.low > -o.threshold && e.interval.high < o.threshold)
    return Rule::kNotSignificantWithin;
  return e.assumed ? Rule::kAssumedSpread : Rule::kTooNoisy;
}

void judge(CellVerdict& v, const Group& b, const Group& c, const RegressionOptions& o,
           const RunLevelContext& context) {
  if (const std::optional<Refusal> refused = comparable(v, b, c, o)) {
    v.reason = refusal_text(*refused, b, c, o);
    return;
  }
  if (is_count_metric(o.metric)) {
    judge_counts(v, *b.first_ok(), *c.first_ok(), b.samples(o.metric), c.samples(o.metric), o);
    return;
  }
  const Result* base = b.first_ok();
  const Result* cand = c.first_ok();
  const auto b_runs = b.runs(o.metric);
  const auto c_runs = c.runs(o.metric);
  const auto bs = b.samples(o.metric);
  const auto cs = c.samples(o.metric);
  // One run per side measured in several processes: a calibration of this runner, when it has
  // the cell, is the better evidence (its spread is measured over many runs, not guessed from
  // a few processes); several runs per side are always compared run by run.
  const bool one_run_each = b.results.size() == 1 && c.results.size() == 1;
  const bool calibrated =
      context.calibration != nullptr && context.calibration->find(v.config) != nullptr;
  const bool by_runs = b_runs.size() >= 2 && c_runs.size() >= 2 && !(one_run_each && calibrated);
  v.tested = true;
  const std::string unit = b.per_process() || c.per_process() ? "process" : "run";
  const auto pairs = by_runs ? paired_runs(b, c, o.metric) : std::pair<Runs, Runs>{};
  Evidence evidence = by_runs ? run_level_evidence(v, b_runs, c_runs, pairs, o, unit)
                              : one_run_evidence(v, *base, *cand, bs, cs, o, context);
  // One run per side in several processes: they share their run's machine, which the
  // references around the cell saw. Rounds made in pairs need no correction: the drift weighs
  // on both runs of each pair.
  if (by_runs && one_run_each)
    net_of_machine(v, evidence,
                   context.drift(base->cell.index, cand->cell.index, uses_all_cores(base->cell)),
                   o);
  v.decided_change = evidence.effective;
  v.decided_ci = evidence.interval;
  v.decided_net = evidence.net;
  v.rule = decided_rule(evidence, o);
  v.verdict = verdict_of(
      v.rule, is_time_metric(o.metric) ? evidence.effective > 0.0 : evidence.effective < 0.0);
  v.reason = rule_text(v, o);
  v.reason +=
      !by_runs ? fmt::format(" (Mann-Whitney U on {} and {} samples)", bs.size(), cs.size())
      : !pairs.first.empty()
          ? fmt::format(" (paired t on {} {} pairs)", pairs.first.size(), unit)
          : fmt::format(" (Welch t on {} and {} {} medians)", b_runs.size(), c_runs.size(), unit);
  if (base->noisy || cand->noisy) {
    v.reason += std::string("; noisy ") +
                (base->noisy && cand->noisy ? "both runs"
                 : base->noisy              ? "baseline"
                                            : "candidate") +
                " (IQR > 10 % of the median)";
  }
}

}  // namespace

void check_options(const RegressionOptions& o) {
  if (!(o.threshold >= 0.0 && o.threshold < 10.0))
    throw std::invalid_argument("--threshold must be a percentage from 0 to 1000, got " +
                                format_number(100.0 * o.threshold));
  if (!(o.assumed_spread >= 0.0 && o.assumed_spread < 10.0))
    throw std::invalid_argument("--assumed-spread must be a percentage from 0 to 1000, got " +
                                format_number(100.0 * o.assumed_spread));
  if (!(o.alpha > 0.0 && o.alpha < 1.0))
    throw std::invalid_argument("--alpha must lie between 0 and 1, got " + format_number(o.alpha));
}

RegressionReport compare_runs(const std::vector<Result>& baseline,
                              const std::vector<Result>& candidate,
                              const RegressionOptions& options, const RunLevelContext& context) {
  check_options(options);
  const auto base_groups = group_results(baseline);
  const auto cand_groups = group_results(candidate);
  std::map<std::string, std::size_t> cand_where;
  for (std::size_t i = 0; i < cand_groups.size(); ++i) cand_where[cand_groups[i].config.dump()] = i;

  // Names are computed over both runs, so a cell has the same name on both sides.
  std::vector<Json> configs;
  for (const auto& g : base_groups) configs.push_back(g.config);
  for (const auto& g : cand_groups) configs.push_back(g.config);
  const auto names = distinguishing_names(configs);

  RegressionReport report;
  report.options = options;
  std::vector<bool> matched(cand_groups.size(), false);
  for (std::size_t i = 0; i < base_groups.size(); ++i) {
    const auto it = cand_where.find(base_groups[i].config.dump());
    if (it == cand_where.end()) {
      report.only_in_baseline.push_back(names[i]);
      continue;
    }
    matched[it->second] = true;
    CellVerdict v;
    v.name = names[i];
    v.config = base_groups[i].config;
    v.baseline_cell = base_groups[i].results.front()->cell.index;
    v.candidate_cell = cand_groups[it->second].results.front()->cell.index;
    judge(v, base_groups[i], cand_groups[it->second], options, context);
    if (v.tested && base_groups[i].results.size() >= 2)
      report.rounds_run =
          std::max(report.rounds_run, static_cast<int>(base_groups[i].results.size()));
    // Matched on identity keys: say when the two were measured or guarded differently.
    const Cell& b = base_groups[i].results.front()->cell;
    const Cell& c = cand_groups[it->second].results.front()->cell;
    const auto changed = measuring_differences(b, c);
    if (!changed.empty()) {
      report.notes.push_back(v.name + ": measured with other policy or protection settings (" +
                             join(changed, "; ") + "); they do not change what is measured");
    }
    report.cells.push_back(std::move(v));
  }
  for (std::size_t i = 0; i < cand_groups.size(); ++i) {
    if (!matched[i]) report.only_in_candidate.push_back(names[base_groups.size() + i]);
  }
  describe_evidence(report, context);
  report.rounds_needed = kDefaultRounds;
  if (context.calibration != nullptr) {
    int most = 0;
    for (const CellVerdict& v : report.cells)
      if (const CellCalibration* c = context.calibration->find(v.config))
        most = std::max(most, rounds_needed(c->spread(options.metric).sigma_raw, options));
    if (most > 0) report.rounds_needed = most;
  }

  std::stable_sort(report.cells.begin(), report.cells.end(),
                   [](const CellVerdict& a, const CellVerdict& b) {
                     return severity(a.verdict) < severity(b.verdict);
                   });
  return report;
}

std::optional<ReferenceDrift> RunLevelContext::drift(std::optional<std::size_t> baseline_cell,
                                                     std::optional<std::size_t> candidate_cell,
                                                     bool all_cores) const {
  if (baseline_env == nullptr || candidate_env == nullptr) return std::nullopt;
  return reference_drift(*baseline_env, *candidate_env, baseline_cell, candidate_cell, all_cores);
}

RegressionReport compare_records(const RunRecord& baseline, const RunRecord& candidate,
                                 const RegressionOptions& options, const Calibration* calibration) {
  RunLevelContext context;
  context.baseline_env = baseline.environment ? &*baseline.environment : nullptr;
  context.candidate_env = candidate.environment ? &*candidate.environment : nullptr;
  context.calibration = calibration;
  RegressionReport report = compare_runs(baseline.results, candidate.results, options, context);
  report.baseline_label = baseline.label;
  report.candidate_label = candidate.label;
  if (baseline.environment && candidate.environment)
    // Counts do not move with the machine's speed: its measured peaks are no warning for them.
    report.environment = environment_differences(*baseline.environment, *candidate.environment,
                                                 !is_count_metric(options.metric));
  for (const RunRecord* run : {&baseline, &candidate}) {
    if (!run->environment)
      report.notes.push_back(run->label +
                             " has no readable env.json: the environments were not compared");
  }
  if (calibration != nullptr && baseline.environment) {
    const auto here = runner_of(*baseline.environment);
    for (const char* key : {"host", "cpu", "logical_cores"}) {
      if (calibration->runner.contains(key) && here.contains(key) &&
          calibration->runner[key] != here[key]) {
        report.notes.push_back(calibration->source + " was measured on another runner (" + key +
                               " " + calibration->runner[key].dump() + ", here " +
                               here[key].dump() + "): its run-to-run spread may not hold here");
        break;
      }
    }
  }
  return report;
}

}  // namespace crossover
