#include "reports/analysis/mode_effects.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/cells/keys.hpp"
#include "core/text/text.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// `key` less the mode keys and `drop`: cells whose keys are equal in this differ in mode alone.
std::string without_mode(Json key, const std::vector<std::string>& drop = {}) {
  for (const auto& k : mode_keys()) key.erase(k);
  for (const auto& k : drop) key.erase(k);
  return key.dump();
}

template <typename T>
void add_once(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

const std::vector<std::string>& mode_keys() {
  static const std::vector<std::string> keys = mode_key_names();
  return keys;
}

std::string mode_text(const Cell& cell) {
  return text_of(cell.execution) + ", " + text_of(cell.optimizer_impl) + ", " +
         text_of(cell.precision);
}

namespace {

// Where the comparison is itself between modes (precision=fp32:bf16) and its crossover on
// `device` was measured, the recommendation that follows: "fp32 below dataset_size ~1,643, bf16
// from 1,704 on"; "" where there is none.
std::string mode_crossover(const std::vector<Result>& results, const Device& device,
                           const CompareSpec& spec, const std::vector<Crossover>& crossovers) {
  if (std::find(mode_keys().begin(), mode_keys().end(), spec.axis) == mode_keys().end()) return "";
  for (const Crossover& c : crossovers) {
    if (!c.from || !(c.crossing_low || c.crossing) || c.cells.empty()) continue;
    const auto cell = std::find_if(results.begin(), results.end(),
                                   [&c](const Result& r) { return r.cell.index == c.cells[0]; });
    if (cell == results.end() || cell->cell.device != device) continue;
    const double below = c.crossing ? *c.crossing : *c.crossing_low;
    return spec.axis + " on " + device.text() + ": " + spec.baseline + " below " + c.axis + " ~" +
           format_axis_value(std::round(below)) + ", " + spec.contender + " from " +
           format_axis_value(*c.from) + " on (the crossover: " + c.statement + ")";
  }
  return "";
}

// The fastest mode on each device: each mode against the device's first, over cells equal in
// everything else. A mean over a crossing is no recommendation: where the faster mode changes
// from pair to pair, the crossover is the recommendation, or the split is said as it is.
void fastest_modes(const std::vector<Result>& results, const std::string& workload,
                   const CompareSpec& spec, const std::vector<Crossover>& crossovers,
                   std::vector<Recommendation>& out) {
  std::vector<Device> devices;
  for (const Result& r : results) add_once(devices, r.cell.device);
  for (const Device& device : devices) {
    std::vector<std::string> modes;
    std::map<std::string, std::map<std::string, const Result*>> by_mode;  // mode -> rest -> cell
    for (const Result& r : results) {
      if (r.cell.device != device) continue;
      add_once(modes, mode_text(r.cell));
      by_mode[mode_text(r.cell)][without_mode(cell_identity_json(r.cell))] = &r;
    }
    if (modes.size() < 2) continue;
    // Each mode against the device's first, over cells equal in everything else.
    struct Versus {
      std::string mode;
      double ratio = 0.0;  ///< the first mode's epoch time / this mode's (geometric mean)
      std::size_t count = 0;
      std::size_t faster = 0;  ///< pairs in which this mode was the faster
      std::vector<std::size_t> cells;
    };
    const auto& first = by_mode[modes.front()];
    std::vector<Versus> versus;
    for (std::size_t m = 1; m < modes.size(); ++m) {
      Versus v;
      v.mode = modes[m];
      double log_sum = 0.0;
      for (const auto& [rest, r] : by_mode[modes[m]]) {
        const auto base = first.find(rest);
        if (base == first.end()) continue;
        log_sum += std::log(base->second->epoch_seconds / r->epoch_seconds);
        ++v.count;
        if (r->epoch_seconds < base->second->epoch_seconds) ++v.faster;
        v.cells.push_back(base->second->cell.index);
        v.cells.push_back(r->cell.index);
      }
      if (v.count == 0) continue;
      v.ratio = std::exp(log_sum / static_cast<double>(v.count));
      versus.push_back(v);
    }
    if (versus.empty()) continue;
    const Versus& best =
        *std::max_element(versus.begin(), versus.end(),
                          [](const auto& a, const auto& b) { return a.ratio < b.ratio; });
    // A mean hides a crossover between modes: say in how many pairs the faster one was faster.
    const bool ahead = best.ratio > 1.0;
    const std::size_t wins = ahead ? best.faster : best.count - best.faster;
    if (wins < best.count) {
      const std::string crossing = mode_crossover(results, device, spec, crossovers);
      out.push_back({workload,
                     !crossing.empty()
                         ? crossing
                         : "no mode is fastest throughout on " + device.text() + ": " +
                               (ahead ? best.mode : modes.front()) + " faster in " +
                               std::to_string(wins) + " of " + std::to_string(best.count) +
                               " pair(s) of cells equal in everything else, " +
                               (ahead ? modes.front() : best.mode) + " in the rest",
                     best.cells});
      continue;
    }
    const std::string evidence = ", geometric mean of " + std::to_string(best.count) +
                                 " pair(s) of cells equal in everything else; faster in " +
                                 std::to_string(wins) + ")";
    out.push_back({workload,
                   ahead
                       ? "fastest mode on " + device.text() + ": " + best.mode + " (" +
                             format_number(best.ratio) + "x faster than " + modes.front() + evidence
                       : "fastest mode on " + device.text() + ": " + modes.front() + " (" +
                             format_number(1.0 / best.ratio) + "x faster than the next, " +
                             best.mode + evidence,
                   best.cells});
  }
}

// Whether the crossover moves with the mode: crossovers along one axis, equal but in mode.
void crossovers_by_mode(const std::vector<Result>& results, const std::string& workload,
                        const CompareSpec& spec, const std::vector<Crossover>& crossovers,
                        std::vector<Recommendation>& out) {
  std::map<std::string, std::vector<const Crossover*>> groups;
  std::vector<std::string> order;
  // A crossover's cells alternate baseline and contender; the contender's mode names it (a CPU
  // baseline pairs with CUDA cells of every execution).
  const auto contender = [&results](const Crossover& c) -> const Cell* {
    if (c.cells.size() < 2) return nullptr;
    const auto r = std::find_if(results.begin(), results.end(),
                                [&c](const Result& x) { return x.cell.index == c.cells[1]; });
    return r == results.end() ? nullptr : &r->cell;
  };
  for (const Crossover& c : crossovers) {
    const Cell* cell = c.workload == workload ? contender(c) : nullptr;
    if (cell == nullptr) continue;
    auto key = pairing_key(*cell, spec.axis);
    if (!spec.machines_apart) key.erase("host");
    const std::string group = c.axis + " " + without_mode(key, {c.axis});
    add_once(order, group);
    groups[group].push_back(&c);
  }
  for (const std::string& group : order) {
    const auto& members = groups[group];
    if (members.size() < 2) continue;
    std::vector<std::string> parts;
    std::vector<std::size_t> cells;
    for (const Crossover* c : members) {
      parts.push_back(mode_text(*contender(*c)) + ": " +
                      (c->from ? "from " + c->axis + " " + format_axis_value(*c->from)
                               : std::string("no crossover measured")));
      cells.insert(cells.end(), c->cells.begin(), c->cells.end());
    }
    out.push_back({members.front()->workload,
                   "the crossover along " + members.front()->axis + " moves with the mode (" +
                       spec.axis + "=" + spec.contender + " wins " + join(parts, "; ") + ")",
                   cells});
  }
}

}  // namespace

std::vector<Recommendation> mode_findings(const std::vector<Result>& results,
                                          const CompareSpec& spec,
                                          const std::vector<Crossover>& crossovers) {
  std::vector<Recommendation> out;
  if (results.empty()) return out;
  const std::string& workload = results.front().cell.workload;
  if (spec.measure == Measure::kTime)  // a matter of speed
    fastest_modes(results, workload, spec, crossovers, out);
  crossovers_by_mode(results, workload, spec, crossovers, out);
  return out;
}

}  // namespace crossover
