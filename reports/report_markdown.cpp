#include "reports/report_markdown.hpp"

#include <algorithm>

#include "reports/comparison.hpp"
#include "runner/text.hpp"
#include "workloads/catalog.hpp"

namespace crossover {
namespace {

TextTable cell_table(const std::vector<Result>& results, const std::string& workload) {
  TextTable t;
  t.header = {"#",    "device",       "batch", "rows",       "data path", "threads", "status",
              "data", "epoch median", "IQR",   "train time", "samples/s", "loss",    "metric"};
  t.right_aligned = {true,  false, true, true, false, true, false,
                     false, true,  true, true, true,  true, true};
  for (const auto& r : results) {
    if (r.cell.workload != workload) continue;
    const bool ok = r.status == "ok";
    t.rows.push_back({
        std::to_string(r.cell.index),
        device_column(r.cell),
        size_text(r.cell.batch_size),
        ok ? std::to_string(r.train_rows) : size_text(r.cell.dataset_size),
        data_path_text(r.cell),
        std::to_string(r.cell.threads),
        r.status,
        r.data_source.empty() ? "-" : r.data_source,
        ok ? format_seconds(r.epoch_seconds) : "-",
        ok ? format_seconds(r.epoch_seconds_p75 - r.epoch_seconds_p25) : "-",
        ok ? format_seconds(r.train_seconds) : "-",
        ok ? format_number(r.samples_per_second) : "-",
        ok ? format_number(r.train_loss) : "-",
        ok ? r.metric + " " + format_number(r.metric_value) : "-",
    });
  }
  return t;
}

}  // namespace

std::string render_comparison_text(const std::vector<Result>& results) {
  std::string out;
  for (const auto& c : compare_devices(results)) {
    out += c.workload + "\n" + render_text_table(c.table) + "\n";
  }
  out +=
      "epoch: median ± interquartile range over every timed epoch; speedup: CPU time / device "
      "time\n";
  // Why cells did not run, once per reason rather than once per cell.
  std::vector<std::pair<std::string, std::size_t>> reasons;
  for (const auto& r : results) {
    if (r.status == "ok") continue;
    const std::string reason = r.status + ": " + r.reason;
    auto it = std::find_if(reasons.begin(), reasons.end(),
                           [&](const auto& x) { return x.first == reason; });
    if (it == reasons.end())
      reasons.emplace_back(reason, 1);
    else
      ++it->second;
  }
  for (const auto& [reason, count] : reasons)
    out += std::to_string(count) + " cell(s) " + reason + "\n";
  return out;
}

std::string render_markdown(const ReportContext& context, const std::vector<Result>& results) {
  std::string out = "# crossover: " + context.title + "\n\n";
  if (!context.description.empty()) out += context.description + "\n\n";
  for (const auto& w : context.warnings) out += "> **Warning:** " + w + "\n\n";

  std::size_t ok = 0, skipped = 0, failed = 0;
  std::vector<std::string> synthetic;
  for (const auto& r : results) {
    ok += r.status == "ok";
    skipped += r.status == "skipped";
    failed += r.status == "failed";
    if (r.data_source == "synthetic" &&
        std::find(synthetic.begin(), synthetic.end(), r.cell.workload) == synthetic.end()) {
      synthetic.push_back(r.cell.workload);
    }
  }
  out += std::to_string(results.size()) + " cells: " + std::to_string(ok) + " ok, " +
         std::to_string(skipped) + " skipped, " + std::to_string(failed) + " failed.\n\n";
  if (!synthetic.empty()) {
    out += "> **Synthetic data:** " + join(synthetic) +
           " ran on a synthetic data set of the real one's shape (`data_source: synthetic`); "
           "run `scripts/fetch-data.sh` for the real data.\n\n";
  }

  out += "## Environment\n\n";
  for (const auto& line : context.environment) out += "- " + line + "\n";
  out += "\n";

  out +=
      "## Device comparison\n\n"
      "Epoch time is the median over every timed epoch of every repeat, ± the interquartile "
      "range; warm-up epochs are not timed. Speedup is the CPU's median divided by the "
      "device's. A winner is named only when the two interquartile ranges do not overlap.\n\n";
  for (const auto& c : compare_devices(results)) {
    out += "### " + c.workload + "\n\n";
    if (const WorkloadInfo* info = find_workload(c.workload)) {
      out += info->model + "; " + info->optimizer + " lr " + format_number(info->lr) + "; " +
             info->notes + "\n\n";
    }
    out += render_markdown_table(c.table) + "\n";
    out += "<details><summary>Every cell</summary>\n\n" +
           render_markdown_table(cell_table(results, c.workload)) + "\n</details>\n\n";
  }

  TextTable not_run;
  not_run.header = {"#", "workload", "device", "status", "reason"};
  for (const auto& r : results) {
    if (r.status == "ok") continue;
    not_run.rows.push_back(
        {std::to_string(r.cell.index), r.cell.workload, device_column(r.cell), r.status, r.reason});
  }
  if (!not_run.rows.empty()) {
    out += "## Cells that did not run\n\n" + render_markdown_table(not_run) + "\n";
  }
  return out;
}

}  // namespace crossover
