#include "reports/measures.hpp"

namespace crossover {

bool has_measure(const Result& r, const std::string& measure) {
  if (r.status != CellStatus::kOk) return false;
  if (measure == "energy") return r.energy_source != "unavailable" && r.mean_watts > 0.0;
  if (measure == "cost") return r.price_per_hour > 0.0;
  return true;
}

std::vector<Result> in_measure(const std::vector<Result>& results, const std::string& measure) {
  std::vector<Result> out = results;
  for (Result& r : out) {
    if (r.status != CellStatus::kOk) continue;
    if (!has_measure(r, measure)) {
      r.status = CellStatus::kSkipped;
      r.reason = "no " + measure + " measured";
      continue;
    }
    const double per_second = measure == "energy" ? r.mean_watts
                              : measure == "cost" ? r.price_per_hour / 3600.0
                                                  : 1.0;
    r.epoch_seconds *= per_second;
    for (double& s : r.epoch_seconds_samples) s *= per_second;
  }
  return out;
}

std::string measure_words(const std::string& measure) {
  if (measure == "energy") return "on energy (joules per epoch)";
  if (measure == "cost") return "on cost (money per epoch)";
  return "on time";
}

}  // namespace crossover
