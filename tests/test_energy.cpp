// Joules, dollars and clocks: the RAPL meter on a fake powercap tree (a wrap included), the NVML
// meters on a stand-in NVML library (energy counter, sampled power, clocks, throttle reasons),
// prices and costs, and a run that records them end to end and reports them in joules
// (tests/test_measures.cpp: the analysis on energy and on cost).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "core/records/prices.hpp"
#include "runner/hardware/energy.hpp"
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
  const auto meter = energy_meter(DeviceKind::kCpu, 0, 1);
  meter->start();
  powercap.set("intel-rapl:0", 5000);      // wrapped at 1,000,000: 15,000 uJ
  powercap.set("intel-rapl:1", 900000);    // psys: not a package, not counted
  powercap.set("intel-rapl:0:0", 500000);  // the core sub-domain: inside the package already
  meter->stop();
  EnergyTotals t = meter->totals();
  EXPECT_EQ(t.source, EnergySource::kRapl);
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
    const EnergyTotals t = energy_meter(DeviceKind::kCpu, 0, 1)->totals();
    EXPECT_EQ(t.source, EnergySource::kUnavailable);
    EXPECT_NE(t.note.find("no powercap at " + dir.file("none")), std::string::npos) << t.note;
    EXPECT_EQ(energy_availability(DeviceKind::kCpu).rfind("unavailable: no powercap", 0), 0u);
  }
  FakePowercap powercap(dir);
  // A counter that is not a regular file (here a FIFO, which would block a reader) is not read.
  fs::remove(powercap.root + "/intel-rapl:0/energy_uj");
  ASSERT_EQ(mkfifo((powercap.root + "/intel-rapl:0/energy_uj").c_str(), 0600), 0);
  ScopedEnv root("CROSSOVER_POWERCAP_ROOT", powercap.root);
  const EnergyTotals fifo = energy_meter(DeviceKind::kCpu, 0, 1)->totals();
  EXPECT_EQ(fifo.source, EnergySource::kUnavailable);
  EXPECT_NE(fifo.note.find("energy_uj"), std::string::npos) << fifo.note;
  remove_tree(powercap.root + "/intel-rapl:0");
  const EnergyTotals t = energy_meter(DeviceKind::kCpu, 0, 1)->totals();
  EXPECT_EQ(t.source, EnergySource::kUnavailable);
  EXPECT_NE(t.note.find("no RAPL package domain"), std::string::npos) << t.note;
}

// A counter that never moves, goes back (other than one wrap) or holds no number: `unavailable`,
// with the true reason, never 0 W, megawatts, or "no permission" for a root that has it.
TEST(Energy, ACounterThatIsStuckGoesBackOrIsNoNumberIsUnavailableWithWhy) {
  testing::ScratchDir dir;
  FakePowercap powercap(dir);
  powercap.write("intel-rapl:0/max_energy_range_uj", "262143328850");  // a real package's range
  ScopedEnv root("CROSSOVER_POWERCAP_ROOT", powercap.root);
  powercap.set("intel-rapl:0", 5000000);
  auto meter = energy_meter(DeviceKind::kCpu, 0, 1);
  meter->start();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  meter->stop();
  EnergyTotals t = meter->totals();
  EXPECT_EQ(t.source, EnergySource::kUnavailable);
  EXPECT_NE(t.note.find("did not move over"), std::string::npos) << t.note;
  EXPECT_EQ(t.joules, 0.0);
  // Back from 5,000,000 to 4,000,000 uJ: as a wrap that would be 262 kJ in a few milliseconds.
  meter = energy_meter(DeviceKind::kCpu, 0, 1);
  meter->start();
  powercap.set("intel-rapl:0", 4000000);
  meter->stop();
  t = meter->totals();
  EXPECT_EQ(t.source, EnergySource::kUnavailable);
  EXPECT_NE(t.note.find("went from 5e+06 to 4e+06 uJ"), std::string::npos) << t.note;
  EXPECT_NE(t.note.find("a counter that went back rather than one wrap"), std::string::npos);
  EXPECT_EQ(t.joules, 0.0);
  // A counter whose text is no number: said so, not "no permission".
  powercap.write("intel-rapl:0/energy_uj", "abc");
  t = energy_meter(DeviceKind::kCpu, 0, 1)->totals();
  EXPECT_EQ(t.source, EnergySource::kUnavailable);
  EXPECT_NE(t.note.find("holds \"abc\", not a count of microjoules"), std::string::npos) << t.note;
  EXPECT_EQ(t.note.find("permission"), std::string::npos) << t.note;
}

// The stand-in NVML's GPUs draw FAKE_NVML_WATTS; a span of about 0.1 s.
// A span of `ms` on the stand-in NVML; the energy counter needs 10 moves (50 ms of samples) and
// more under load to be read rather than the power.
EnergyTotals nvml_span(int first_gpu = 0, int gpus = 1, int ms = 100) {
  ScopedEnv library("CROSSOVER_NVML_LIBRARY", CROSSOVER_FAKE_NVML);
  const auto meter = energy_meter(DeviceKind::kCuda, first_gpu, gpus);
  meter->start();
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  meter->stop();
  return meter->totals();
}

TEST(Energy, NvmlReadsTheEnergyCounterOrIntegratesThePower) {
  ScopedEnv watts("FAKE_NVML_WATTS", "250");
  const EnergyTotals counter = nvml_span(0, 1, 400);
  EXPECT_EQ(counter.source, EnergySource::kNvml) << counter.note;
  EXPECT_NEAR(counter.joules / counter.seconds, 250.0, 25.0);
  EXPECT_EQ(counter.sm_clock_max_mhz, 1980u);
  EXPECT_EQ(counter.sm_clock_min_mhz, 1980u);
  EXPECT_FALSE(throttled(counter));
  {
    ScopedEnv no_counter("FAKE_NVML_NO_ENERGY", "1");
    const EnergyTotals sampled = nvml_span();
    EXPECT_EQ(sampled.source, EnergySource::kNvmlPower);
    EXPECT_EQ(sampled.note, "no energy counter; power sampled every 5 ms and integrated");
    EXPECT_NEAR(sampled.joules / sampled.seconds, 250.0, 25.0);
  }
  {
    // A counter that moves once a second has moved at most once in the span: a step inside it
    // or not is chance (a real H200 read 0 J for short cells), so the power is integrated.
    ScopedEnv coarse("FAKE_NVML_ENERGY_PERIOD_MS", "1000");
    const EnergyTotals stepped = nvml_span();
    EXPECT_EQ(stepped.source, EnergySource::kNvmlPower);
    EXPECT_NE(stepped.note.find("too coarse to count them; power sampled every 5 ms"),
              std::string::npos)
        << stepped.note;
    EXPECT_NEAR(stepped.joules / stepped.seconds, 250.0, 25.0);
    ScopedEnv no_power("FAKE_NVML_NO_POWER", "1");
    const EnergyTotals neither = nvml_span();
    EXPECT_EQ(neither.source, EnergySource::kUnavailable);
    EXPECT_NE(neither.note.find("and NVML reads no power"), std::string::npos) << neither.note;
  }
  // Two GPUs of a cell draw twice the power.
  ScopedEnv gpus("FAKE_NVML_GPUS", "2");
  const EnergyTotals both = nvml_span(0, 2);
  EXPECT_NEAR(both.joules / both.seconds, 500.0, 50.0);
  const EnergyTotals missing = nvml_span(2, 1);
  EXPECT_EQ(missing.source, EnergySource::kUnavailable);
  EXPECT_EQ(missing.note, "NVML has no GPU 2");
}

TEST(Energy, NvmlReadsTheGpuThatCudaVisibleDevicesMakesTheCellsDevice) {
  // Four GPUs drawing 100, 110, 120 and 130 W: the power read names the GPU.
  ScopedEnv gpus("FAKE_NVML_GPUS", "4");
  ScopedEnv watts("FAKE_NVML_WATTS", "100");
  ScopedEnv step("FAKE_NVML_STEP", "10");
  const auto watts_of = [](int cuda_index) {
    const EnergyTotals t = nvml_span(cuda_index, 1);
    return t.source == EnergySource::kUnavailable ? -1.0 : t.joules / t.seconds;
  };
  EXPECT_NEAR(watts_of(1), 110.0, 8.0);  // no CUDA_VISIBLE_DEVICES: the same numbering
  {
    // A Slurm job given GPUs 2 and 3: its cuda:0 is the machine's GPU 2.
    ScopedEnv visible("CUDA_VISIBLE_DEVICES", "2,3");
    EXPECT_NEAR(watts_of(0), 120.0, 8.0);
    EXPECT_NEAR(watts_of(1), 130.0, 8.0);
    const EnergyTotals past = nvml_span(2, 1);
    EXPECT_EQ(past.source, EnergySource::kUnavailable);
    EXPECT_EQ(past.note, "CUDA_VISIBLE_DEVICES=2,3 leaves no cuda:2");
  }
  {
    ScopedEnv visible("CUDA_VISIBLE_DEVICES", "GPU-fake-3, 0");
    EXPECT_NEAR(watts_of(0), 130.0, 8.0);
    EXPECT_NEAR(watts_of(1), 100.0, 8.0);
  }
  {
    // CUDA reads the list up to its first entry it cannot: "x" hides GPU 1 too.
    ScopedEnv visible("CUDA_VISIBLE_DEVICES", "3,x,1");
    EXPECT_NEAR(watts_of(0), 130.0, 8.0);
    EXPECT_LT(watts_of(1), 0.0);
  }
  {
    ScopedEnv visible("CUDA_VISIBLE_DEVICES", "MIG-4f1c");
    const EnergyTotals mig = nvml_span(0, 1);
    EXPECT_EQ(mig.source, EnergySource::kUnavailable);
    EXPECT_NE(mig.note.find("a MIG instance"), std::string::npos) << mig.note;
  }
  ScopedEnv visible("CUDA_VISIBLE_DEVICES", "GPU-other");
  EXPECT_EQ(nvml_span(0, 1).note, "NVML has no GPU GPU-other");
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
  const EnergyTotals none = energy_meter(DeviceKind::kCuda, 0, 1)->totals();
  EXPECT_EQ(none.source, EnergySource::kUnavailable);
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
  // One parser, whose messages quote the text given: only a finite decimal above 0.
  const auto said = [&](const std::string& text) {
    try {
      add_price(prices, text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  for (const char* text : {"NaN", "nan", "inf", "0x10", " 2", "+2", "1e"})
    EXPECT_NE(said(std::string("cpu=") + text).find("\"" + std::string(text) + "\" is not a price"),
              std::string::npos)
        << text << ": " << said(std::string("cpu=") + text);
  EXPECT_NE(said("cpu=1e308").find("\"1e308\" is too large"), std::string::npos);
  EXPECT_NE(said("cpu=1e-320").find("below the least price per hour"), std::string::npos);
  EXPECT_NE(said("cpu=0").find("\"0\" is 0: a price is above 0"), std::string::npos);
  EXPECT_EQ(said("cpu=3e-2"), "accepted");
  EXPECT_DOUBLE_EQ(prices.at("cpu"), 0.03);
  add_price(prices, "cpu=0.40");
  EXPECT_THROW(prices_from_json(nlohmann::json::parse(R"({"cuda": 0})")), std::invalid_argument);
  EXPECT_THROW(prices_from_json(nlohmann::json::parse(R"({"cuda": 1e300})")),
               std::invalid_argument);
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
  r.cell.device = Device::cuda(1);
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
  r.cell.device = Device::cpu();
  apply_price(r, prices);
  EXPECT_DOUBLE_EQ(r.price_per_hour, 0.40);
  apply_price(r, {});
  EXPECT_DOUBLE_EQ(r.cost_per_epoch, 0.0);
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
    EXPECT_EQ(r.energy.energy_source, EnergySource::kRapl);
    // A moving counter, in watts: how close to 40 W depends on the test's writer thread keeping
    // up (under ASan on two busy cores it fell to 8 W); the meters' arithmetic is tested exactly
    // above (the wrap, 250 W on the stand-in NVML).
    EXPECT_GT(r.energy.mean_watts, 0.0);
    EXPECT_LT(r.energy.mean_watts, 120.0);
    EXPECT_NEAR(r.energy.joules_per_epoch, r.energy.mean_watts * r.epoch_seconds, 1e-12);
    EXPECT_DOUBLE_EQ(r.price_per_hour, 0.72);  // --price over the grid's
    EXPECT_NEAR(r.cost_per_epoch, 0.72 / 3600.0 * r.epoch_seconds, 1e-15);
  }
  // Without powercap every cell says why, and nothing else changes (a short grid: no counter
  // needs to move).
  const std::string short_grid = dir.write("short.json", R"({"name": "e", "prices": {"cpu": 0.36},
      "experiments": [{"workload": "iris_mlp", "settings": {"epochs": 3, "repeats": 1},
                       "grid": {"dataset_size": ["full", 200]}}]})");
  const std::string bare = dir.file("bare");
  o = testing::crossover(
      dir, "run " + short_grid + " --out " + bare + " --data-dir " + testing::data_dir(),
      "CROSSOVER_POWERCAP_ROOT=" + dir.file("none"));
  ASSERT_EQ(o.code, 0) << o.err;
  for (const Result& r : read_results(bare + "/results.jsonl")) {
    EXPECT_EQ(r.status, CellStatus::kOk);
    EXPECT_EQ(r.energy.energy_source, EnergySource::kUnavailable);
    EXPECT_NE(r.energy.energy_note.find("no powercap"), std::string::npos) << r.energy.energy_note;
    EXPECT_EQ(r.energy.joules_per_epoch, 0.0);
    EXPECT_DOUBLE_EQ(r.price_per_hour, 0.36);  // the grid's
  }
  const std::string env = testing::slurp(bare + "/env.json");
  EXPECT_NE(env.find("\"energy\""), std::string::npos);
  EXPECT_NE(env.find("\"prices\""), std::string::npos);
  // The report in joules of the measured run; the unmeasured one is refused, its reports kept.
  o = testing::crossover(dir, "report " + out + " --measure energy");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("cpu energy"), std::string::npos) << o.out;
  EXPECT_NE(testing::slurp(out + "/summary.json").find("\"measure\": \"energy\""),
            std::string::npos);
  const std::string kept = testing::slurp(bare + "/report.md");
  o = testing::crossover(dir, "report " + bare + " --measure energy");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--measure energy: no ok cell measured its energy (no powercap at"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(testing::slurp(bare + "/report.md"), kept);
  EXPECT_NE(kept.find("> **Energy:** not measured (no powercap at"), std::string::npos);
}

}  // namespace
}  // namespace crossover
