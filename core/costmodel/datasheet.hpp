#pragma once
// A GPU's published figures and the profile derived from them, for the GPUs nobody here has
// measured: "which GPU would beat my CPU, and at what price". A datasheet gives the throughput,
// the memory's bandwidth, the host link and the power; the terms no datasheet gives (the host's
// cost per operator, a synchronisation, the loader) and how far a card reaches its peaks are
// taken from the cards that were measured (profiles/), with their spread. The catalog is a user
// file, read as one: every figure checked and named by its source. No LibTorch.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/costmodel/machine_profile.hpp"

namespace crossover {

/// One GPU's published figures (profiles/datasheets/catalog.json), each in SI units.
struct Datasheet {
  std::string name;          ///< how a command line names it: "l4", "a100-sxm"
  std::string gpu;           ///< "NVIDIA L4"
  std::string architecture;  ///< "Ada Lovelace", "Hopper"
  std::string measured;      ///< the shipped profile that measured this card ("" for none)
  double fp32_flops_per_second = 0.0;  ///< FP32 without tensor cores: what a float32 step runs at
  double tf32_flops_per_second = 0.0;  ///< TF32 tensor cores, dense (0: not given)
  double bf16_flops_per_second = 0.0;  ///< BF16 tensor cores, dense (0: not given)
  double memory_bytes = 0.0;
  double memory_bytes_per_second = 0.0;
  int pcie_generation = 0;  ///< 3, 4, 5
  int pcie_lanes = 0;       ///< 16
  double tdp_watts = 0.0;
  /// Each figure's source ("fp32_tflops": "the NVIDIA L4 datasheet, as reproduced at URL, read
  /// 2026-11-28"), as the catalog gives it.
  nlohmann::ordered_json sources;

  /// The host link's rate in one direction, from the PCIe generation and lanes: 8, 16 and 32 GT/s
  /// a lane for generations 3, 4 and 5, 128b/130b encoded.
  double host_link_bytes_per_second() const;
};

/// The catalog: every card, and the band the derivation earned where it could be checked.
struct DatasheetCatalog {
  std::vector<Datasheet> cards;
  /// The derivation's validations: each measured card derived from its datasheet alone and
  /// scored on its own runs (`predict --check ... --fit-band`), by the card's name.
  std::map<std::string, Validation> derivation;
  /// Example prices per hour by GPU name, to show `catalog --example-prices`'s columns, and what
  /// they are ("about"): examples, never quotes.
  std::map<std::string, double> example_prices;
  std::string example_prices_about;
  /// The share of a card's peak (in the math it runs in) that a convolution reaches, measured on
  /// real runs (`about` says which), for every card; 0: none given, convolutions cost as products.
  double convolution_share = 0.0;
  std::string convolution_share_about;
  const Datasheet* find(const std::string& name) const;
};

/// The catalog from its JSON; throws std::runtime_error naming the card and field that is missing,
/// out of range, or whose source is not named.
DatasheetCatalog catalog_from_json(const nlohmann::ordered_json& json);

/// A measured card with its datasheet: how far it reaches its published peaks.
struct MeasuredCard {
  MachineProfile profile;
  Datasheet sheet;
};

/// The profile of `card` from its datasheet and the cards in `measured` other than itself (a card
/// is never derived from its own measurement, so that deriving a measured card checks the
/// derivation). docs/gpu.md gives the rule:
/// - a matrix product of n: the measured cards' time for it less its work at their top rate (the
///   fixed part: launch, tiles), plus its work at `card`'s FP32 peak times the measured cards'
///   share of their peak;
/// - memory: the datasheet's bandwidth times the measured cards' share of theirs; the host link
///   likewise (pinned); pageable copies no faster than the measured hosts' nor the link;
/// - per operator, a synchronisation, a replayed graph's operator, the host's CPU: the measured
///   cards' (the median where there are several).
/// Its band for CUDA cells is the widest of `catalog.derivation`'s, and its CPU's band its host's;
/// its validation's note says when its architecture is not one measured. Throws
/// std::runtime_error when no other measured card has a GPU.
MachineProfile datasheet_profile(const Datasheet& card, const std::vector<MeasuredCard>& measured,
                                 const DatasheetCatalog& catalog);

/// A GPU's rates by precision from `card`'s peaks: its TF32 and BF16 matrix products at `share`
/// (a measured share of the FP32 peak, said to be `whose`), its convolutions in FP32, TF32 and
/// BF16 at `convolution_share` of each peak (none where 0); where they came from in
/// gpu.tensor_source. A peak the card does not give stays 0.
void borrow_tensor_rates(DeviceProfile& gpu, const Datasheet& card, double share,
                         const std::string& whose, double convolution_share);
/// A measured card's profile with no such rates of its own: its datasheet's, at the share of its
/// FP32 peak it measured.
void borrow_own_tensor_rates(MachineProfile& profile, const Datasheet& card,
                             double convolution_share);

/// " (from its datasheet)": what a derived profile's name ends with, so that every output that
/// names the profile of a prediction says where it came from.
inline constexpr const char* kDatasheetSuffix = " (from its datasheet)";

}  // namespace crossover
