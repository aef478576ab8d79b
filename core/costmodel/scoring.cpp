#include "core/costmodel/scoring.hpp"

#include <cmath>

#include "core/stats/stats.hpp"
#include "core/text/text.hpp"

namespace crossover {

std::string ScoreKey::text() const {
  return bound == Bound::kNone ? text_of(kind) : text_of(kind) + "/" + text_of(bound);
}

void add_score(Scores& scores, DeviceKind kind, Bound bound, double error, bool banded,
               bool inside) {
  for (const ScoreKey& key : {ScoreKey{kind, Bound::kNone}, ScoreKey{kind, bound}}) {
    Score& s = scores[key];
    s.errors.push_back(std::abs(error));
    s.banded += banded ? 1 : 0;
    s.inside += inside ? 1 : 0;
  }
}

nlohmann::ordered_json score_json(const Score& s) {
  nlohmann::ordered_json j = {{"cells", s.errors.size()},
                              {"median_abs_error", summarize(s.errors).median}};
  if (s.banded > 0) {
    j["band_cells"] = s.banded;
    j["band_inside"] = s.inside;
    j["band_coverage"] = static_cast<double>(s.inside) / s.banded;
  }
  return j;
}

std::string score_text(DeviceKind kind, const Score& s) {
  std::string text = text_of(kind) + " " + format_percent(summarize(s.errors).median, false) +
                     " (" + std::to_string(s.errors.size()) + " cells";
  if (s.banded > 0)
    text += "; " + std::to_string(s.inside) + " of " + std::to_string(s.banded) +
            " inside their band, " +
            format_percent(static_cast<double>(s.inside) / s.banded, false);
  return text + ")";
}

MachineProfile fitted_profile(MachineProfile profile, const std::vector<BandCell>& cells,
                              const std::vector<std::string>& runs, const Scores& scores) {
  profile.validation.clear();
  for (const auto& [key, s] : scores) {
    if (key.bound != Bound::kNone) continue;
    Validation v;
    v.median_abs_error = summarize(s.errors).median;
    v.band = band_without(cells, "", key.kind, Bound::kNone);
    v.runs = runs;
    for (const auto& [other, t] : scores) {
      if (other.kind != key.kind || other.bound == Bound::kNone) continue;
      if (const PredictionBand b = band_without(cells, "", key.kind, other.bound);
          b.factor > 0.0 && b.cells < v.band.cells)
        v.by_bound[other.bound] = b;
    }
    v.coverage_method = kLeaveOneRunOut;
    v.coverage = leave_one_run_out(cells, key.kind);
    if (v.band.factor > 0.0) profile.validation[key.kind] = v;
  }
  return profile;
}

}  // namespace crossover
