#include "reports/gate/gate_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/cells/cell.hpp"
#include "core/stats/stats.hpp"
#include "core/text/text.hpp"
#include "reports/render/table_writer.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// A pair's kind: two runs of the same build, or one with a slowdown planted.
enum class PairKind { kAa, kPlanted };

constexpr auto words(PairKind) {
  return std::array{std::pair{PairKind::kAa, std::string_view("A/A")},
                    std::pair{PairKind::kPlanted, std::string_view("planted")}};
}

std::string rate_text(const GateRate& r) {
  return fmt::format("{} ({} of {})", format_percent(r.rate(), false), r.fired, r.pairs);
}

// The slowdown a one-sided test at alpha / 2 catches with 90 % power when one run's log ratio
// has spread sigma, estimated with df degrees of freedom; never below the threshold.
double detectable(const CellSpread& s, const RegressionOptions& o) {
  if (s.degrees_of_freedom < 1.0) return 0.0;
  const boost::math::students_t t(s.degrees_of_freedom);
  const double reach = boost::math::quantile(boost::math::complement(t, o.alpha / 2.0)) +
                       boost::math::quantile(t, 0.90);
  return std::max(o.threshold, std::expm1(reach * s.sigma));
}

// The same for the uncalibrated gate: its two-sided test at alpha against the assumed spread of a
// pair of runs, while the runs really vary by the spread measured without the reference.
double uncalibrated_detectable(const CellSpread& s, const RegressionOptions& o) {
  if (o.assumed_spread <= 0.0) return 0.0;
  const boost::math::normal z;
  const double reach = boost::math::quantile(boost::math::complement(z, o.alpha / 2.0)) *
                           o.assumed_spread * std::sqrt(2.0) +
                       boost::math::quantile(z, 0.90) * s.sigma_raw;
  return std::max(o.threshold, std::expm1(reach));
}

// The uncalibrated gate on cells measured in k processes per side: Welch's t at alpha on the
// processes' medians, whose spread it estimates from the processes (process_spread), while the
// runs' medians really differ by the spread measured without the reference.
double processes_detectable(const CellGate& c, const CellSpread& s, const RegressionOptions& o) {
  const double k = static_cast<double>(c.processes);
  const boost::math::students_t t(2.0 * (k - 1.0));
  const boost::math::normal z;
  const double reach = boost::math::quantile(boost::math::complement(t, o.alpha / 2.0)) *
                           c.process_spread * std::sqrt(2.0 / k) +
                       boost::math::quantile(z, 0.90) * s.sigma_raw;
  return std::max(o.threshold, std::expm1(reach));
}

// Each cell's processes in the A/A runs (by its match key): the fewest per run and the pooled
// spread of their logarithms within a run.
std::map<std::string, std::pair<std::size_t, double>> process_spreads(const RunPairs& aa,
                                                                      GateMetric metric) {
  std::map<std::string, std::pair<std::size_t, double>> fewest_and_sum;
  std::map<std::string, double> df;
  for (const auto& pair : aa) {
    for (const RunRecord* run : {&pair.first, &pair.second}) {
      for (const Result& r : run->results) {
        const auto medians = process_medians(r, metric);
        if (r.status != CellStatus::kOk || medians.size() < 2) continue;
        nlohmann::ordered_json key = cell_identity_json(r.cell);
        key.erase("host");
        double mean = 0.0;
        for (double m : medians) mean += std::log(m) / static_cast<double>(medians.size());
        auto& [fewest, sum] = fewest_and_sum[key.dump()];
        fewest = fewest == 0 ? medians.size() : std::min(fewest, medians.size());
        for (double m : medians) sum += (std::log(m) - mean) * (std::log(m) - mean);
        df[key.dump()] += static_cast<double>(medians.size() - 1);
      }
    }
  }
  for (auto& [key, value] : fewest_and_sum) value.second = std::sqrt(value.second / df[key]);
  return fewest_and_sum;
}

// How the gate without a calibration decided: "Welch's t on 5 processes per side" when the
// cells were measured in several processes, "an assumed 4 % per run" otherwise.
std::string uncalibrated_words(const GateCalibration& g) {
  std::size_t fewest = 0;
  for (const auto& c : g.cells) {
    if (c.processes >= 2) fewest = fewest == 0 ? c.processes : std::min(fewest, c.processes);
  }
  if (fewest >= 2) return fmt::format("Welch's t on {} processes per side", fewest);
  return "an assumed " + format_percent(g.options.assumed_spread, false) + " per run";
}

// The regressions of one comparison, by cell name.
Json verdicts(const RegressionReport& r) {
  Json out = Json::object();
  for (const auto& v : r.cells) out[v.name] = v.verdict;
  return out;
}

// The rounds of compare --rerun this runner needs, in one sentence.
std::string rerun_rounds_text(const GateCalibration& g) {
  return fmt::format(
      "compare --rerun: {} rounds catch a slowdown of +{} in every cell 9 times in 10 (a paired t "
      "on the rounds, alpha {}): `crossover compare OLD_BIN NEW_BIN --rerun {} --rounds {}`",
      g.rounds, format_percent(2.0 * g.options.threshold, false), format_number(g.options.alpha),
      g.grid_file.empty() ? g.grid : g.grid_file, g.rounds);
}

Json rate_json(const GateRate& r) {
  return {{"rate", r.rate()}, {"fired", r.fired}, {"pairs", r.pairs}};
}

}  // namespace

GateCalibration assess_gate(const RunPairs& aa, const RunPairs& planted,
                            const RegressionOptions& options) {
  check_options(options);
  if (aa.size() < 3)
    throw std::invalid_argument("calibrate needs at least three A/A pairs, got " +
                                std::to_string(aa.size()));
  GateCalibration g;
  g.options = options;
  g.calibration = calibrate_pairs(aa);
  std::map<std::string, std::size_t> where;
  const auto processes = process_spreads(aa, options.metric);
  for (const auto& cell : g.calibration.cells) {
    CellGate c;
    c.name = cell.name;
    c.spread = cell.spread(options.metric);
    c.run_to_run = c.spread.sigma / std::sqrt(2.0);
    c.run_to_run_raw = c.spread.sigma_raw / std::sqrt(2.0);
    c.smallest_detectable = detectable(c.spread, options);
    g.smallest_detectable = std::max(g.smallest_detectable, c.smallest_detectable);
    nlohmann::ordered_json key = cell.config;
    key.erase("host");  // as compare matches cells: the machine's label is no part of them
    const auto measured = processes.find(key.dump());
    if (measured != processes.end()) std::tie(c.processes, c.process_spread) = measured->second;
    c.uncalibrated_detectable = c.processes >= 2 ? processes_detectable(c, c.spread, options)
                                                 : uncalibrated_detectable(c.spread, options);
    g.uncalibrated_detectable = std::max(g.uncalibrated_detectable, c.uncalibrated_detectable);
    // Each round's log ratio pairs two back-to-back runs, as an A/A pair does: its spread is
    // the pair's, without the reference.
    c.rounds = rounds_needed(c.spread.sigma_raw, options);
    g.rounds = std::max(g.rounds, c.rounds);
    where[key.dump()] = g.cells.size();
    g.cells.push_back(c);
  }
  std::vector<std::vector<double>> planted_changes(g.cells.size());
  const auto judge = [&](PairKind kind, std::size_t i, const RunRecord& a, const RunRecord& b,
                         const Calibration& calibration, GateRate& calibrated,
                         GateRate& uncalibrated) {
    const RegressionReport with = compare_records(a, b, options, &calibration);
    const RegressionReport without = compare_records(a, b, options, nullptr);
    ++calibrated.pairs;
    ++uncalibrated.pairs;
    calibrated.fired += with.fails() ? 1 : 0;
    uncalibrated.fired += without.fails() ? 1 : 0;
    for (const auto& v : with.cells) {
      const auto it = where.find(v.config.dump());
      if (it == where.end()) continue;
      CellGate& c = g.cells[it->second];
      const bool regression = v.verdict == Verdict::kRegression;
      if (kind == PairKind::kAa) c.false_alarms += regression ? 1 : 0;
      if (kind == PairKind::kPlanted) {
        c.detections += regression ? 1 : 0;
        if (v.tested) planted_changes[it->second].push_back(v.change);
      }
    }
    g.pairs.push_back({{"kind", text_of(kind)},
                       {"index", i + 1},
                       {"baseline", a.label},
                       {"candidate", b.label},
                       {"gate_fired", with.fails()},
                       {"uncalibrated_gate_fired", without.fails()},
                       {"machine", with.machine},
                       {"verdicts", verdicts(with)},
                       {"uncalibrated_verdicts", verdicts(without)}});
  };
  for (std::size_t i = 0; i < aa.size(); ++i) {
    Calibration others = calibrate_pairs(aa, i);
    others.source = "the other A/A pairs";
    judge(PairKind::kAa, i, aa[i].first, aa[i].second, others, g.false_alarms,
          g.uncalibrated_false_alarms);
  }
  g.calibration.source = "the A/A pairs";
  for (std::size_t i = 0; i < planted.size(); ++i) {
    judge(PairKind::kPlanted, i, planted[i].first, planted[i].second, g.calibration, g.detections,
          g.uncalibrated_detections);
  }
  for (std::size_t k = 0; k < g.cells.size(); ++k) {
    if (!planted_changes[k].empty()) g.cells[k].planted_change = quantile(planted_changes[k], 0.5);
  }
  return g;
}

std::string machine_record_of(const RunPairs& pairs) {
  for (const auto& [first, second] : pairs) {
    for (const RunRecord* run : {&first, &second}) {
      if (run->environment && !run->environment->machine_record.empty())
        return run->environment->machine_record;
    }
  }
  return "";
}

std::string machine_record_line(const std::string& record) {
  if (record.empty()) return "";
  return "Made with a machine record (" + record +
         ", CROSSOVER_MACHINE_RECORD): the runs did not measure this machine's reference "
         "timings, so its drift during them is not held out of these rates.\n";
}

nlohmann::ordered_json gate_calibration_json(const GateCalibration& g) {
  Json j;
  j["grid"] = g.grid;
  j["machine_record"] = g.machine_record.empty() ? Json() : Json(g.machine_record);
  j["metric"] = g.options.metric;
  j["threshold"] = g.options.threshold;
  j["alpha"] = g.options.alpha;
  j["pairs"] = g.false_alarms.pairs;
  j["planted_pairs"] = g.detections.pairs;
  j["planted_load_processes"] = g.load;
  j["false_alarm_rate"] = g.false_alarms.rate();
  j["detection_rate"] = g.detections.rate();
  j["smallest_detectable_slowdown"] = g.smallest_detectable;
  j["rerun_rounds"] = g.rounds;
  j["uncalibrated"] = {{"assumed_spread", g.options.assumed_spread},
                       {"decided_by", uncalibrated_words(g)},
                       {"false_alarm_rate", g.uncalibrated_false_alarms.rate()},
                       {"detection_rate", g.uncalibrated_detections.rate()},
                       {"smallest_detectable_slowdown", g.uncalibrated_detectable}};
  j["gate"] = {{"false_alarms", rate_json(g.false_alarms)},
               {"detections", rate_json(g.detections)},
               {"uncalibrated_false_alarms", rate_json(g.uncalibrated_false_alarms)},
               {"uncalibrated_detections", rate_json(g.uncalibrated_detections)}};
  Json calibration = calibration_json(g.calibration);
  j["runner"] = calibration["runner"];
  for (std::size_t k = 0; k < g.cells.size() && k < calibration["cells"].size(); ++k) {
    const CellGate& c = g.cells[k];
    Json& cell = calibration["cells"][k];
    cell["run_to_run_variation"] = c.run_to_run;
    cell["run_to_run_variation_raw"] = c.run_to_run_raw;
    cell["smallest_detectable_slowdown"] = c.smallest_detectable;
    cell["uncalibrated_smallest_detectable_slowdown"] = c.uncalibrated_detectable;
    cell["rerun_rounds"] = c.rounds;
    cell["processes"] = c.processes;
    cell["process_spread"] = c.process_spread;
    cell["planted_change"] = c.planted_change;
    cell["false_alarms"] = c.false_alarms;
    cell["detections"] = c.detections;
  }
  j["cells"] = calibration["cells"];
  j["pair_verdicts"] = g.pairs;
  return j;
}

std::string render_gate_calibration_text(const GateCalibration& g) {
  TextTable table;
  table.header = {"cell",           "run-to-run",   "without reference", "machine share",
                  "planted change", "catches from", "false alarms",      "detections"};
  table.right_aligned = {false, true, true, true, true, true, true, true};
  for (const auto& c : g.cells) {
    table.rows.push_back({c.name, "±" + format_percent(c.run_to_run, false),
                          "±" + format_percent(c.run_to_run_raw, false),
                          format_number(c.spread.beta),
                          "+" + format_percent(c.planted_change, false),
                          "+" + format_percent(c.smallest_detectable, false),
                          fmt::format("{}/{}", c.false_alarms, g.false_alarms.pairs),
                          fmt::format("{}/{}", c.detections, g.detections.pairs)});
  }
  std::string out = fmt::format(
      "crossover calibrate: {}, {} A/A pairs and {} pairs with {} busy process(es) planted during "
      "the cells\n\n",
      g.grid, g.false_alarms.pairs, g.detections.pairs, g.load);
  out += render_text_table(table) + "\n";
  out += "The gate (compare --calibration, one run per side, threshold " +
         format_percent(g.options.threshold, false) + ", alpha " + format_number(g.options.alpha) +
         "):\n";
  out += "  false alarms " + rate_text(g.false_alarms) + ", detections " + rate_text(g.detections) +
         "; it catches slowdowns from +" + format_percent(g.smallest_detectable, false) +
         " in every cell, 9 times in 10\n";
  out += "Without the calibration (" + uncalibrated_words(g) + "): false alarms " +
         rate_text(g.uncalibrated_false_alarms) + ", detections " +
         rate_text(g.uncalibrated_detections) + "; it catches slowdowns from +" +
         format_percent(g.uncalibrated_detectable, false) + " in every cell, 9 times in 10\n";
  out += rerun_rounds_text(g) + "\n";
  out += machine_record_line(g.machine_record);
  return out;
}

std::string render_gate_calibration_markdown(const GateCalibration& g) {
  TextTable table;
  table.header = {"cell",           "run-to-run variation", "without the reference",
                  "planted change", "catches from",         "false alarms",
                  "detections"};
  for (const auto& c : g.cells) {
    table.rows.push_back({c.name, "±" + format_percent(c.run_to_run, false),
                          "±" + format_percent(c.run_to_run_raw, false),
                          "+" + format_percent(c.planted_change, false),
                          "+" + format_percent(c.smallest_detectable, false),
                          fmt::format("{} of {}", c.false_alarms, g.false_alarms.pairs),
                          fmt::format("{} of {}", c.detections, g.detections.pairs)});
  }
  TextTable gate;
  gate.header = {"gate", "false alarms (A/A pairs)", "detections (planted slowdown)"};
  gate.rows.push_back(
      {"compare --calibration calibrate.json", rate_text(g.false_alarms), rate_text(g.detections)});
  gate.rows.push_back({"compare without a calibration", rate_text(g.uncalibrated_false_alarms),
                       rate_text(g.uncalibrated_detections)});
  return fmt::format(
             "## crossover calibrate: {}\n\n{} A/A pairs (two runs of the same binary) and {} "
             "pairs in which one run (the second in odd pairs, the first in even ones) had {} "
             "busy process(es) competing with its cells. One run per side, metric {}, threshold "
             "{}, alpha {}. Each A/A pair is judged with a calibration from the other pairs.\n\n",
             markdown_text(g.grid), g.false_alarms.pairs, g.detections.pairs, g.load,
             text_of(g.options.metric), format_percent(g.options.threshold, false),
             format_number(g.options.alpha)) +
         render_markdown_table(gate) + "\nThe gate catches slowdowns from +" +
         format_percent(g.smallest_detectable, false) +
         " in every cell, 9 times in 10; without the calibration (" + uncalibrated_words(g) +
         "), from +" + format_percent(g.uncalibrated_detectable, false) + ".\n\n" +
         markdown_with_code(rerun_rounds_text(g)) + "\n\n" + render_markdown_table(table) +
         (g.machine_record.empty() ? ""
                                   : "\n" + markdown_text(machine_record_line(g.machine_record)));
}

CountedGateCalibration assess_counted_gate(const RunPairs& aa, const RunPairs& planted,
                                           const RegressionOptions& options, double plant) {
  check_options(options);
  if (!is_count_metric(options.metric))
    throw std::invalid_argument(
        "the counted gate's calibration needs --metric instructions or "
        "cycles, got " +
        text_of(options.metric));
  if (aa.size() < 3)
    throw std::invalid_argument("calibrate needs at least three A/A pairs, got " +
                                std::to_string(aa.size()));
  CountedGateCalibration g;
  g.options = options;
  g.plant = plant;
  std::map<std::string, std::size_t> where;
  const auto cell_of = [&](const CellVerdict& v) -> CountedCellGate& {
    const auto [it, added] = where.emplace(v.config.dump(), g.cells.size());
    if (added) g.cells.push_back({v.name});
    return g.cells[it->second];
  };
  std::vector<std::vector<double>> planted_changes;
  for (const auto& [a, b] : aa) {
    const RegressionReport r = compare_records(a, b, options);
    bool alarm = false;
    for (const CellVerdict& v : r.cells) {
      if (!v.tested) continue;
      CountedCellGate& c = cell_of(v);
      c.aa_spread =
          std::max({c.aa_spread, std::abs(v.decided_ci.low), std::abs(v.decided_ci.high)});
      g.aa_spread = std::max(g.aa_spread, c.aa_spread);
      const bool moved = v.verdict != Verdict::kNoChange;
      c.false_alarms += moved ? 1 : 0;
      alarm = alarm || moved;
    }
    ++g.false_alarms.pairs;
    g.false_alarms.fired += alarm ? 1 : 0;
  }
  for (const auto& [a, b] : planted) {
    const RegressionReport r = compare_records(a, b, options);
    bool all = r.measured() > 0;
    for (const CellVerdict& v : r.cells) {
      if (!v.tested) continue;
      CountedCellGate& c = cell_of(v);
      const std::size_t k = where[v.config.dump()];
      if (planted_changes.size() <= k) planted_changes.resize(k + 1);
      planted_changes[k].push_back(v.change);
      c.detections += v.verdict == Verdict::kRegression ? 1 : 0;
      all = all && v.verdict == Verdict::kRegression;
    }
    ++g.detections.pairs;
    g.detections.fired += all ? 1 : 0;
  }
  for (std::size_t k = 0; k < planted_changes.size() && k < g.cells.size(); ++k)
    if (!planted_changes[k].empty()) g.cells[k].planted_change = quantile(planted_changes[k], 0.5);
  g.smallest_detectable = options.threshold + g.aa_spread;
  return g;
}

nlohmann::ordered_json counted_gate_json(const CountedGateCalibration& g) {
  Json j;
  j["grid"] = g.grid;
  j["metric"] = g.options.metric;
  j["threshold"] = g.options.threshold;
  j["planted_work"] = g.plant;
  j["pairs"] = g.false_alarms.pairs;
  j["planted_pairs"] = g.detections.pairs;
  j["false_alarm_rate"] = g.false_alarms.rate();
  j["detection_rate"] = g.detections.rate();
  j["aa_spread"] = g.aa_spread;
  j["smallest_detectable_change"] = g.smallest_detectable;
  Json cells = Json::array();
  for (const CountedCellGate& c : g.cells)
    cells.push_back({{"name", c.name},
                     {"aa_spread", c.aa_spread},
                     {"planted_change", c.planted_change},
                     {"false_alarms", c.false_alarms},
                     {"detections", c.detections}});
  j["cells"] = cells;
  return j;
}

namespace {

TextTable counted_table(const CountedGateCalibration& g) {
  TextTable table;
  table.header = {"cell", "A/A moves", "planted change", "false alarms", "detections"};
  table.right_aligned = {false, true, true, true, true};
  for (const CountedCellGate& c : g.cells)
    table.rows.push_back({c.name, "±" + format_percent(c.aa_spread, false),
                          format_percent(c.planted_change),
                          fmt::format("{}/{}", c.false_alarms, g.false_alarms.pairs),
                          fmt::format("{}/{}", c.detections, g.detections.pairs)});
  return table;
}

std::string counted_summary(const CountedGateCalibration& g) {
  return "The counted gate (compare --metric " + text_of(g.options.metric) +
         ", one run per side, threshold " + format_percent(g.options.threshold, false) +
         "): A/A pairs with a cell not \"no change\" " + rate_text(g.false_alarms) +
         "; planted pairs with every cell a regression " + rate_text(g.detections) +
         ". A/A counts moved by at most ±" + format_percent(g.aa_spread, false) +
         " epoch by epoch, so it catches every change from +" +
         format_percent(g.smallest_detectable, false) + " in every cell";
}

}  // namespace

std::string render_counted_gate_text(const CountedGateCalibration& g) {
  return fmt::format(
             "crossover calibrate: {}, {} counted A/A pairs and {} with {} of planted work "
             "(CROSSOVER_PLANT_WORK)\n\n",
             g.grid, g.false_alarms.pairs, g.detections.pairs, format_percent(g.plant, false)) +
         render_text_table(counted_table(g)) + "\n" + counted_summary(g) + "\n";
}

std::string render_counted_gate_markdown(const CountedGateCalibration& g) {
  return "## crossover calibrate: " + markdown_text(g.grid) + ", counted\n\n" +
         markdown_text(counted_summary(g)) + ".\n\n" + render_markdown_table(counted_table(g));
}

}  // namespace crossover
