// The crossover on time, on energy and on cost: results with power and prices as the analysis
// sees them in each measure (`report --measure`), the tables and statements in joules and money,
// where the energy came from, the throttled flag, compare --metric energy, and the merge of a
// cell's processes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/records/prices.hpp"
#include "core/records/processes.hpp"
#include "core/records/result_files.hpp"
#include "core/stats/stats.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/gate/regression.hpp"
#include "reports/render/report_html.hpp"
#include "reports/render/report_markdown.hpp"
#include "tests/sample_results.hpp"

namespace crossover {
namespace {

// An Iris cell on `device` at `rows`, its epochs around `seconds`, drawing `watts`, priced.
Result priced(std::size_t index, const std::string& device, double rows, double seconds,
              double watts, double price) {
  std::mt19937_64 rng(index);
  Result r = testing::sample_result(index, "iris_mlp", testing::noisy(rng, 30, seconds, 0.01));
  r.cell.device = parse_device(device).value();
  r.cell.gpus = device == "cpu" ? 0 : 1;
  r.cell.dataset_size = static_cast<std::int64_t>(rows);
  r.train_rows = static_cast<std::int64_t>(rows);
  r.epoch_seconds = quantile(r.epoch_seconds_samples, 0.5);
  r.energy.energy_source = device == "cpu" ? EnergySource::kRapl : EnergySource::kNvml;
  r.energy.mean_watts = watts;
  r.energy.joules_per_epoch = watts * r.epoch_seconds;
  apply_price(r, {{device, price}});
  return r;
}

// Iris on the CPU and on CUDA at 1,000 to 1,000,000 rows: the CPU's epoch grows with the rows
// (2 ms per 1,000), the GPU's stays at 1 ms; 50 W and 0.10 an hour against 400 W and 4.00.
std::vector<Result> along_rows() {
  std::vector<Result> results;
  std::size_t index = 0;
  for (double rows : {1e3, 1e4, 1e5, 1e6}) {
    results.push_back(priced(index++, "cpu", rows, 2e-3 * rows / 1e3, 50.0, 0.10));
    results.push_back(priced(index++, "cuda", rows, 1e-3, 400.0, 4.00));
  }
  return results;
}

TEST(Measures, TheCrossoverIsStatedOnTimeOnEnergyAndOnCost) {
  // The GPU draws 8x the CPU's power and costs 40x as much per hour, so it wins later on
  // energy than on time, and later still on cost.
  const std::vector<Result> results = along_rows();
  const Analysis a = analyse(results, {parse_compare("device=cpu:cuda")});
  const ComparisonFindings& f = a.comparisons.front();
  ASSERT_EQ(f.crossovers.size(), 1u);
  ASSERT_EQ(f.by_measure.size(), 2u);
  EXPECT_EQ(f.by_measure[0].first, Measure::kEnergy);
  EXPECT_EQ(f.by_measure[1].first, Measure::kCost);
  const double time_from = *f.crossovers.front().from;
  const double energy_from = *f.by_measure[0].second.front().from;
  const double cost_from = *f.by_measure[1].second.front().from;
  EXPECT_DOUBLE_EQ(time_from, 1e3);    // 2x faster already at 1,000 rows
  EXPECT_DOUBLE_EQ(energy_from, 1e4);  // 2.5x less energy at 10,000 rows, 0.25x at 1,000
  EXPECT_DOUBLE_EQ(cost_from, 1e5);    // 5x cheaper at 100,000 rows, 0.5x at 10,000
  const auto lines = measure_statements(f);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("iris_mlp: on energy (joules per epoch), device=cuda wins from "
                           "dataset_size 10,000 on (ratio ",
                           0),
            0u)
      << lines[0];
  EXPECT_NE(lines[1].find("on cost"), std::string::npos);
  EXPECT_EQ(measures_json(f)["cost"][0]["from"], 1e5);
  // Cells without energy (a CPU without powercap) pair with nothing on energy: no statement.
  std::vector<Result> partly = results;
  for (Result& r : partly) {
    if (r.cell.device == Device::cpu()) r.energy.energy_source = EnergySource::kUnavailable;
  }
  const Analysis partial = analyse(partly, {parse_compare("device=cpu:cuda")});
  ASSERT_EQ(partial.comparisons.front().by_measure.size(), 1u);
  EXPECT_EQ(partial.comparisons.front().by_measure[0].first, Measure::kCost);
}

TEST(Measures, AReportInEnergyOrCostComparesJoulesOrMoneyThroughout) {
  const std::vector<Result> results = along_rows();
  const auto specs = std::vector<CompareSpec>{parse_compare("device=cpu:cuda")};
  const Analysis energy = analyse(results, specs, Measure::kEnergy);
  const ComparisonFindings& f = energy.comparisons.front();
  ASSERT_EQ(f.crossovers.size(), 1u);
  EXPECT_DOUBLE_EQ(*f.crossovers.front().from, 1e4);  // the energy crossover leads
  EXPECT_NE(f.crossovers.front().statement.find("(ratio "), std::string::npos);
  ASSERT_EQ(f.by_measure.size(), 2u);  // and time and cost are stated beside it
  EXPECT_EQ(f.by_measure[0].first, Measure::kTime);
  EXPECT_DOUBLE_EQ(*f.by_measure[0].second.front().from, 1e3);
  EXPECT_EQ(f.by_measure[1].first, Measure::kCost);
  EXPECT_DOUBLE_EQ(
      *analyse(results, specs, Measure::kCost).comparisons.front().crossovers.front().from, 1e5);
  // The device table in joules: 2 ms at 50 W is 100 mJ, 1 ms at 400 W is 400 mJ; no break even.
  const TextTable& table = energy.devices.front().table;
  EXPECT_NE(std::find(table.header.begin(), table.header.end(), "cpu energy"), table.header.end());
  EXPECT_NE(std::find(table.header.begin(), table.header.end(), "ratio\ncuda"), table.header.end());
  EXPECT_EQ(std::find(table.header.begin(), table.header.end(), "cuda\nwins after"),
            table.header.end());
  EXPECT_NEAR(std::stod(table.rows.front()[1]), 100.0, 3.0) << table.rows.front()[1];
  EXPECT_NEAR(std::stod(table.rows.front()[2]), 400.0, 12.0) << table.rows.front()[2];
  EXPECT_NE(table.rows.front()[1].find(" mJ ± "), std::string::npos) << table.rows.front()[1];
  EXPECT_EQ(table.rows.front().back(), "cpu");  // 4x less energy at 1,000 rows
  ReportContext context;
  context.measure = Measure::kEnergy;
  const std::string md = render_markdown(context, results, energy);
  EXPECT_NE(md.find("## Crossovers on energy (joules per epoch): device=cpu vs device=cuda"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("On time and on cost (device):"), std::string::npos);
  EXPECT_NE(md.find("most samples per joule measured"), std::string::npos);
  EXPECT_EQ(md.find("pays back its start-up"), std::string::npos);  // a matter of time
  const std::string html = render_html(context, results, energy);
  EXPECT_NE(html.find("median energy per epoch (log scale)"), std::string::npos);
  EXPECT_NE(html.find("energy ratio"), std::string::npos);  // the charts and the pairs' table
  EXPECT_EQ(html.find(">speedup<"), std::string::npos);
  EXPECT_EQ(format_measure(6.63e-5, Measure::kEnergy), "66.3 uJ");
  EXPECT_EQ(format_measure(2.5e4, Measure::kEnergy), "25 kJ");
  EXPECT_NE(render_comparison_text(results, energy.devices, Measure::kEnergy)
                .find("ratio: the CPU's / the device's"),
            std::string::npos);
  // The analysis's own copy is in joules (and samples per joule); the results stay in seconds.
  ASSERT_TRUE(energy.measured);
  const Result& cpu = energy.measured->front();
  EXPECT_NEAR(cpu.epoch_seconds, 50.0 * results.front().epoch_seconds, 1e-12);
  EXPECT_NEAR(cpu.epoch_seconds_ci_high, 50.0 * results.front().epoch_seconds_ci_high, 1e-12);
  EXPECT_NEAR(cpu.samples_per_second, results.front().samples_per_second / 50.0, 1e-9);
  EXPECT_EQ(&compared_results(analyse(results, specs), results), &results);
  // Cells without energy are skipped in the tables, and the legend says how many.
  std::vector<Result> partly = results;
  for (Result& r : partly) {
    if (r.cell.device == Device::cpu()) {
      r.energy.energy_source = EnergySource::kUnavailable;
      r.energy.energy_note = "no powercap at /x";
    }
  }
  const Analysis part = analyse(partly, specs, Measure::kEnergy);
  EXPECT_TRUE(part.comparisons.front().crossovers.empty());
  const std::string text = render_comparison_text(partly, part.devices, Measure::kEnergy);
  EXPECT_NE(text.find("4 ok cell(s) without energy"), std::string::npos) << text;
  EXPECT_NE(text.find("energy: 4 cells unavailable (no powercap at /x); 4 cells nvml"),
            std::string::npos)
      << text;
}

TEST(Measures, APowerOrPriceThatOverflowsIsLeftOutNotCompared) {
  std::vector<Result> results = along_rows();
  // Finite, as a results file may hold them; the products are not.
  results[0].energy.mean_watts = 1e308;
  results[0].epoch_seconds_samples.front() = 10.0;
  results[1].price_per_hour = 1e308;
  const std::vector<Result> energy = in_measure(results, Measure::kEnergy);
  EXPECT_EQ(energy[0].status, CellStatus::kSkipped);
  EXPECT_EQ(energy[0].reason, "energy out of range");
  EXPECT_EQ(energy[2].status, CellStatus::kOk);
  EXPECT_EQ(in_measure(results, Measure::kCost)[1].status, CellStatus::kOk);  // 1e308 / 3600 * 1 ms
  results[1].price_per_hour = 1.7e308;
  results[1].epoch_seconds_samples.front() = 1e5;
  EXPECT_EQ(in_measure(results, Measure::kCost)[1].status, CellStatus::kSkipped);
  const Analysis a = analyse(results, {parse_compare("device=cpu:cuda")}, Measure::kEnergy);
  for (const Pair& p : a.comparisons.front().pairs) EXPECT_TRUE(std::isfinite(p.speedup));
}

TEST(Measures, EnergySummarySaysWhereTheJoulesCameFromOrWhyNot) {
  std::vector<Result> results = along_rows();
  for (Result& r : results) {
    r.energy.energy_source = EnergySource::kUnavailable;
    r.energy.energy_note = "no powercap at /sys/class/powercap";
  }
  EXPECT_EQ(energy_summary(results),
            "energy: not measured (no powercap at /sys/class/powercap); docs/energy.md says "
            "where it can be");
  results.front().energy.energy_note = "no intel_rapl";  // names keep their underscores
  EXPECT_NE(energy_summary(results).find("(each cell's energy_note says why, e.g. no intel_rapl)"),
            std::string::npos);
  // Notes that differ from cell to cell (the H100's 33 CUDA cells each counted the counter's
  // steps) make one group per source, not one per note: the line does not grow with the cells.
  std::vector<Result> stepped = along_rows();
  for (std::size_t i = 0; i < stepped.size(); ++i) {
    stepped[i].energy.energy_source = EnergySource::kNvmlPower;
    stepped[i].energy.energy_note = "the energy counter moved " + std::to_string(i) + " time(s)";
  }
  const std::string line = energy_summary(stepped);
  EXPECT_EQ(line, "energy: " + std::to_string(stepped.size()) +
                      " cells nvml-power (each cell's energy_note says why, e.g. the energy "
                      "counter moved 0 time(s))");
  results.front().energy.energy_note = "no powercap at /sys/class/powercap";
  EXPECT_NE(render_markdown({}, results, analyse(results, {}))
                .find("> **Energy:** not measured (no powercap at /sys/class/powercap)"),
            std::string::npos);
  // A hand-edited note does not reach the prose as markup.
  results.front().energy.energy_note = "<script>x</script>|`";
  EXPECT_EQ(energy_summary(results).find_first_of("<>|`"), std::string::npos);
  const std::string html = render_html({}, results, analyse(results, {}));
  EXPECT_EQ(html.find("<script>x"), std::string::npos);
  EXPECT_NE(html.find("<p>energy: not measured"), std::string::npos);
  EXPECT_EQ(energy_summary({}), "");
}

TEST(Measures, AThrottledCellIsFlaggedInTheTablesAndTheReport) {
  std::vector<Result> results = along_rows();
  const Analysis clean = analyse(results, {parse_compare("device=cpu:cuda")});
  const std::string before = render_markdown({}, results, clean);
  EXPECT_EQ(before.find("throttled"), std::string::npos);
  EXPECT_NE(before.find("On energy and on cost (device):"), std::string::npos) << before;
  results[1].energy.throttled = true;
  results[1].energy.throttle_reasons = "hw_thermal_slowdown";
  const Analysis a = analyse(results, {parse_compare("device=cpu:cuda")});
  const std::string md = render_markdown({}, results, a);
  EXPECT_NE(md.find("**Throttled:** cells #1 (hw_thermal_slowdown)"), std::string::npos) << md;
  EXPECT_NE(md.find("ok (throttled)"), std::string::npos);  // the cells table
  EXPECT_NE(render_comparison_text(results, a.devices).find("(throttled)"), std::string::npos);
  // A hand-edited results file's reasons do not reach the report's prose as markup.
  results[1].energy.throttle_reasons = "<img src=x onerror=alert(1)>";
  const std::string hostile = render_markdown({}, results, analyse(results, {}));
  EXPECT_EQ(hostile.find("<img"), std::string::npos);
  EXPECT_NE(hostile.find("**Throttled:** cells #1"), std::string::npos);
}

TEST(Measures, CompareGatesOnEnergyWhereBothRunsMeasuredIt) {
  // The same times at 50 W and at 75 W: no change in time, +50 % in energy.
  const Result base = priced(0, "cpu", 1e3, 2e-3, 50.0, 0.4);
  Result cand = priced(1, "cpu", 1e3, 2e-3, 75.0, 0.4);
  cand.cell.index = 0;
  RegressionOptions time;
  RegressionOptions energy;
  energy.metric = GateMetric::kEnergy;
  EXPECT_NE(compare_runs({base}, {cand}, time).cells.front().verdict, Verdict::kRegression);
  const CellVerdict v = compare_runs({base}, {cand}, energy).cells.front();
  EXPECT_EQ(v.verdict, Verdict::kRegression) << v.reason;
  EXPECT_NEAR(v.change, 0.5, 0.05);
  EXPECT_EQ(value_in_unit(v.baseline_median, GateMetric::kEnergy).find(" J"),
            value_in_unit(v.baseline_median, GateMetric::kEnergy).size() - 2);
  cand.energy.energy_source = EnergySource::kUnavailable;
  cand.energy.energy_note = "no powercap at /sys/class/powercap";
  const CellVerdict none = compare_runs({base}, {cand}, energy).cells.front();
  EXPECT_EQ(none.verdict, Verdict::kNotCompared);
  EXPECT_EQ(none.reason, "candidate: no energy measured (no powercap at /sys/class/powercap)");
}

TEST(Measures, ProcessesMergeTheirPowerAndAnyThrottle) {
  Cell cell;
  cell.processes = 2;
  Result a = testing::sample_result(0, "iris_mlp", {1.0, 1.0});
  a.epoch_seconds = 1.0;
  a.train_seconds_samples = {2.0};
  a.energy.mean_watts = 40.0;
  Result b = a;
  b.energy.mean_watts = 60.0;
  b.energy.throttled = true;
  b.energy.throttle_reasons = "hw_thermal_slowdown";
  const Result r = merge_processes(cell, {a, b});
  EXPECT_DOUBLE_EQ(r.energy.mean_watts, 50.0);
  EXPECT_DOUBLE_EQ(r.energy.joules_per_epoch, 50.0);
  EXPECT_TRUE(r.energy.throttled);
  EXPECT_EQ(r.energy.throttle_reasons, "hw_thermal_slowdown");
  // The power of a process that timed three times as long counts three times; one that read
  // no energy does not pull the mean towards 0 W.
  Result c = a;
  c.epoch_seconds_samples = {3.0, 3.0};
  Result none = a;
  none.energy.mean_watts = 0.0;
  cell.processes = 3;
  const Result weighted = merge_processes(cell, {b, c, none});
  EXPECT_DOUBLE_EQ(weighted.energy.mean_watts, (60.0 * 2.0 + 40.0 * 6.0) / 8.0);
}

// A result field, checked by its declared unit (core/records/results.hpp): written and read back,
// in the CSV unless a list of samples, and in another measure converted as its unit says.
template <typename T>
void expect_by_unit(const char* name, Unit unit, T& (*field)(Result&), const Result& base) {
  SCOPED_TRACE(std::string(name) + " (" + text_of(unit) + ")");
  const std::string header = "," + csv_header();
  EXPECT_EQ(header.find("," + std::string(name) + ",") != std::string::npos ||
                header.find("," + std::string(name) + "\n") != std::string::npos,
            in_csv(unit));
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::vector<double>>) {
    if (std::string(name) == "mean_watts") return;  // what the energy measure multiplies by
    Result r = base;
    field(r) = T{3.0};
    Result read = result_from_json(result_to_json(r));
    EXPECT_EQ(field(read), field(r));
    const double expected = unit == Unit::kEpochSeconds || unit == Unit::kEpochSamples ? 30.0
                            : unit == Unit::kPerSecond                                 ? 0.3
                                                                                       : 3.0;
    EXPECT_EQ(field(in_measure({r}, Measure::kEnergy).front()), T{expected});
  }
}

// Adding a result field is its line in CROSSOVER_RESULT_FIELDS and the code that measures it: this
// test goes over every line, so a new field is checked here without being named.
TEST(Measures, EveryResultFieldIsWrittenReadColumnedAndConvertedAsItsUnitSays) {
  Result base = testing::sample_result(0, "iris_mlp", {1.0, 1.1, 1.2});
  base.energy.energy_source = EnergySource::kRapl;
  base.energy.mean_watts = 10.0;
  base.samples_per_second = 50.0;
  base.first_epoch_seconds = 2.0;
  ASSERT_EQ(in_measure({base}, Measure::kEnergy).front().status, CellStatus::kOk);
  std::size_t fields = 0;
#define CROSSOVER_EXPECT_BY_UNIT_AT(P, type, name, member, unit)               \
  expect_by_unit<type>(                                                        \
      #name, Unit::unit, [](Result& r) -> type& { return r.P member; }, base), \
      ++fields;
#define CROSSOVER_EXPECT_BY_UNIT(P, type, name, unit) \
  CROSSOVER_EXPECT_BY_UNIT_AT(P, type, name, name, unit)
  CROSSOVER_RESULT_FIELDS(CROSSOVER_EXPECT_BY_UNIT)
#undef CROSSOVER_EXPECT_BY_UNIT
#undef CROSSOVER_EXPECT_BY_UNIT_AT
  EXPECT_EQ(fields, result_field_units().size());
  // The converted epoch figures include those the analysis reads besides the median.
  const Result energy = in_measure({base}, Measure::kEnergy).front();
  EXPECT_DOUBLE_EQ(energy.epoch_seconds_max, 10.0 * base.epoch_seconds_max);
  EXPECT_DOUBLE_EQ(energy.samples_per_second, base.samples_per_second / 10.0);
  EXPECT_DOUBLE_EQ(energy.first_epoch_seconds, base.first_epoch_seconds);  // seconds stay seconds
}

}  // namespace
}  // namespace crossover
