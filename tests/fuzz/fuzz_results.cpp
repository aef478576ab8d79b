// Fuzzes the results.jsonl reader, and what `report` and `compare` do with what it returns (a
// results file is user input: a stored baseline, a file edited by hand). A malformed file must be
// a std::runtime_error naming the file and line.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/records/result_files.hpp"
#include "core/records/results.hpp"
#include "reports/gate/regression.hpp"
#include "reports/render/report_markdown.hpp"
#include "tests/fuzz/fuzz_input.hpp"

// The reader's warning for a cut-off last line would flood the fuzzer's output.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = crossover::fuzz::write_input(data, size);
  std::vector<crossover::Result> results;
  try {
    results = crossover::read_results(path);
  } catch (const std::runtime_error&) {
    return 0;
  }
  (void)crossover::render_markdown(crossover::ReportContext{}, results);
  (void)crossover::render_csv(results);
  (void)crossover::render_comparison_text(results);
  // Each half of the file as one side of a comparison.
  const auto middle = results.begin() + static_cast<std::ptrdiff_t>(results.size() / 2);
  const crossover::RegressionReport report =
      crossover::compare_runs({results.begin(), middle}, {middle, results.end()}, {});
  (void)crossover::render_regression_markdown(report);
  return 0;
}
