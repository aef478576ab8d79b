// Joules, dollars and clocks: the RAPL meter on a fake powercap tree (a wrap included), the NVML
// meters on a stand-in NVML library (energy counter, sampled power, clocks, throttle reasons),
// prices and costs, the crossovers on energy and cost, and a run that records them end to end.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "core/prices.hpp"
#include "core/processes.hpp"
#include "reports/analysis.hpp"
#include "reports/measures.hpp"
#include "reports/regression.hpp"
#include "reports/report_markdown.hpp"
#include "runner/energy.hpp"
#include "tests/cli_support.hpp"
#include "tests/sample_results.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for one scope, and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// A powercap tree: package domains intel-rapl:0 and intel-rapl:1 (the latter a "psys" domain,
// which is not a package), and the core sub-domain intel-rapl:0:0, as Linux lists them.
struct FakePowercap {
  explicit FakePowercap(const testing::ScratchDir& dir) : root(dir.file("powercap")) {
    domain("intel-rapl:0", "package-0");
    domain("intel-rapl:1", "psys");
    domain("intel-rapl:0:0", "core");
  }
  void domain(const std::string& name, const std::string& kind) {
    fs::create_directories(root + "/" + name);
    write(name + "/name", kind);
    write(name + "/max_energy_range_uj", "1000000");
    write(name + "/energy_uj", "0");
  }
  void write(const std::string& file, const std::string& text) const {
    const std::string path = root + "/" + file;
    std::ofstream(path + ".tmp") << text << "\n";
    fs::rename(path + ".tmp", path);  // whole, as sysfs gives it
  }
  void set(const std::string& domain, double microjoules) const {
    write(domain + "/energy_uj", std::to_string(static_cast<long long>(microjoules)));
  }
  std::string root;
};

TEST(Energy, RaplAddsThePackageDomainsAcrossAWrap) {
  testing::ScratchDir dir;
  FakePowercap powercap(dir);
  ScopedEnv root("CROSSOVER_POWERCAP_ROOT", powercap.root);
  powercap.set("intel-rapl:0", 990000);
  powercap.set("intel-rapl:1", 5000);
  powercap.set("intel-rapl:0:0", 0);
  const auto meter = energy_meter("cpu", 0, 1);
  meter->start();
  powercap.set("intel-rapl:0", 5000);      // wrapped at 1,000,000: 15,000 uJ
  powercap.set("intel-rapl:1", 900000);    // psys: not a package, not counted
  powercap.set("intel-rapl:0:0", 500000);  // the core sub-domain: inside the package already
  meter->stop();
  EnergyTotals t = meter->totals();
  EXPECT_EQ(t.source, "rapl");
  EXPECT_NE(t.note.find("other processes"), std::string::npos) << t.note;
  EXPECT_NEAR(t.joules, 0.015, 1e-9);
  EXPECT_GT(t.seconds, 0.0);
  // The next span starts where the counter is now; what happened between spans is not counted.
  powercap.set("intel-rapl:0", 6000);
  meter->start();
  powercap.set("intel-rapl:0", 8000);
  meter->stop();
  EXPECT_NEAR(meter->totals().joules, 0.017, 1e-9);
  EXPECT_FALSE(throttled(meter->totals()));
}

TEST(Energy, WithoutPowercapTheMeterSaysWhy) {
  testing::ScratchDir dir;
  {
    ScopedEnv root("CROSSOVER_POWERCAP_ROOT", dir.file("none"));
    const EnergyTotals t = energy_meter("cpu", 0, 1)->totals();
    EXPECT_EQ(t.source, "unavailable");
    EXPECT_NE(t.note.find("no powercap at " + dir.file("none")), std::string::npos) << t.note;
    EXPECT_EQ(energy_availability("cpu").rfind("unavailable: no powercap", 0), 0u);
  }
  FakePowercap powercap(dir);
  // A counter that is not a regular file (here a FIFO, which would block a reader) is not read.
  fs::remove(powercap.root + "/intel-rapl:0/energy_uj");
  ASSERT_EQ(mkfifo((powercap.root + "/intel-rapl:0/energy_uj").c_str(), 0600), 0);
  ScopedEnv root("CROSSOVER_POWERCAP_ROOT", powercap.root);
  const EnergyTotals fifo = energy_meter("cpu", 0, 1)->totals();
  EXPECT_EQ(fifo.source, "unavailable");
  EXPECT_NE(fifo.note.find("energy_uj"), std::string::npos) << fifo.note;
  remove_tree(powercap.root + "/intel-rapl:0");
  const EnergyTotals t = energy_meter("cpu", 0, 1)->totals();
  EXPECT_EQ(t.source, "unavailable");
  EXPECT_NE(t.note.find("no RAPL package domain"), std::string::npos) << t.note;
}

// The stand-in NVML's GPUs draw FAKE_NVML_WATTS; a span of about 0.1 s.
EnergyTotals nvml_span(int first_gpu = 0, int gpus = 1) {
  ScopedEnv library("CROSSOVER_NVML_LIBRARY", CROSSOVER_FAKE_NVML);
  const auto meter = energy_meter("cuda", first_gpu, gpus);
  meter->start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  meter->stop();
  return meter->totals();
}

TEST(Energy, NvmlReadsTheEnergyCounterOrIntegratesThePower) {
  ScopedEnv watts("FAKE_NVML_WATTS", "250");
  const EnergyTotals counter = nvml_span();
  EXPECT_EQ(counter.source, "nvml");
  EXPECT_NEAR(counter.joules / counter.seconds, 250.0, 25.0);
  EXPECT_EQ(counter.sm_clock_max_mhz, 1980u);
  EXPECT_EQ(counter.sm_clock_min_mhz, 1980u);
  EXPECT_FALSE(throttled(counter));
  {
    ScopedEnv no_counter("FAKE_NVML_NO_ENERGY", "1");
    const EnergyTotals sampled = nvml_span();
    EXPECT_EQ(sampled.source, "nvml-power");
    EXPECT_NEAR(sampled.joules / sampled.seconds, 250.0, 25.0);
  }
  // Two GPUs of a cell draw twice the power.
  ScopedEnv gpus("FAKE_NVML_GPUS", "2");
  const EnergyTotals both = nvml_span(0, 2);
  EXPECT_NEAR(both.joules / both.seconds, 500.0, 50.0);
  const EnergyTotals missing = nvml_span(2, 1);
  EXPECT_EQ(missing.source, "unavailable");
  EXPECT_EQ(missing.note, "NVML has no GPU 2");
}

TEST(Energy, ASlowClockOrAThermalOrPowerThrottleFlagsTheCell) {
  {
    ScopedEnv clock("FAKE_NVML_SM_CLOCK", "1400");  // 71 % of 1,980 MHz
    const EnergyTotals slow = nvml_span();
    EXPECT_EQ(slow.sm_clock_min_mhz, 1400u);
    EXPECT_TRUE(throttled(slow));
  }
  {
    ScopedEnv clock("FAKE_NVML_SM_CLOCK", "1500");  // 76 %: not yet
    EXPECT_FALSE(throttled(nvml_span()));
  }
  {
    ScopedEnv reasons("FAKE_NVML_THROTTLE", std::to_string(0x40 | 0x4));
    const EnergyTotals hot = nvml_span();
    EXPECT_TRUE(throttled(hot));
    EXPECT_EQ(throttle_reason_names(hot.throttle_reasons), "sw_power_cap,hw_thermal_slowdown");
  }
  ScopedEnv idle("FAKE_NVML_THROTTLE", "1");  // GPU idle: not a slowdown of the measurement
  EXPECT_FALSE(throttled(nvml_span()));
  ScopedEnv nothing("CROSSOVER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  const EnergyTotals none = energy_meter("cuda", 0, 1)->totals();
  EXPECT_EQ(none.source, "unavailable");
  EXPECT_NE(none.note.find("not found"), std::string::npos) << none.note;
}

TEST(Prices, PricesAreReadStrictlyAndEachCellPaysForItsDevice) {
  Prices prices;
  add_price(prices, "cuda=2.50");
  add_price(prices, "cpu=0.40");
  add_price(prices, "cuda@big-node=4");
  EXPECT_DOUBLE_EQ(prices.at("cuda"), 2.5);
  for (const char* bad :
       {"cuda", "tpu=1", "cuda=", "cuda=cheap", "cuda=-1", "cuda=2.5x", "cuda@=1"})
    EXPECT_THROW(add_price(prices, bad), std::invalid_argument) << bad;
  EXPECT_THROW(prices_from_json(nlohmann::json::parse(R"({"cuda": "2.50"})")),
               std::invalid_argument);
  EXPECT_THROW(prices_from_json(nlohmann::json::parse(R"([2.5])")), std::invalid_argument);
  try {
    prices_from_json(nlohmann::json::parse(R"({"gpu": 2.5})"));
    FAIL() << "an unknown device kind was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"cpu\" or \"cuda\""), std::string::npos) << e.what();
  }
  Result r = testing::sample_result(0, "iris_mlp", {0.36, 0.36});
  r.cell.device = "cuda:1";
  r.cell.gpus = 2;
  r.cell.host = "small-node";
  r.epoch_seconds = 0.36;
  apply_price(r, prices);
  EXPECT_DOUBLE_EQ(r.price_per_hour, 5.0);  // two GPUs at 2.50
  EXPECT_DOUBLE_EQ(r.cost_per_epoch, 5.0 / 3600.0 * 0.36);
  EXPECT_DOUBLE_EQ(r.cost_per_million_samples, r.cost_per_epoch / 1000.0 * 1e6);
  r.cell.host = "big-node";  // that machine's own price first
  apply_price(r, prices);
  EXPECT_DOUBLE_EQ(r.price_per_hour, 8.0);
  r.cell.device = "cpu";
  apply_price(r, prices);
  EXPECT_DOUBLE_EQ(r.price_per_hour, 0.40);
  apply_price(r, {});
  EXPECT_DOUBLE_EQ(r.cost_per_epoch, 0.0);
}

// An Iris cell on `device` at `rows`, its epochs around `seconds`, drawing `watts`, priced.
Result priced(std::size_t index, const std::string& device, double rows, double seconds,
              double watts, double price) {
  std::mt19937_64 rng(index);
  Result r = testing::sample_result(index, "iris_mlp", testing::noisy(rng, 30, seconds, 0.01));
  r.cell.device = device;
  r.cell.gpus = device == "cpu" ? 0 : 1;
  r.cell.dataset_size = static_cast<std::int64_t>(rows);
  r.train_rows = static_cast<std::int64_t>(rows);
  r.epoch_seconds = quantile(r.epoch_seconds_samples, 0.5);
  r.energy_source = device == "cpu" ? "rapl" : "nvml";
  r.mean_watts = watts;
  r.joules_per_epoch = watts * r.epoch_seconds;
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
  EXPECT_EQ(f.by_measure[0].first, "energy");
  EXPECT_EQ(f.by_measure[1].first, "cost");
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
    if (r.cell.device == "cpu") r.energy_source = "unavailable";
  }
  const Analysis partial = analyse(partly, {parse_compare("device=cpu:cuda")});
  ASSERT_EQ(partial.comparisons.front().by_measure.size(), 1u);
  EXPECT_EQ(partial.comparisons.front().by_measure[0].first, "cost");
}

TEST(Measures, AThrottledCellIsFlaggedInTheTablesAndTheReport) {
  std::vector<Result> results = along_rows();
  const Analysis clean = analyse(results, {parse_compare("device=cpu:cuda")});
  const std::string before = render_markdown({}, results, clean);
  EXPECT_EQ(before.find("throttled"), std::string::npos);
  EXPECT_NE(before.find("On energy and on cost (device):"), std::string::npos) << before;
  results[1].throttled = true;
  results[1].throttle_reasons = "hw_thermal_slowdown";
  const Analysis a = analyse(results, {parse_compare("device=cpu:cuda")});
  const std::string md = render_markdown({}, results, a);
  EXPECT_NE(md.find("**Throttled:** cells #1 (hw_thermal_slowdown)"), std::string::npos) << md;
  EXPECT_NE(md.find("ok (throttled)"), std::string::npos);  // the cells table
  EXPECT_NE(render_comparison_text(results, a.devices).find("(throttled)"), std::string::npos);
  // A hand-edited results file's reasons do not reach the report's prose as markup.
  results[1].throttle_reasons = "<img src=x onerror=alert(1)>";
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
  energy.metric = "energy";
  EXPECT_NE(compare_runs({base}, {cand}, time).cells.front().verdict, Verdict::kRegression);
  const CellVerdict v = compare_runs({base}, {cand}, energy).cells.front();
  EXPECT_EQ(v.verdict, Verdict::kRegression) << v.reason;
  EXPECT_NEAR(v.change, 0.5, 0.05);
  EXPECT_EQ(value_in_unit(v.baseline_median, "energy").find(" J"),
            value_in_unit(v.baseline_median, "energy").size() - 2);
  cand.energy_source = "unavailable";
  cand.energy_note = "no powercap at /sys/class/powercap";
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
  a.mean_watts = 40.0;
  Result b = a;
  b.mean_watts = 60.0;
  b.throttled = true;
  b.throttle_reasons = "hw_thermal_slowdown";
  const Result r = merge_processes(cell, {a, b});
  EXPECT_DOUBLE_EQ(r.mean_watts, 50.0);
  EXPECT_DOUBLE_EQ(r.joules_per_epoch, 50.0);
  EXPECT_TRUE(r.throttled);
  EXPECT_EQ(r.throttle_reasons, "hw_thermal_slowdown");
}

// Advances a fake package counter at `watts` until stopped, wrapping as RAPL does.
class FakePackage {
 public:
  FakePackage(const FakePowercap& powercap, double watts, double range_uj)
      : thread_([this, &powercap, watts, range_uj] {
          const auto start = std::chrono::steady_clock::now();
          while (!stop_) {
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            powercap.set("intel-rapl:0", std::fmod(watts * seconds * 1e6, range_uj));
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        }) {}
  ~FakePackage() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(Energy, ARunRecordsJoulesWattsAndCostsForEveryOkCell) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  testing::ScratchDir dir;
  FakePowercap powercap(dir);
  const std::string grid = dir.write("grid.json", R"({"name": "e", "prices": {"cpu": 0.36},
      "experiments": [{"workload": "iris_mlp", "settings": {"epochs": 40, "repeats": 3},
                       "grid": {"dataset_size": ["full", 20000]}}]})");
  const std::string out = dir.file("out");
  testing::Outcome o;
  {
    // 40 W, wrapping every 2.5 s: longer than any span (a span longer than the counter's range
    // is more than one wrap, which no reader can tell from one; the unit test above wraps).
    powercap.write("intel-rapl:0/max_energy_range_uj", "100000000");
    FakePackage package(powercap, 40.0, 1e8);
    o = testing::crossover(dir,
                           "run " + grid + " --out " + out + " --data-dir " + testing::data_dir() +
                               " --price cpu=0.72",
                           "CROSSOVER_POWERCAP_ROOT=" + powercap.root);
  }
  ASSERT_EQ(o.code, 0) << o.err;
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  for (const Result& r : results) {
    ASSERT_EQ(r.status, CellStatus::kOk) << r.reason;
    EXPECT_EQ(r.energy_source, "rapl");
    // A moving counter, in watts: how close to 40 W depends on the test's writer thread keeping
    // up (under ASan on two busy cores it fell to 8 W); the meters' arithmetic is tested exactly
    // above (the wrap, 250 W on the stand-in NVML).
    EXPECT_GT(r.mean_watts, 0.0);
    EXPECT_LT(r.mean_watts, 120.0);
    EXPECT_NEAR(r.joules_per_epoch, r.mean_watts * r.epoch_seconds, 1e-12);
    EXPECT_DOUBLE_EQ(r.price_per_hour, 0.72);  // --price over the grid's
    EXPECT_NEAR(r.cost_per_epoch, 0.72 / 3600.0 * r.epoch_seconds, 1e-15);
  }
  // Without powercap every cell says why, and nothing else changes.
  const std::string bare = dir.file("bare");
  o = testing::crossover(dir,
                         "run " + grid + " --out " + bare + " --data-dir " + testing::data_dir(),
                         "CROSSOVER_POWERCAP_ROOT=" + dir.file("none"));
  ASSERT_EQ(o.code, 0) << o.err;
  for (const Result& r : read_results(bare + "/results.jsonl")) {
    EXPECT_EQ(r.status, CellStatus::kOk);
    EXPECT_EQ(r.energy_source, "unavailable");
    EXPECT_NE(r.energy_note.find("no powercap"), std::string::npos) << r.energy_note;
    EXPECT_EQ(r.joules_per_epoch, 0.0);
    EXPECT_DOUBLE_EQ(r.price_per_hour, 0.36);  // the grid's
  }
  const std::string env = testing::slurp(bare + "/env.json");
  EXPECT_NE(env.find("\"energy\""), std::string::npos);
  EXPECT_NE(env.find("\"prices\""), std::string::npos);
}

}  // namespace
}  // namespace crossover
