// compare's verdicts as text: the terminal table, the Markdown for a pull request, the JSON file.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/text/text.hpp"
#include "reports/gate/regression.hpp"
#include "reports/render/table_writer.hpp"

namespace crossover {

std::string p_text(double p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, p < 0.001 ? "%.1e" : "%.3f", p);
  return buffer;
}

std::string interval_text(const Interval& ci) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "[%+.1f, %+.1f] %%", 100.0 * ci.low, 100.0 * ci.high);
  return buffer;
}

std::string rule_text(const CellVerdict& v, const RegressionOptions& o) {
  const std::string bounds = "±" + format_percent(o.threshold, false);
  const std::string spread = "epoch by epoch " + interval_text(v.change_ci);
  // The p-value of the test that decided: with a calibration, the larger of the two.
  const double p = v.decided_by == DecidedBy::kRunLevel || v.decided_by == DecidedBy::kAssumedSpread
                       ? std::max(v.p_value, v.run_level_p)
                       : v.p_value;
  const std::string machine =
      "its reference " + format_percent(v.machine.value_or(1.0) - 1.0) + " around the cell";
  switch (v.rule) {
    case Rule::kNone:
      return "";
    case Rule::kCountedMore:
      return "every epoch counted more by " + bounds + " or more (" + spread + ")";
    case Rule::kCountedLess:
      return "every epoch counted less by " + bounds + " or more (" + spread + ")";
    case Rule::kIdenticalCounts:
      return "identical counts";
    case Rule::kCountsWithin:
      return "within " + bounds + " (" + spread + ")";
    case Rule::kCountsAcross:
      return spread + " reaches across " + bounds +
             ": the epochs' counts differ (threads that spin while they wait count too); count "
             "at threads 1";
    case Rule::kExplainedByDrift:
      return "the machine's drift explains it within the reference's noise: " +
             format_percent(v.change) + " measured, " + machine + ", " +
             format_percent(v.decided_change) + " net " + interval_text(v.decided_ci) +
             "; one run per side cannot tell the machine from the code: compare several runs per "
             "side (--rerun)";
    case Rule::kBeyond:
      return "significant and beyond " + bounds +
             (v.decided_net && v.machine_used ? " net of the machine's drift (" + machine + ")"
                                              : "");
    case Rule::kSignificantWithin:
      return "significant (p = " + p_text(p) + ") but within " + bounds;
    case Rule::kNotSignificantWithin:
      return "not significant (p = " + p_text(p) + "), interval within " + bounds;
    case Rule::kAssumedSpread:
      return "one run per side cannot tell this change from the difference between two "
             "processes (an assumed " +
             format_percent(o.assumed_spread, false) +
             " per run): calibrate this runner (crossover calibrate) or compare several runs per "
             "side (--rerun)";
    case Rule::kTooNoisy:
      return "too noisy: not significant, and the interval reaches past " + bounds +
             (run_level(v.test)
                  ? "; the runs (processes) differ: more processes, more rounds or a quieter "
                    "machine"
                  : "; more repeats or a quieter machine");
  }
  return "";
}

bool is_time_metric(GateMetric metric) { return metric != GateMetric::kThroughput; }

bool is_count_metric(GateMetric metric) {
  return metric == GateMetric::kInstructions || metric == GateMetric::kCycles;
}

std::string metric_text(GateMetric metric) {
  switch (metric) {
    case GateMetric::kStep:
      return "time per step";
    case GateMetric::kEnergy:
      return "energy per epoch (J)";
    case GateMetric::kThroughput:
      return "throughput (samples/s)";
    case GateMetric::kInstructions:
      return "instructions per epoch (counted)";
    case GateMetric::kCycles:
      return "estimated cycles per epoch (Callgrind's cache simulation)";
    case GateMetric::kEpoch:
      break;
  }
  return "time per epoch";
}

std::string value_in_unit(double value, GateMetric metric) {
  if (metric == GateMetric::kEnergy) return format_number(value) + " J";
  if (is_count_metric(metric)) return format_axis_value(std::round(value));
  return is_time_metric(metric) ? format_seconds(value) : format_number(value) + "/s";
}

// The configuration cells are matched on: what is measured, not how long (the stopping rule) nor
namespace {

using Json = nlohmann::ordered_json;

std::string cell_value(double median, std::size_t samples, std::size_t runs, GateMetric metric) {
  if (samples == 0) return "-";
  return value_in_unit(median, metric) + " (n=" + std::to_string(samples) +
         (runs > 1 ? ", " + std::to_string(runs) + " runs" : "") + ")";
}

TextTable verdict_table(const std::vector<const CellVerdict*>& cells, GateMetric metric,
                        bool with_verdict) {
  TextTable table;
  if (with_verdict) table.header.push_back("verdict");
  for (const char* h :
       {"cell", "baseline", "candidate", "change", "95 % CI", "p", "decided by", "why"})
    table.header.push_back(h);
  table.right_aligned.assign(table.header.size(), false);
  for (std::size_t i = table.header.size() - 7; i < table.header.size() - 2; ++i)
    table.right_aligned[i] = true;
  for (const CellVerdict* v : cells) {
    std::vector<std::string> row;
    if (with_verdict) row.push_back(text_of(v->verdict));
    const bool measured = v->tested;
    row.push_back(v->name);
    row.push_back(cell_value(v->baseline_median, v->baseline_samples, v->baseline_runs, metric));
    row.push_back(cell_value(v->candidate_median, v->candidate_samples, v->candidate_runs, metric));
    // The change and interval the verdict was decided on, so that its words match them.
    row.push_back(measured ? format_percent(v->decided_change) + (v->decided_net ? " net" : "")
                           : "-");
    row.push_back(measured ? interval_text(v->decided_ci) : "-");
    row.push_back(measured && v->test != TestUsed::kCounts ? p_text(v->p_value) : "-");
    row.push_back(v->decided_by == DecidedBy::kNone ? "-" : text_of(v->decided_by));
    row.push_back(v->reason);
    table.rows.push_back(row);
  }
  // A long reason, or one many cells share, is said once under the table.
  footnote_column(table, table.header.size() - 1, {});
  return table;
}

// The first line: the status word, what decided it, and the counts behind it.
std::string headline(const RegressionReport& r) {
  const std::size_t regressions = r.count(Verdict::kRegression), failed = r.count(Verdict::kFailed);
  const std::size_t undecided = r.count(Verdict::kInconclusive);
  const std::size_t compared = r.measured() - r.count(Verdict::kNotCompared);
  std::string text = text_of(r.status()) + ": ";
  if (regressions + failed > 0) {
    text += std::to_string(regressions) + " regression(s)";
    if (failed > 0) text += ", " + std::to_string(failed) + " cell(s) failed in the candidate";
  } else if (r.status() == GateStatus::kFail) {
    text += "changed beyond the threshold under --fail-on any-change";
  } else if (compared == 0) {
    text += "nothing compared";
  } else if (undecided > 0) {
    text += std::to_string(undecided) + " of " + std::to_string(compared) +
            " compared cell(s) undecided" +
            (undecided < compared ? ", no regression among the others" : "");
  } else {
    text += "no regression";
  }
  text += " in " + std::to_string(r.measured()) +
          " measured cell(s): " + std::to_string(r.count(Verdict::kImprovement)) + " improved, " +
          std::to_string(r.count(Verdict::kNoChange)) + " unchanged, " +
          std::to_string(r.count(Verdict::kInconclusive)) + " inconclusive, " +
          std::to_string(r.count(Verdict::kNotCompared)) + " not compared (measured on one side)";
  if (const std::size_t none = r.count(Verdict::kNotMeasured); none > 0)
    text += "; " + std::to_string(none) + " cell(s) measured on neither side";
  return text;
}

std::string settings_text(const RegressionOptions& o) {
  if (is_count_metric(o.metric))
    return "metric: " + metric_text(o.metric) +
           "; the epochs are paired in order, and a regression needs each of the candidate's to "
           "count " +
           format_percent(o.threshold, false) +
           " or more above the baseline's (the interval is the range of the pairs' changes: "
           "identical counts make it a point); counts of two counters or two instruction sets are "
           "not compared";
  return "metric: " + metric_text(o.metric) + "; a regression needs p < " + format_number(o.alpha) +
         " (two-sided: Mann-Whitney U on the samples of one run per side, a paired t on the log "
         "ratios of runs made in pairs when each side has several) and a change of " +
         format_percent(o.threshold, false) +
         " or more in the median; change = candidate / baseline - 1 " +
         "with a bootstrap 95 % interval";
}

}  // namespace

std::string render_regression_text(const RegressionReport& r) {
  std::string out = headline(r) + "\n";
  if (const std::string why = r.exit_reason(); !why.empty()) out += why + "\n";
  out += "crossover compare: " + r.baseline_label + " -> " + r.candidate_label + "\n";
  out += settings_text(r.options) + "\n";
  for (const auto& d : r.environment) {
    out += std::string(d.unfair ? "WARNING environment differs: " : "environment differs: ") +
           d.what + ": " + d.baseline + " -> " + d.candidate + "\n";
  }
  if (!r.evidence.empty()) out += "evidence: " + r.evidence + "\n";
  for (const auto& note : r.notes) out += "note: " + note + "\n";
  std::vector<const CellVerdict*> all;
  for (const auto& v : r.cells) all.push_back(&v);
  out += "\n" + render_text_table(verdict_table(all, r.options.metric, true));
  for (const auto& name : r.only_in_baseline) out += "only in the baseline: " + name + "\n";
  for (const auto& name : r.only_in_candidate) out += "only in the candidate: " + name + "\n";
  if (const std::string next = r.next_step(); !next.empty()) out += "next: " + next + "\n";
  return out;
}

std::string render_regression_markdown(const RegressionReport& r) {
  std::string out = "## " + markdown_text(headline(r)) + "\n\n";
  if (const std::string why = r.exit_reason(); !why.empty())
    out += "**" + markdown_text(why) + ".**\n\n";
  if (const std::string next = r.next_step(); !next.empty())
    out += "**Next:** " + markdown_with_code(next) + ".\n\n";
  out += "Baseline " + markdown_text(r.baseline_label) + ", candidate " +
         markdown_text(r.candidate_label) + ". " + settings_text(r.options) + ".\n\n";
  if (!r.evidence.empty()) out += "**Evidence:** " + markdown_text(r.evidence) + ".\n\n";
  if (r.unfair()) {
    out +=
        "> **Warning:** the two runs' environments differ in ways that change timings by "
        "themselves; read the verdicts with care.\n\n";
  }
  if (!r.environment.empty()) {
    TextTable env;
    env.header = {"environment", "baseline", "candidate", "can skew timings"};
    for (const auto& d : r.environment)
      env.rows.push_back({d.what, d.baseline, d.candidate, d.unfair ? "yes" : "no"});
    out += render_markdown_table(env) + "\n";
  }
  for (const auto& note : r.notes) out += "- " + markdown_with_code(note) + "\n";
  if (!r.notes.empty()) out += "\n";
  const auto section = [&](Verdict verdict, const std::string& title, bool folded) {
    std::vector<const CellVerdict*> cells;
    for (const auto& v : r.cells) {
      if (v.verdict == verdict) cells.push_back(&v);
    }
    if (cells.empty()) return;
    const std::string table = render_markdown_table(verdict_table(cells, r.options.metric, false));
    if (folded) {
      out += "<details><summary>" + title + " (" + std::to_string(cells.size()) +
             ")</summary>\n\n" + table + "\n</details>\n\n";
    } else {
      out += "### " + title + " (" + std::to_string(cells.size()) + ")\n\n" + table + "\n";
    }
  };
  section(Verdict::kRegression, "Regressions", false);
  section(Verdict::kFailed, "Failed in the candidate", false);
  section(Verdict::kImprovement, "Improvements", false);
  section(Verdict::kInconclusive, "Inconclusive", false);
  section(Verdict::kNoChange, "No change", true);
  section(Verdict::kNotCompared, "Not compared", true);
  section(Verdict::kNotMeasured, "Measured on neither side", true);
  if (!r.only_in_baseline.empty() || !r.only_in_candidate.empty()) {
    out += "### Cells in one run only\n\n";
    for (const auto& name : r.only_in_baseline)
      out += "- only in the baseline: " + markdown_text(name) + "\n";
    for (const auto& name : r.only_in_candidate)
      out += "- only in the candidate: " + markdown_text(name) + "\n";
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json regression_json(const RegressionReport& r) {
  Json j;
  j["status"] = r.status();
  j["summary"] = headline(r);
  j["verdict"] = r.count(Verdict::kRegression) + r.count(Verdict::kFailed) > 0 ? "regression"
                                                                               : "no regression";
  j["fails"] = r.fails();
  j["exit_reason"] = r.exit_reason();
  j["baseline"] = r.baseline_label;
  j["candidate"] = r.candidate_label;
  j["options"] = {{"metric", r.options.metric},
                  {"threshold", r.options.threshold},
                  {"alpha", r.options.alpha},
                  {"fail_on", r.options.fail_on}};
  Json counts;
  // In the order of the first verdict files (they are read by CI jobs).
  for (Verdict v :
       {Verdict::kRegression, Verdict::kFailed, Verdict::kImprovement, Verdict::kNoChange,
        Verdict::kInconclusive, Verdict::kNotCompared, Verdict::kNotMeasured})
    counts[text_of(v)] = r.count(v);
  j["counts"] = counts;
  Json env = Json::array();
  for (const auto& d : r.environment) {
    env.push_back({{"what", d.what},
                   {"baseline", d.baseline},
                   {"candidate", d.candidate},
                   {"unfair", d.unfair}});
  }
  j["environment"] = {{"unfair", r.unfair()}, {"differences", env}};
  j["notes"] = r.notes;
  j["evidence"] = r.evidence;
  j["calibration"] = r.calibration;
  j["machine"] = r.machine;
  j["measured"] = r.measured();
  j["next_step"] = r.next_step();
  j["rounds_needed"] = r.rounds_needed;
  Json cells = Json::array();
  // What was not measured or not tested is null, never a 0 or a p of 1 a tool would read.
  const auto known = [](bool is, double value) { return is ? Json(value) : Json(nullptr); };
  const auto interval = [](bool is, const Interval& i) {
    return is ? Json::array({i.low, i.high}) : Json(nullptr);
  };
  for (const auto& v : r.cells) {
    const bool base = v.baseline_samples > 0, cand = v.candidate_samples > 0, t = v.tested;
    cells.push_back({{"name", v.name},
                     {"verdict", v.verdict},
                     {"reason", v.reason},
                     {"baseline_cell", v.baseline_cell},
                     {"candidate_cell", v.candidate_cell},
                     {"baseline_median", known(base, v.baseline_median)},
                     {"candidate_median", known(cand, v.candidate_median)},
                     {"baseline_samples", v.baseline_samples},
                     {"candidate_samples", v.candidate_samples},
                     {"baseline_runs", v.baseline_runs},
                     {"candidate_runs", v.candidate_runs},
                     {"change", known(t, v.change)},
                     {"change_ci", interval(t, v.change_ci)},
                     {"decided_change", known(t, v.decided_change)},
                     {"decided_ci", interval(t, v.decided_ci)},
                     {"p_value", known(t, v.p_value)},
                     {"test", text_of(v.test)},
                     {"run_level_p", known(t, v.run_level_p)},
                     {"net_change", known(t, v.net_change)},
                     {"machine_drift", v.machine ? Json(*v.machine) : Json(nullptr)},
                     {"machine_noise", v.machine ? Json(v.machine_noise) : Json(nullptr)},
                     {"net_of_machine", v.machine_used},
                     {"decided_by", text_of(v.decided_by)},
                     {"evidence", v.evidence},
                     {"config", v.config}});
  }
  j["cells"] = cells;
  j["only_in_baseline"] = r.only_in_baseline;
  j["only_in_candidate"] = r.only_in_candidate;
  return j;
}

}  // namespace crossover
