#pragma once
// How well a profile's predictions met measured cells: each cell's error and whether it lay
// inside its band, added up per device kind and per bound class; and the profile's validation
// fitted from them (`predict --check --fit-band`). No files and no pairing: `predict --check`
// (runner/commands/predict_command) reads the runs, pairs the cells and prints what these return.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/cells/modes.hpp"
#include "core/costmodel/bound.hpp"
#include "core/costmodel/machine_profile.hpp"
#include "core/costmodel/prediction_band.hpp"

namespace crossover {

/// Which cells a score adds up: one device kind, and one bound class or all of them (kNone).
struct ScoreKey {
  DeviceKind kind = DeviceKind::kCpu;
  Bound bound = Bound::kNone;

  /// "cuda", "cuda/dispatch": the keys of `predict --check --json`'s scores.
  std::string text() const;
  /// In the order of their texts, as `--json` has always listed them.
  friend bool operator<(const ScoreKey& a, const ScoreKey& b) { return a.text() < b.text(); }
};

/// What the cells of one key add up to.
struct Score {
  std::vector<double> errors;  ///< |predicted / measured - 1|
  int banded = 0, inside = 0;  ///< cells with a band, and inside it
};

using Scores = std::map<ScoreKey, Score>;

/// One predicted cell of `kind` bound by `bound`, `error` its predicted / measured - 1: added
/// to its kind's score and to its kind and bound's.
void add_score(Scores& scores, DeviceKind kind, Bound bound, double error, bool banded,
               bool inside);

nlohmann::ordered_json score_json(const Score& s);
/// "cuda 23.8 % (33 cells; 27 of 33 inside their band, 81.8 %)".
std::string score_text(DeviceKind kind, const Score& s);

/// `profile` with the validation these cells give it, per device kind that has a band: the
/// median error of its score, the band fitted on `cells` (split conformal: every bound class
/// together, and each class whose own band is narrower in cells than the kind's), its coverage
/// measured leave one run out, and `runs` as the runs that set it. Validations it had go.
MachineProfile fitted_profile(MachineProfile profile, const std::vector<BandCell>& cells,
                              const std::vector<std::string>& runs, const Scores& scores);

}  // namespace crossover
