// A GPU's profile from its datasheet (core/costmodel/datasheet.hpp): the catalog read as a user's
// file, every figure with its source, and the derivation checked where it can be, on the cards
// that were measured: each derived without its own measurement lands near it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/costmodel/datasheet.hpp"

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
  return {{load_profile(kProfiles + "h100-80gb.json"), *catalog.find("h100-sxm")},
          {load_profile(kProfiles + "h200-141gb.json"), *catalog.find("h200-sxm")}};
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
    EXPECT_EQ(profile_to_json(derived), profile_to_json(datasheet_profile(self.sheet, {other}, catalog)));
    ASSERT_TRUE(derived.cuda);
    const DeviceProfile& d = *derived.cuda;
    const DeviceProfile& m = *self.profile.cuda;
    EXPECT_NEAR(top_rate(d) / top_rate(m), 1.0, 0.05) << self.sheet.name;
    EXPECT_NEAR(d.memory_bytes_per_second / m.memory_bytes_per_second, 1.0, 0.05) << self.sheet.name;
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
  EXPECT_NE(band_validation_text(band).find("(Ada Lovelace) is not one measured"), std::string::npos);
  // A slower card is slower where its datasheet says: a quarter of the H100's FP32 and a tenth of
  // its bandwidth.
  const MachineProfile h100 = datasheet_profile(*catalog.find("h100-sxm"), cards, catalog);
  EXPECT_LT(top_rate(*l4.cuda), top_rate(*h100.cuda) / 2.0);
  EXPECT_LT(l4.cuda->memory_bytes_per_second, h100.cuda->memory_bytes_per_second / 5.0);
  const Validation& own = h100.validation.at(DeviceKind::kCuda);
  EXPECT_EQ(band_validation_text(own).find("not one measured"), std::string::npos);
  // The profile's file keeps the note.
  EXPECT_EQ(profile_from_json(profile_to_json(l4)).validation.at(DeviceKind::kCuda).note, band.note);
}

}  // namespace
}  // namespace crossover
