#pragma once
// What crossover predict --check adds up over the runs it checked (runner/commands/predict_check):
// per cell the error and whether the measured epoch lies inside its band (added up by
// core/costmodel/scoring), the winner of every pair and the crossings, each scored as `run
// --predict` gives them (the CPU side measured here, the GPU side predicted with its band) and
// with both sides predicted. Here, not in core/costmodel, because pairs and crossings are the
// reports' (reports/analysis).

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/costmodel/scoring.hpp"
#include "core/records/results.hpp"
#include "core/text/words.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/render/table_writer.hpp"

namespace crossover {

/// One run's cells, each with its prediction.
struct Checked {
  std::string run;
  std::vector<Result> measured;   ///< the run's ok cells
  std::vector<Result> predicted;  ///< the same cells, their epochs the model's
  std::vector<Result> anatomy;    ///< the cells whose anatomy was taken here (--save-anatomy)
  std::string band;               ///< where its cells' bands came from (assign_bands), in words
};

/// Per cell of `c`: measured, predicted with its band, error, bound, as a row of `table` and as
/// JSON; each added into `scores` (add_score).
nlohmann::ordered_json score_cells(const Checked& c, TextTable& table, Scores& scores);

/// A predicted winner against the measured one: right, wrong, or undecided (the predicted
/// speedup's interval holds 1).
enum class Called { kRight, kWrong, kUndecided };

/// scores.json's pair `verdict`: "right", "wrong", "undecided".
inline constexpr auto words(Called) {
  return std::array{std::pair{Called::kRight, std::string_view("right")},
                    std::pair{Called::kWrong, std::string_view("wrong")},
                    std::pair{Called::kUndecided, std::string_view("undecided")}};
}

/// The winners of the pairs: right, wrong or undecided.
struct Winners {
  int right = 0, wrong = 0, undecided = 0;
  nlohmann::ordered_json pairs = nlohmann::ordered_json::array();

  nlohmann::ordered_json json() const;
  std::string text() const;  ///< "13 right, 0 wrong, 12 undecided"
};

/// Scores the winner of each of `c`'s pairs along `spec` twice: as run --predict decides it
/// (into `as_run`) and with both sides predicted (into `both`).
void score_winners(const Checked& c, const CompareSpec& spec, Winners& as_run, Winners& both);

/// The measured crossings and how the predictions placed them.
struct Crossings {
  int measured = 0;         ///< crossings the measured cells locate
  int within_two = 0;       ///< as run --predict places them: within a factor of 2
  int inside = 0;           ///< as run --predict prints them: inside the printed range
  int both_within_two = 0;  ///< with both sides predicted: within a factor of 2
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  std::string text;  ///< each crossover, measured and predicted, in words

  nlohmann::ordered_json json() const;
};

/// Scores the crossovers of `c` along each of `specs`.
void score_crossings(const Checked& c, const std::vector<CompareSpec>& specs, Crossings& out);

}  // namespace crossover
