#pragma once
// A grid's searches run: each line's probes measured as ordinary pairs of cells (through the
// sweep's own cell runner, so results.jsonl, the progress line and --resume see them as any
// cell), compared by the reports' one winner rule, until core/stats/search.hpp's search ends. No
// LibTorch in this header.

#include <atomic>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/records/results.hpp"
#include "core/stats/search.hpp"
#include "runner/grid/grid.hpp"

namespace crossover {

/// Measures cells (a probe's, those not measured before), returning their results in order.
using MeasureCells = std::function<std::vector<Result>(const std::vector<Cell>&)>;

/// The searches of a run.
class SearchRunner {
 public:
  /// `known`: results measured already (this run's cells, or those --resume kept); a probe whose
  /// cell has an ok result among them with the same identity keys reuses it. New cells get
  /// indices from `next_index` on.
  SearchRunner(std::vector<SearchLine> lines, const std::vector<Result>& known,
               std::size_t next_index);

  /// Runs every line's search to its end. After each probe `after_probe` gets json(); an
  /// interruption (`interrupted` > 0) stops the searches with that reason.
  void run(const MeasureCells& measure,
           const std::function<void(const nlohmann::ordered_json&)>& after_probe,
           const std::atomic<int>* interrupted = nullptr);

  /// Per line: its experiment, the fixed axes, the contenders, and its search (searches.json).
  nlohmann::ordered_json json() const;
  /// The results this runner measured, in the order measured.
  const std::vector<Result>& measured() const { return measured_; }

 private:
  bool probe(std::size_t line, double value, const MeasureCells& measure);
  /// Why the crossing line `line` bracketed may not hold: the bracketing cells that varied by
  /// more than a third of their median; "" when none did.
  std::string uncertainty(std::size_t line) const;

  std::vector<SearchLine> lines_;
  std::vector<CrossoverSearch> searches_;
  std::map<std::string, Result> known_;  ///< ok (or predicted) results by identity keys
  /// Per line: a probe had a predicted side (run --predict): its statement says so.
  std::vector<std::string> predicted_with_;
  std::vector<Result> measured_;
  std::size_t next_index_;
};

}  // namespace crossover
