#include "reports/analysis/energy_and_cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/text/text.hpp"

namespace crossover {

bool has_measure(const Result& r, Measure measure) {
  if (r.status != CellStatus::kOk) return false;
  if (measure == Measure::kEnergy) return r.energy.measured();
  if (measure == Measure::kCost) return r.price_per_hour > 0.0;
  return true;
}

namespace {

// A field in another measure, by its unit: an epoch's time times `per_second` (watts, or money
// per second), a rate per second divided by it; false when a value overflowed.
bool convert(double& value, Unit unit, double per_second) {
  if (unit == Unit::kEpochSeconds || unit == Unit::kEpochSamples) value *= per_second;
  if (unit == Unit::kPerSecond) value /= per_second;
  return std::isfinite(value);
}
bool convert(std::vector<double>& values, Unit unit, double per_second) {
  bool finite = true;
  for (double& value : values) finite &= convert(value, unit, per_second);
  return finite;
}
template <typename Other>
bool convert(Other&, Unit, double) {
  return true;
}

}  // namespace

std::vector<Result> in_measure(const std::vector<Result>& results, Measure measure) {
  std::vector<Result> out = results;
  for (Result& r : out) {
    if (r.status != CellStatus::kOk) continue;
    if (!has_measure(r, measure)) {
      r.status = CellStatus::kSkipped;
      r.reason = "no " + text_of(measure) + " measured";
      continue;
    }
    const double per_second = measure == Measure::kEnergy ? r.energy.mean_watts
                              : measure == Measure::kCost ? r.price_per_hour / 3600.0
                                                          : 1.0;
    // Every field whose unit is an epoch's time or a rate (core/records/results.hpp).
    bool finite = true;
#define CROSSOVER_CONVERT_FIELD_AT(P, type, name, member, unit) \
  finite &= convert(r.P member, Unit::unit, per_second);
#define CROSSOVER_CONVERT_FIELD(P, type, name, unit) \
  CROSSOVER_CONVERT_FIELD_AT(P, type, name, name, unit)
    CROSSOVER_RESULT_FIELDS(CROSSOVER_CONVERT_FIELD)
#undef CROSSOVER_CONVERT_FIELD
#undef CROSSOVER_CONVERT_FIELD_AT
    // A power or price so large that its product overflows (an edited results file) is no
    // measurement to compare.
    if (!finite) {
      r.status = CellStatus::kSkipped;
      r.reason = text_of(measure) + " out of range";
    }
  }
  return out;
}

std::string measure_words(Measure measure) {
  if (measure == Measure::kEnergy) return "on energy (joules per epoch)";
  if (measure == Measure::kCost) return "on cost (money per epoch)";
  return "on time";
}

std::string format_measure(double value, Measure measure) {
  if (measure == Measure::kTime) return format_seconds(value);
  if (measure == Measure::kCost) return format_number(value);
  char buffer[64];
  if (!std::isfinite(value)) return "-";
  if (value < 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.3g uJ", value * 1e6);
  } else if (value < 1.0) {
    std::snprintf(buffer, sizeof buffer, "%.3g mJ", value * 1e3);
  } else if (value < 1e4) {
    std::snprintf(buffer, sizeof buffer, "%.3g J", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g kJ", value * 1e-3);
  }
  return buffer;
}

std::string measure_noun(Measure measure) {
  return measure == Measure::kTime ? "epoch time" : text_of(measure) + " per epoch";
}

std::string throughput_text(double samples_per_unit, Measure measure) {
  const std::string per = measure == Measure::kEnergy ? "samples/J"
                          : measure == Measure::kCost ? "samples per unit of money"
                                                      : "samples/s";
  return format_number(samples_per_unit) + " " + per;
}

namespace {

// A note from a results file as prose: printable ASCII without Markdown's or HTML's marks.
std::string plain(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool printable =
        c >= ' ' && c <= '~' && std::string("<>|`*[]&").find(c) == std::string::npos;
    out += printable ? c : ' ';
  }
  return out;
}

}  // namespace

std::string counted_summary(const std::vector<Result>& results) {
  std::vector<std::string> counters;
  std::size_t counted = 0;
  for (const Result& r : results) {
    if (r.status != CellStatus::kOk || !r.counts.counted()) continue;
    ++counted;
    const std::string by =
        r.counts.counter + " (" + r.counts.counter_version + ", " + r.counts.counted_isa + ")";
    if (std::find(counters.begin(), counters.end(), by) == counters.end()) counters.push_back(by);
  }
  if (counted == 0) return "";
  return "counted: " + std::to_string(counted) + " cell(s), by " + join(counters) +
         "; their epoch times were taken under the counter, not the code's: gate on their "
         "counts (compare --metric instructions; results.jsonl's instructions_per_epoch)";
}

std::string energy_summary(const std::vector<Result>& results) {
  // One group per source, in the order first seen; its cells' notes, in the order first seen.
  struct Group {
    EnergySource source = EnergySource::kNone;
    std::vector<std::string> notes;
    std::size_t cells = 0;
  };
  std::vector<Group> groups;
  std::size_t measured = 0;
  for (const Result& r : results) {
    // Results written before crossover measured energy carry no source: nothing to say of them.
    if (r.status != CellStatus::kOk || r.energy.energy_source == EnergySource::kNone) continue;
    measured += has_measure(r, Measure::kEnergy);
    const EnergySource source = r.energy.energy_source;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.source == source; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{source, {}, 0});
    ++it->cells;
    const std::string note = plain(r.energy.energy_note);
    if (!note.empty() && std::find(it->notes.begin(), it->notes.end(), note) == it->notes.end())
      it->notes.push_back(note);
  }
  if (groups.empty()) return "";
  std::vector<std::string> parts;
  for (const Group& g : groups) {
    // Notes that differ from cell to cell (a count, a span) are each cell's energy_note: the line
    // quotes the first, so that it stays one line however many cells there are.
    const std::string note =
        g.notes.empty()       ? ""
        : g.notes.size() == 1 ? " (" + g.notes.front() + ")"
                              : " (each cell's energy_note says why, e.g. " + g.notes.front() + ")";
    parts.push_back(measured == 0 && g.source == EnergySource::kUnavailable
                        ? note.empty() ? std::string() : note.substr(1)
                        : std::to_string(g.cells) + (g.cells == 1 ? " cell " : " cells ") +
                              text_of(g.source) + note);
  }
  return "energy: " + (measured == 0 ? "not measured " + join(parts, "; ") +
                                           "; docs/energy.md says where it can be"
                                     : join(parts, "; "));
}

std::string statement_in(const std::string& statement, Measure measure) {
  if (measure == Measure::kTime) return statement;
  std::string out = statement;
  for (std::size_t at = out.find("speedup "); at != std::string::npos;
       at = out.find("speedup ", at))
    out.replace(at, 8, "ratio ");
  return out;
}

std::vector<std::string> measure_statements(const ComparisonFindings& f) {
  std::vector<std::string> out;
  for (const auto& [measure, crossovers] : f.by_measure) {
    for (const Crossover& c : crossovers)
      out.push_back(c.workload + ": " + measure_words(measure) + ", " + c.statement);
  }
  return out;
}

std::vector<std::string> pair_verdicts(const ComparisonFindings& f) {
  const CompareSpec& spec = f.spec;
  std::set<std::string> crossed;
  for (const auto& c : f.crossovers) crossed.insert(c.workload);
  std::vector<std::string> out;
  for (const Pair& p : f.pairs) {
    if (crossed.count(p.baseline->cell.workload) != 0) continue;
    const std::string better =
        spec.measure == Measure::kTime ? " faster" : " needs less " + text_of(spec.measure);
    const std::string verdict = p.winner == Winner::kTie
                                    ? (p.predicted ? "undecided (the band allows a tie)" : "a tie")
                                : p.winner == Winner::kContender ? spec.contender + better
                                                                 : spec.baseline + better;
    out.push_back(cell_label(p.contender->cell) + predicted_mark(*p.contender) + ": " +
                  speedup_text(p) + " against " + spec.baseline + predicted_mark(*p.baseline) +
                  ", " + verdict + (p.predicted ? ", predicted, not measured" : ""));
  }
  return out;
}

nlohmann::ordered_json measures_json(const ComparisonFindings& f) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [measure, crossovers] : f.by_measure) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Crossover& c : crossovers) {
      list.push_back({{"workload", c.workload},
                      {"axis", c.axis},
                      {"from", c.from ? nlohmann::ordered_json(*c.from) : nullptr},
                      {"crossing", c.crossing ? nlohmann::ordered_json(*c.crossing) : nullptr},
                      {"statement", c.statement},
                      {"cells", c.cells}});
    }
    out[text_of(measure)] = list;
  }
  return out;
}

std::vector<std::pair<Measure, std::vector<Crossover>>> crossovers_by_measure(
    const std::vector<Result>& results, CompareSpec spec) {
  std::vector<std::pair<Measure, std::vector<Crossover>>> out;
  const Measure own = spec.measure;
  for (const auto& entry : words(Measure{})) {
    const Measure measure = entry.first;
    const bool measured = std::any_of(results.begin(), results.end(),
                                      [&](const Result& r) { return has_measure(r, measure); });
    if (measure == own || !measured) continue;
    spec.measure = measure;
    const std::vector<Result> seen = in_measure(results, measure);
    auto crossovers = find_crossovers(pair_results(seen, spec), spec);
    if (!crossovers.empty()) out.emplace_back(measure, std::move(crossovers));
  }
  return out;
}

}  // namespace crossover
