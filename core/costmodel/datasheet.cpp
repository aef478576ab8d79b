#include "core/costmodel/datasheet.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/stats/stats.hpp"
#include "core/text/text.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void refuse_datasheet(const std::string& at, const std::string& expected) {
  throw std::runtime_error(at + ": expected " + expected);
}

// A text of the catalog: one printable line of at most `most` characters (a name 200, an
// explanation 1000).
std::string text_at(const Json& j, const char* key, const std::string& at, bool required,
                    std::size_t most = 200) {
  if (!j.contains(key)) {
    if (required) refuse_datasheet(at + "." + key, "text");
    return "";
  }
  if (!j[key].is_string()) refuse_datasheet(at + "." + key, "text");
  const std::string text = j[key].get<std::string>();
  if (text.size() > most || printable_text(text) != text ||
      text.find_first_of("\n\t") != std::string::npos)
    refuse_datasheet(at + "." + key, "one line of printable text of at most " +
                                         std::to_string(most) + " characters");
  return text;
}

// The figures a card may give: the key, its unit's factor to SI, its range in that key's unit, and
// the field it sets.
struct Figure {
  const char* key;
  double scale, low, high;
  bool required;
  void (*set)(Datasheet&, double);
};
constexpr Figure kFigures[] = {
    {"fp32_tflops", 1e12, 0.1, 1e4, true,
     [](Datasheet& d, double v) { d.fp32_flops_per_second = v; }},
    {"tf32_tflops", 1e12, 0.1, 1e5, false,
     [](Datasheet& d, double v) { d.tf32_flops_per_second = v; }},
    {"bf16_tflops", 1e12, 0.1, 1e5, false,
     [](Datasheet& d, double v) { d.bf16_flops_per_second = v; }},
    {"memory_gb", 1e9, 0.1, 1e5, true, [](Datasheet& d, double v) { d.memory_bytes = v; }},
    {"memory_gbps", 1e9, 1.0, 1e6, true,
     [](Datasheet& d, double v) { d.memory_bytes_per_second = v; }},
    {"pcie_generation", 1.0, 3.0, 5.0, true,
     [](Datasheet& d, double v) { d.pcie_generation = static_cast<int>(v); }},
    {"pcie_lanes", 1.0, 1.0, 16.0, true,
     [](Datasheet& d, double v) { d.pcie_lanes = static_cast<int>(v); }},
    {"tdp_watts", 1.0, 1.0, 1e4, true, [](Datasheet& d, double v) { d.tdp_watts = v; }},
};

// A figure's source: "ID" or "ID: how it was read", its ID one of the catalog's sources.
std::string source_text(const Json& card, const char* key, const Json& sources,
                        const std::string& at) {
  if (!card.contains("sources") || !card["sources"].is_object() || !card["sources"].contains(key) ||
      !card["sources"][key].is_string())
    refuse_datasheet(at + ".sources." + key,
                     "the source of " + std::string(key) + " (no figure without one)");
  const std::string given = card["sources"][key].get<std::string>();
  if (!is_profile_text(given)) refuse_datasheet(at + ".sources." + key, kProfileTextRule);
  const std::string id = given.substr(0, given.find(':'));
  if (!sources.contains(id))
    refuse_datasheet(at + ".sources." + key, "one of the catalog's sources, not \"" + id + "\"");
  const Json& s = sources[id];
  std::string text =
      s.value("what", "") + " (" + s.value("url", "") + "), read " + s.value("read", "");
  if (id.size() < given.size()) text += ";" + given.substr(id.size() + 1);
  return text;
}

Datasheet card_from_json(const Json& j, const Json& sources, const std::string& at) {
  if (!j.is_object()) refuse_datasheet(at, "an object");
  Datasheet d;
  d.name = text_at(j, "name", at, true);
  d.gpu = text_at(j, "gpu", at, true);
  d.architecture = text_at(j, "architecture", at, true);
  d.measured = text_at(j, "measured", at, false);
  d.sources = Json::object();
  for (const Figure& f : kFigures) {
    if (!j.contains(f.key)) {
      if (f.required) refuse_datasheet(at + "." + f.key, "a number");
      continue;
    }
    const Json& v = j[f.key];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < f.low ||
        v.get<double>() > f.high)
      refuse_datasheet(at + "." + f.key,
                       "a number from " + format_number(f.low) + " to " + format_number(f.high));
    f.set(d, v.get<double>() * f.scale);
    d.sources[f.key] = source_text(j, f.key, sources, at);
  }
  if (d.pcie_generation != j["pcie_generation"].get<double>() ||
      d.pcie_lanes != j["pcie_lanes"].get<double>())
    refuse_datasheet(at + ".pcie_generation", "whole numbers of a generation and lanes");
  return d;
}

double median_value(const std::vector<double>& values) {
  return values.empty() ? 0.0 : summarize(values).median;
}

// "1.23e+13 (1.20e+13 to 1.26e+13 over h100, h200)": a taken term with its spread.
std::string spread_text(const std::vector<double>& values, const std::string& over) {
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return format_number(median_value(values)) + " (" + format_number(*low) + " to " +
         format_number(*high) + " over " + over + ")";
}

// The widest of the derivation's validations: what a datasheet profile's CUDA cells carry.
Validation widest(const std::map<std::string, Validation>& derivation) {
  Validation out;
  for (const auto& [card, v] : derivation) {
    out.median_abs_error = std::max(out.median_abs_error, v.median_abs_error);
    if (v.band.factor > out.band.factor) out.band = v.band;
    for (const auto& [bound, b] : v.by_bound)
      if (b.factor > out.by_bound[bound].factor) out.by_bound[bound] = b;
    out.runs.insert(out.runs.end(), v.runs.begin(), v.runs.end());
    if (!v.coverage_method.empty()) out.coverage_method = v.coverage_method;
    out.coverage.cells += v.coverage.cells;
    out.coverage.inside += v.coverage.inside;
  }
  return out;
}

double top_rate(const DeviceProfile& d) {
  double top = 0.0;
  for (const auto& rung : d.gemm) top = std::max(top, rung.second);
  return top;
}

// What the measured cards reach of their datasheets, and the host terms they measured.
struct Shares {
  std::vector<std::string> names;
  std::vector<double> gemm, memory, link, pageable, dispatch, sync, graph;
  bool same_architecture = false;
};

Shares shares_of(const Datasheet& card, const std::vector<const MeasuredCard*>& base) {
  Shares s;
  for (const MeasuredCard* m : base) {
    const DeviceProfile& g = *m->profile.cuda;
    s.names.push_back(m->sheet.name);
    s.same_architecture = s.same_architecture || m->sheet.architecture == card.architecture;
    s.gemm.push_back(top_rate(g) / m->sheet.fp32_flops_per_second);
    s.memory.push_back(g.memory_bytes_per_second / m->sheet.memory_bytes_per_second);
    s.link.push_back(g.h2d_pinned_bytes_per_second / m->sheet.host_link_bytes_per_second());
    s.pageable.push_back(g.h2d_pageable_bytes_per_second);
    s.dispatch.push_back(g.dispatch_seconds);
    s.sync.push_back(g.sync_seconds);
    if (g.graph_op_seconds > 0.0) s.graph.push_back(g.graph_op_seconds);
  }
  return s;
}

// The profile's provenance: each derived number with the rule and the numbers behind it.
Json derivation_json(const Datasheet& card, const Shares& s, double top,
                     const MachineProfile& host) {
  const std::string over = join(s.names);
  Json derived = {
      {"from", "its datasheet (sources) and the measured cards " + over +
                   ", never from a measurement of this card (core/costmodel/datasheet.hpp, "
                   "docs/gpu.md)"},
      {"gemm",
       "each rung: the measured cards' time for it less its work at their top rate, plus "
       "its work at " +
           format_number(top) + " FLOP/s = the FP32 peak " +
           format_number(card.fp32_flops_per_second) +
           " x the measured cards' share of "
           "theirs " +
           spread_text(s.gemm, over)},
      {"memory_bytes_per_second", "the datasheet's " + format_number(card.memory_bytes_per_second) +
                                      " x the measured cards' share of theirs " +
                                      spread_text(s.memory, over)},
      {"h2d_pinned_bytes_per_second",
       "PCIe " + std::to_string(card.pcie_generation) + ".0 x" + std::to_string(card.pcie_lanes) +
           " (" + format_number(card.host_link_bytes_per_second()) +
           " bytes/s a direction) x the measured cards' share of theirs " +
           spread_text(s.link, over)},
      {"h2d_pageable_bytes_per_second",
       "the measured hosts' " + spread_text(s.pageable, over) + ", no faster than the link"},
      {"dispatch_seconds", "the measured cards' hosts' " + spread_text(s.dispatch, over)},
      {"sync_seconds", "the measured cards' " + spread_text(s.sync, over)},
      {"cpu", "the host of " + s.names.front() + " (" + host.cpu_model + ", " +
                  std::to_string(host.logical_cores) +
                  " logical cores): a datasheet names no host"}};
  if (!s.graph.empty())
    derived["graph_op_seconds"] = "the measured cards' " + spread_text(s.graph, over);
  return derived;
}

}  // namespace

double Datasheet::host_link_bytes_per_second() const {
  const double transfers_per_lane = pcie_generation == 3 ? 8e9 : pcie_generation == 4 ? 16e9 : 32e9;
  return transfers_per_lane * 128.0 / 130.0 / 8.0 * pcie_lanes;
}

void borrow_tensor_rates(DeviceProfile& gpu, const Datasheet& card, double share,
                         const std::string& whose, double convolution_share) {
  gpu.tf32_flops_per_second = card.tf32_flops_per_second * share;
  gpu.bf16_flops_per_second = card.bf16_flops_per_second * share;
  if (convolution_share > 0.0) {
    gpu.convolution_fp32_flops_per_second = card.fp32_flops_per_second * convolution_share;
    gpu.convolution_tf32_flops_per_second = card.tf32_flops_per_second * convolution_share;
    gpu.convolution_bf16_flops_per_second = card.bf16_flops_per_second * convolution_share;
  }
  gpu.tensor_source = "borrowed: the datasheet's peaks x " + whose + " share of FP32 peak (" +
                      format_number(share) + ") for products, x the catalog's convolution share (" +
                      format_number(convolution_share) + ")";
}

void borrow_own_tensor_rates(MachineProfile& profile, const Datasheet& card,
                             double convolution_share) {
  if (!profile.cuda || !profile.cuda->tensor_source.empty() || card.fp32_flops_per_second <= 0.0)
    return;
  borrow_tensor_rates(*profile.cuda, card, top_rate(*profile.cuda) / card.fp32_flops_per_second,
                      "its measured", convolution_share);
}

const Datasheet* DatasheetCatalog::find(const std::string& name) const {
  for (const Datasheet& d : cards)
    if (d.name == name) return &d;
  return nullptr;
}

DatasheetCatalog catalog_from_json(const Json& j) {
  if (!j.is_object()) refuse_datasheet("the catalog", "an object");
  if (!j.contains("sources") || !j["sources"].is_object()) refuse_datasheet("sources", "an object");
  for (const auto& [id, s] : j["sources"].items()) {
    for (const char* key : {"what", "url", "read"}) text_at(s, key, "sources." + id, true, 1000);
  }
  if (!j.contains("cards") || !j["cards"].is_array() || j["cards"].empty() ||
      j["cards"].size() > 200)
    refuse_datasheet("cards", "a list of 1 to 200 cards");
  DatasheetCatalog catalog;
  for (std::size_t i = 0; i < j["cards"].size(); ++i) {
    Datasheet d = card_from_json(j["cards"][i], j["sources"], "cards[" + std::to_string(i) + "]");
    if (catalog.find(d.name))
      refuse_datasheet("cards[" + std::to_string(i) + "].name", "a name not given twice");
    catalog.cards.push_back(std::move(d));
  }
  if (j.contains("derivation")) {
    if (!j["derivation"].is_object())
      refuse_datasheet("derivation", "an object of validations by card");
    for (const auto& [card, v] : j["derivation"].items()) {
      if (!catalog.find(card)) refuse_datasheet("derivation." + card, "a card of the catalog");
      catalog.derivation[card] = validation_from_json(v, "derivation." + card);
    }
  }
  if (j.contains("convolution_share")) {
    const Json& c = j["convolution_share"];
    if (!c.is_object() || !c.contains("share") || !c["share"].is_number() ||
        !(c["share"].get<double>() > 0.0 && c["share"].get<double>() <= 1.0))
      refuse_datasheet("convolution_share",
                       "an object with a share from 0 to 1 and how it was measured");
    catalog.convolution_share = c["share"].get<double>();
    catalog.convolution_share_about = text_at(c, "measured", "convolution_share", true, 1000);
  }
  if (j.contains("example_prices")) {
    const Json& prices = j["example_prices"];
    if (!prices.is_object())
      refuse_datasheet("example_prices", "an object of prices per hour by card");
    catalog.example_prices_about = text_at(prices, "about", "example_prices", true, 1000);
    for (const auto& [card, price] : prices.items()) {
      if (card == "about") continue;
      if (!catalog.find(card) && parse_word<DeviceKind>(card) != DeviceKind::kCpu)
        refuse_datasheet("example_prices." + card, "a card of the catalog");
      if (!price.is_number() || !(price.get<double>() >= 0.0 && price.get<double>() < 1e6))
        refuse_datasheet("example_prices." + card, "a price per hour from 0");
      catalog.example_prices[card] = price.get<double>();
    }
  }
  return catalog;
}

MachineProfile datasheet_profile(const Datasheet& card, const std::vector<MeasuredCard>& measured,
                                 const DatasheetCatalog& catalog) {
  std::vector<const MeasuredCard*> base;
  for (const MeasuredCard& m : measured)
    if (m.sheet.name != card.name && m.profile.cuda) base.push_back(&m);
  if (base.empty())
    throw std::runtime_error(card.name + ": no measured card other than itself to derive it from");
  const Shares shares = shares_of(card, base);
  const MachineProfile& host = base.front()->profile;
  MachineProfile p = host;  // the host's CPU, model and cores: a datasheet names none
  p.name = card.name + kDatasheetSuffix;
  p.gpu_name = card.gpu;
  p.validation.clear();
  DeviceProfile d;
  const double top = median_value(shares.gemm) * card.fp32_flops_per_second;
  // A product's fixed part (launch, tiles) is the measured cards'; its work runs at the top rate.
  for (const auto& [n, rate] : host.cuda->gemm) {
    const double work = 2.0 * n * n * n;
    std::vector<double> fixed;
    for (const MeasuredCard* m : base)
      fixed.push_back(std::max(0.0, work / m->profile.cuda->gemm_flops_per_second(work) -
                                        work / top_rate(*m->profile.cuda)));
    d.gemm.emplace_back(n, work / (median_value(fixed) + work / top));
  }
  d.memory_bytes_per_second = median_value(shares.memory) * card.memory_bytes_per_second;
  d.h2d_pinned_bytes_per_second = median_value(shares.link) * card.host_link_bytes_per_second();
  d.h2d_pageable_bytes_per_second =
      std::min(median_value(shares.pageable), d.h2d_pinned_bytes_per_second);
  d.dispatch_seconds = median_value(shares.dispatch);
  d.sync_seconds = median_value(shares.sync);
  d.graph_op_seconds = median_value(shares.graph);
  borrow_tensor_rates(d, card, median_value(shares.gemm), "the measured cards' median",
                      catalog.convolution_share);
  p.cuda = d;
  p.provenance = {{"gpu", card.gpu},
                  {"architecture", card.architecture},
                  {"tdp_watts", card.tdp_watts},
                  {"sources", card.sources},
                  {"derived", derivation_json(card, shares, top, host)}};
  if (!catalog.derivation.empty()) {
    Validation band = widest(catalog.derivation);
    band.note =
        "from a datasheet: the widest band of the measured cards each derived from its "
        "datasheet alone";
    if (!shares.same_architecture)
      band.note += "; this card's architecture (" + card.architecture +
                   ") is not one measured, so the band was never checked on it";
    p.validation[DeviceKind::kCuda] = band;
  }
  if (const auto cpu = host.validation.find(DeviceKind::kCpu); cpu != host.validation.end())
    p.validation[DeviceKind::kCpu] = cpu->second;
  return p;
}

}  // namespace crossover
