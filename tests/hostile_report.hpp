#pragma once
// report.html from results whose every free-text field is a string chosen by an attacker (a
// results file is user input): the workload, the compared values, a failed cell's reason, the
// metric, the title, the description, warnings and environment lines. The cells form a crossover,
// so the charts, their labels and their attributes are all drawn. Shared by the report tests and
// the HTML fuzz target.

#include <string>
#include <vector>

#include "reports/render/report_html.hpp"

namespace crossover::testing {

/// `text` with every byte that does not belong to a well-formed UTF-8 sequence replaced by '?':
/// strings in a results file are UTF-8 (its JSON parser refuses anything else), so the report's
/// inputs are too.
inline std::string valid_utf8(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = byte < 0x80                    ? 1
                               : byte >= 0xC2 && byte <= 0xDF ? 2
                               : byte >= 0xE0 && byte <= 0xEF ? 3
                               : byte >= 0xF0 && byte <= 0xF4 ? 4
                                                              : 0;
    bool ok = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; ok && k < length; ++k)
      ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok && length == 3) {  // no overlong forms, no surrogates
      const auto next = static_cast<unsigned char>(text[i + 1]);
      ok = !(byte == 0xE0 && next < 0xA0) && !(byte == 0xED && next >= 0xA0);
    }
    if (ok && length == 4) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      ok = !(byte == 0xF0 && next < 0x90) && !(byte == 0xF4 && next >= 0x90);
    }
    if (!ok) {
      out += '?';
      ++i;
      continue;
    }
    out.append(text, i, length);
    i += length;
  }
  return out;
}

/// The page for cells whose strings are taken in turn from `strings` (cycled; "x" when empty).
inline std::string hostile_report(const std::vector<std::string>& strings) {
  std::size_t next = 0;
  const auto take = [&]() -> std::string {
    return strings.empty() ? std::string("x") : valid_utf8(strings[next++ % strings.size()]);
  };
  const std::string workload = take();
  const std::string baseline = take();
  std::string contender = take();
  if (contender == baseline) contender += "2";  // two sides to compare
  const std::string metric = take();
  std::vector<Result> results;
  const double sizes[] = {100, 1000, 10000};
  for (std::size_t k = 0; k < 3; ++k) {
    for (int side = 0; side < 2; ++side) {
      Result r;
      r.cell.index = results.size();
      r.cell.workload = workload;
      r.cell.dataset = side == 0 ? baseline : contender;  // a free-text axis
      r.cell.dataset_size = static_cast<std::int64_t>(sizes[k]);
      r.metric = metric;
      const double median = side == 0 ? 0.001 * sizes[k] / 100 : 0.004 + 0.0001 * sizes[k] / 100;
      r.epoch_seconds = median;
      r.epoch_seconds_ci_low = median * 0.95;
      r.epoch_seconds_ci_high = median * 1.05;
      r.samples_per_second = sizes[k] / median;
      for (int i = 0; i < 11; ++i) r.epoch_seconds_samples.push_back(median * (1 + 0.01 * (i - 5)));
      results.push_back(r);
    }
  }
  Result failed;
  failed.cell.index = results.size();
  failed.cell.workload = take();
  failed.cell.dataset = take();
  failed.status = CellStatus::kFailed;
  failed.reason = take();
  results.push_back(failed);

  ReportContext context;
  context.title = take();
  context.description = take();
  context.warnings = {take(), take()};
  context.environment = {take(), take()};
  CompareSpec spec;
  spec.axis = "dataset";
  spec.baseline = baseline;
  spec.contender = contender;
  const auto pairs = pair_results(results, spec);
  const auto crossovers = find_crossovers(pairs, spec);
  return render_html(context, results, spec, pairs, crossovers,
                     recommend(results, spec, crossovers));
}

}  // namespace crossover::testing
