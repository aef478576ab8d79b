// A GPU's profile from its datasheet (core/costmodel/datasheet.hpp): the catalog read as a user's
// file, every figure with its source, and the derivation checked where it can be, on the cards
// that were measured: each derived without its own measurement lands near it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "core/costmodel/cost_model.hpp"
#include "core/costmodel/datasheet.hpp"
#include "core/records/results.hpp"
#include "reports/analysis/pairing.hpp"

namespace crossover {
namespace {

const std::string kProfiles = std::string(CROSSOVER_SOURCE_DIR) + "/profiles/";

nlohmann::ordered_json shipped_catalog_json() {
  std::ifstream in(kProfiles + "datasheets/catalog.json");
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::ordered_json::parse(text.str());
}

std::vector<MeasuredCard> measured(const DatasheetCatalog& catalog) {
  std::vector<MeasuredCard> cards = {
      {load_profile(kProfiles + "h100-80gb.json"), *catalog.find("h100-sxm")},
      {load_profile(kProfiles + "h200-141gb.json"), *catalog.find("h200-sxm")}};
  // As crossover loads them (runner/cli/named_profiles): their tensor and convolution rates
  // borrowed from their datasheets.
  for (MeasuredCard& m : cards)
    borrow_own_tensor_rates(m.profile, m.sheet, catalog.convolution_share);
  return cards;
}

nlohmann::json json_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

double top_rate(const DeviceProfile& d) {
  double top = 0.0;
  for (const auto& rung : d.gemm) top = std::max(top, rung.second);
  return top;
}

TEST(Datasheet, TheShippedCatalogNamesASourceForEveryFigure) {
  const DatasheetCatalog catalog = catalog_from_json(shipped_catalog_json());
  ASSERT_GE(catalog.cards.size(), 6u);
  for (const Datasheet& card : catalog.cards) {
    for (const char* figure : {"fp32_tflops", "memory_gb", "memory_gbps", "pcie_generation",
                               "pcie_lanes", "tdp_watts"}) {
      ASSERT_TRUE(card.sources.contains(figure)) << card.name << " " << figure;
      // The source's own words, its address and the day it was read.
      EXPECT_NE(card.sources[figure].get<std::string>().find("(https://"), std::string::npos)
          << card.name << " " << figure;
      EXPECT_NE(card.sources[figure].get<std::string>().find("read 2026-"), std::string::npos);
    }
  }
  // PCIe's rate a direction: 8, 16, 32 GT/s a lane, 128b/130b.
  EXPECT_NEAR(catalog.find("t4")->host_link_bytes_per_second(), 15.75e9, 0.01e9);
  EXPECT_NEAR(catalog.find("h100-sxm")->host_link_bytes_per_second(), 63.0e9, 0.1e9);
}

TEST(Datasheet, AFigureWithoutASourceOrOutOfRangeIsRefusedNamingIt) {
  const auto refused = [](nlohmann::ordered_json j, const std::string& expected) {
    try {
      catalog_from_json(j);
      ADD_FAILURE() << "accepted; expected " << expected;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  const nlohmann::ordered_json good = shipped_catalog_json();
  auto j = good;
  j["cards"][0]["sources"].erase("fp32_tflops");
  refused(j, "cards[0].sources.fp32_tflops");
  j = good;
  j["cards"][1]["sources"]["memory_gbps"] = "nobody: said so";
  refused(j, "cards[1].sources.memory_gbps: expected one of the catalog's sources, not \"nobody\"");
  j = good;
  j["cards"][2]["fp32_tflops"] = 1e9;
  refused(j, "cards[2].fp32_tflops");
  j = good;
  j["cards"][2]["pcie_generation"] = 4.5;
  refused(j, "cards[2].pcie_generation");
  j = good;
  j["cards"][3]["name"] = j["cards"][0]["name"];
  refused(j, "cards[3].name");
  j = good;
  j["cards"][0]["gpu"] = "evil\nline";
  refused(j, "cards[0].gpu");
  j = good;
  j["example_prices"]["nvidia-b900"] = 1.0;
  refused(j, "example_prices.nvidia-b900");
  j = good;
  j["derivation"] = {{"l4", {{"median_abs_error", "x"}}}};
  refused(j, "derivation.l4");
}

// The derivation's own check: each measured card derived from its datasheet and the other card
// alone lands near its measurement where a datasheet carries the answer (the matrix products'
// top rate, the memory's bandwidth, the pinned link), and takes the host's terms.
TEST(Datasheet, EachMeasuredCardDerivedWithoutItselfLandsNearItsMeasurement) {
  const DatasheetCatalog catalog = catalog_from_json(shipped_catalog_json());
  const std::vector<MeasuredCard> cards = measured(catalog);
  for (std::size_t i = 0; i < cards.size(); ++i) {
    const MeasuredCard& self = cards[i];
    const MeasuredCard& other = cards[1 - i];
    const MachineProfile derived = datasheet_profile(self.sheet, cards, catalog);
    // Never from its own measurement: the same with the other card alone.
    EXPECT_EQ(profile_to_json(derived),
              profile_to_json(datasheet_profile(self.sheet, {other}, catalog)));
    ASSERT_TRUE(derived.cuda);
    const DeviceProfile& d = *derived.cuda;
    const DeviceProfile& m = *self.profile.cuda;
    EXPECT_NEAR(top_rate(d) / top_rate(m), 1.0, 0.05) << self.sheet.name;
    EXPECT_NEAR(d.memory_bytes_per_second / m.memory_bytes_per_second, 1.0, 0.05)
        << self.sheet.name;
    EXPECT_NEAR(d.h2d_pinned_bytes_per_second / m.h2d_pinned_bytes_per_second, 1.0, 0.05);
    // The host's terms are the other card's: a datasheet names none.
    EXPECT_EQ(d.dispatch_seconds, other.profile.cuda->dispatch_seconds);
    EXPECT_EQ(d.sync_seconds, other.profile.cuda->sync_seconds);
    EXPECT_EQ(derived.cpu_model, other.profile.cpu_model);
    // A small product costs its fixed part, as on the card it came from.
    EXPECT_NEAR(d.gemm.front().second / other.profile.cuda->gemm.front().second, 1.0, 0.01);
    EXPECT_NE(derived.name.find(kDatasheetSuffix), std::string::npos);
    EXPECT_TRUE(derived.provenance["sources"].contains("fp32_tflops"));
  }
}

TEST(Datasheet, AnotherArchitecturesBandSaysItWasNeverCheckedOnIt) {
  DatasheetCatalog catalog = catalog_from_json(shipped_catalog_json());
  Validation v;
  v.median_abs_error = 0.3;
  v.band = {1.9, 20};
  catalog.derivation["h100-sxm"] = v;
  v.band = {2.4, 30};
  catalog.derivation["h200-sxm"] = v;
  const std::vector<MeasuredCard> cards = measured(catalog);
  const MachineProfile l4 = datasheet_profile(*catalog.find("l4"), cards, catalog);
  const Validation& band = l4.validation.at(DeviceKind::kCuda);
  EXPECT_EQ(band.band.factor, 2.4);  // the widest
  EXPECT_NE(band_validation_text(band).find("from a datasheet"), std::string::npos);
  EXPECT_NE(band_validation_text(band).find("(Ada Lovelace) is not one measured"),
            std::string::npos);
  // A slower card is slower where its datasheet says: a quarter of the H100's FP32 and a tenth of
  // its bandwidth.
  const MachineProfile h100 = datasheet_profile(*catalog.find("h100-sxm"), cards, catalog);
  EXPECT_LT(top_rate(*l4.cuda), top_rate(*h100.cuda) / 2.0);
  EXPECT_LT(l4.cuda->memory_bytes_per_second, h100.cuda->memory_bytes_per_second / 5.0);
  const Validation& own = h100.validation.at(DeviceKind::kCuda);
  EXPECT_EQ(band_validation_text(own).find("not one measured"), std::string::npos);
  // The profile's file keeps the note.
  EXPECT_EQ(profile_from_json(profile_to_json(l4)).validation.at(DeviceKind::kCuda).note,
            band.note);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// Issue 99: the catalog ranked the L40S ahead of the A100, the T4 and L4 2-3x too high. Published
// single-GPU training throughputs (profiles/datasheets/published.json) against each card's
// profile from its datasheet, on the H200's compute-bound CIFAR ResNet-18 steps (graph: the host
// out of the way, as a benchmark at large batch has it; fp32 for the published fp32, bf16 for
// amp), ratios taken within one source and setting. Held to the scores the file commits
// (docs/gpu.md shows them): a change that ranks worse fails here.
TEST(Datasheet, TheCatalogsGpuOrderAgreesWithPublishedTrainingBenchmarks) {
  const DatasheetCatalog catalog = catalog_from_json(shipped_catalog_json());
  const std::vector<MeasuredCard> cards = measured(catalog);
  const nlohmann::json published = json_file(kProfiles + "datasheets/published.json");
  std::map<std::string, Result> steps;  // by precision: the graph cells of resnet-modes
  for (Result& r : read_results(kProfiles + "validation/h200-141gb/resnet-modes/anatomy.jsonl"))
    if (r.cell.execution == Execution::kGraph)
      steps.emplace(text_of(r.cell.precision), std::move(r));
  ASSERT_EQ(steps.size(), 2u) << "resnet-modes' anatomy.jsonl: its graph fp32 and bf16 cells";
  for (const auto& [precision, r] : steps) ASSERT_TRUE(r.anatomy.current()) << precision;
  const auto throughput = [&](const std::string& gpu, const std::string& precision) {
    const Result& r = steps.at(precision == "amp" ? "bf16" : "fp32");
    const MachineProfile p = datasheet_profile(*catalog.find(gpu), cards, catalog);
    const StepPrediction step = predict_step(r.anatomy.step(), *p.cuda, context_of(r.cell, p));
    return static_cast<double>(r.cell.batch_size) / step.step();
  };
  for (const Datasheet& card : catalog.cards)  // the whole order, for docs/gpu.md
    std::cout << card.name << ": " << throughput(card.name, "fp32") << " images/s fp32, "
              << throughput(card.name, "amp") << " bf16 (predicted)\n";
  int pairs = 0, concordant = 0, within = 0;
  double worst = 1.0;
  const auto& results = published["results"];
  for (std::size_t i = 0; i < results.size(); ++i) {
    for (std::size_t j = i + 1; j < results.size(); ++j) {
      const auto &a = results[i], &b = results[j];
      if (a["source"] != b["source"] || a["precision"] != b["precision"] || a["gpu"] == b["gpu"])
        continue;
      const double said =
          a["images_per_second"].get<double>() / b["images_per_second"].get<double>();
      const double ours =
          throughput(a["gpu"], a["precision"]) / throughput(b["gpu"], b["precision"]);
      const double error = std::max(said / ours, ours / said);
      ++pairs;
      concordant += (said > 1.0) == (ours > 1.0) ? 1 : 0;
      within += error <= 1.5 ? 1 : 0;
      worst = std::max(worst, error);
      std::cout << a["gpu"].get<std::string>() << "/" << b["gpu"].get<std::string>() << " "
                << a["precision"].get<std::string>() << " (" << a["source"].get<std::string>()
                << "): published " << said << ", predicted " << ours << ", x" << error << "\n";
    }
  }
  const auto& committed = published["scores"];
  ASSERT_EQ(pairs, committed["pairs"].get<int>());
  const double tau = pairs > 0 ? (2.0 * concordant - pairs) / pairs : 0.0;
  EXPECT_GE(tau, committed["kendall_tau"].get<double>() - 1e-9);
  EXPECT_GE(within, committed["within_factor_1_5"].get<int>());
  EXPECT_LE(worst, committed["worst_ratio_error"].get<double>() + 1e-3);
}

// Issue 99: catalog named one GPU faster than another whose band overlapped it. Planted figures:
// a GPU is faster or cheaper only where the two bands exclude each other; otherwise every GPU
// that ties with the best is named.
TEST(Datasheet, AGpuIsFasterThanAnotherOnlyWhereTheirBandsExcludeATie) {
  EXPECT_EQ(banded_order(1.0, 1.5, 3.0, 1.5), -1);  // 1.5 < 3 / 1.5 = 2: apart
  EXPECT_EQ(banded_order(3.0, 1.5, 1.0, 1.5), 1);
  EXPECT_EQ(banded_order(1.0, 1.5, 2.0, 1.5), 0);  // 1.5 > 2 / 1.5: the bands overlap
  EXPECT_EQ(banded_order(1.0, 1.0, 1.0, 1.0), 0);
  // 49.1 ms against 53.0 ms, each x1.74: issue 99's A100 and H100, a tie.
  EXPECT_EQ(banded_order(0.0491, 1.74, 0.0530, 1.74), 0);
  // The lowest and every one that ties with it; a value of 0 (no price) is none.
  EXPECT_EQ(tied_with_lowest({10.0, 1.0, 1.6, 1.8}, {1.3, 1.3, 1.3, 1.3}),
            (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(tied_with_lowest({10.0, 1.0, 0.0}, {1.1, 1.1, 1.1}), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(tied_with_lowest({0.0, 0.0}, {1.1, 1.1}).empty());
}

}  // namespace
}  // namespace crossover
