#pragma once
// A crossover found rather than gridded: a search along one numeric axis for the value where the
// contender starts to beat the baseline, as a root-finding problem on log(speedup). The search
// decides where to probe next from the probes so far; measuring a probe (a pair of cells) is the
// caller's. No LibTorch, no I/O.

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/stats/crossing.hpp"
#include "core/text/problem.hpp"
#include "core/text/words.hpp"

namespace crossover {

/// How a search places its probes along the axis: "log" (the default) or "linear", as grids and
/// searches.json write it.
enum class SearchScale { kLog, kLinear };

inline constexpr auto words(SearchScale) {
  return std::array{std::pair{SearchScale::kLog, std::string_view("log")},
                    std::pair{SearchScale::kLinear, std::string_view("linear")}};
}

/// An axis given as `{"search": {...}}` in a grid.
struct SearchSpec {
  std::string key;  ///< the numeric identity key searched ("dataset_size", "width", ...)
  double from = 0.0, to = 0.0;
  double precision = 0.1;  ///< stop when the bracket's high end is within this of its low end
  int max_probes = 8;      ///< probes (pairs of cells) at most, the two ends included
  SearchScale scale = SearchScale::kLog;    ///< kLog: bisect and interpolate on log(value)
  bool integer = true;                      ///< probe integer values only (the key takes integers)
  std::string compare = "device=cpu:cuda";  ///< the contenders, as `--compare` takes them
};

/// How a search ended.
enum class SearchOutcome {
  kRunning,
  kCrossing,     ///< the winner changes once, bracketed within precision (or adjacent integers)
  kTieRegion,    ///< between the two sides' regions lies one where neither wins; its edges
                 ///< bracketed within precision
  kBudgetSpent,  ///< max_probes measured before every bracket was within precision
  kNoCrossover,  ///< the same outcome at both ends
  kStopped,      ///< a probe could not be measured
};

/// "running", "crossing", "tie-region", "budget-spent", "no-crossover", "stopped": searches.json's.
inline constexpr auto words(SearchOutcome) {
  return std::array{std::pair{SearchOutcome::kRunning, std::string_view("running")},
                    std::pair{SearchOutcome::kCrossing, std::string_view("crossing")},
                    std::pair{SearchOutcome::kTieRegion, std::string_view("tie-region")},
                    std::pair{SearchOutcome::kBudgetSpent, std::string_view("budget-spent")},
                    std::pair{SearchOutcome::kNoCrossover, std::string_view("no-crossover")},
                    std::pair{SearchOutcome::kStopped, std::string_view("stopped")}};
}

/// The search's state: the probes so far, where to probe next, and what it found.
class CrossoverSearch {
 public:
  /// `baseline` and `contender` name the sides in statements ("cpu", "cuda").
  CrossoverSearch(SearchSpec spec, std::string baseline, std::string contender);

  /// The value to measure next; none when the search has ended.
  std::optional<double> next() const;
  /// Adds the measured probe at the value next() gave.
  void record(Probe probe);
  /// Ends the search: a probe could not be measured (`why` names the cell and its reason).
  void stop(const std::string& why);

  SearchOutcome outcome() const { return outcome_; }
  const SearchSpec& spec() const { return spec_; }
  const std::vector<Probe>& probes() const { return probes_; }  ///< in the order measured
  /// From the lowest to the highest value where the winner changes: around the crossing, or
  /// around the tie region with its edges; none when it does not change.
  std::optional<std::pair<double, double>> bracket() const;
  /// What the search found, in plain words.
  std::string statement() const;
  /// The spec, the probes in order, the bracket after each probe, the outcome and statement.
  nlohmann::ordered_json to_json() const;

 private:
  /// The probes in ascending value, and the crossing rule over them (core/stats/crossing.hpp).
  std::vector<Probe> by_value() const;
  CrossingFinding finding() const;
  /// Two probes adjacent in value whose winners differ: where the winner changes.
  struct Boundary {
    const Probe* low = nullptr;
    const Probe* high = nullptr;
  };
  std::vector<Boundary> boundaries() const;
  bool resolved(const Boundary& b) const;  ///< within precision, or adjacent integers
  std::optional<Boundary> widest_open() const;
  void settle();
  double position(double value) const;  ///< log(value) or value
  double at(double position) const;     ///< the inverse, rounded to an integer where asked
  /// The next value, and whether it aims beside a guess; none when no value is left.
  std::optional<std::pair<double, bool>> plan() const;
  double width_ratio(double low, double high) const;
  std::string found() const;  ///< the crossing or tie region as far as the probes tell

  SearchSpec spec_;
  std::string baseline_, contender_;
  std::vector<Probe> probes_;
  std::vector<std::pair<double, double>> trace_;  ///< the bracket after each probe (0,0: none)
  SearchOutcome outcome_ = SearchOutcome::kRunning;
  std::string stop_reason_;
  int same_side_ = 0;   ///< probes in a row that took the same end's place (Illinois' rule)
  int last_side_ = 0;   ///< -1: the low end's, +1: the high end's, 0: neither (a tie between)
  bool aimed_ = false;  ///< the last probe aimed just below a guess of the crossing
  std::vector<double> widths_;  ///< the widest open bracket's width after each probe
};

/// What makes a searches.json unfit for the reports (a missing or mistyped field).
Found searches_problem(const nlohmann::ordered_json& searches);

}  // namespace crossover
