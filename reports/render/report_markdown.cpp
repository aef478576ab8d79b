#include "reports/render/report_markdown.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "core/cells/keys.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"
#include "reports/analysis/comparison.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/analysis/scaling.hpp"
#include "reports/analysis/workload_verdict.hpp"
#include "reports/render/analysis_markdown.hpp"
#include "reports/render/table_writer.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

std::string percent(double fraction) { return format_number(100.0 * fraction) + " %"; }

std::string megabytes(std::int64_t bytes) {
  return format_number(static_cast<double>(bytes) / 1e6) + " MB";
}

// The identity keys beyond the fixed columns (GridKey::fixed_column: device, batch, rows, data
// path) whose values differ among `cells`: the run table shows them, named as in the grid.
std::vector<const GridKey*> varying_keys(const std::vector<const Result*>& cells) {
  std::vector<nlohmann::ordered_json> configs;
  for (const Result* r : cells) configs.push_back(cell_config_json(r->cell));
  std::vector<const GridKey*> out;
  for (const std::string& name : differing_keys(configs)) {
    const GridKey* key = find_grid_key(name);
    if (key != nullptr && key->role == KeyRole::kIdentity && !key->fixed_column) out.push_back(key);
  }
  return out;
}

// Every cell of a workload: what ran, its timing statistics, start-up, efficiency and memory.
TextTable cell_table(const std::vector<Result>& results, const std::string& workload) {
  std::vector<const Result*> cells;
  for (const auto& r : results) {
    if (r.cell.workload == workload) cells.push_back(&r);
  }
  const auto keys = varying_keys(cells);
  TextTable t;
  t.header = {"#", "device", "batch", "rows", "data path"};
  for (const GridKey* key : keys) t.header.push_back(key->name);
  const std::size_t measured = t.header.size();
  for (const char* h :
       {"status", "data", "epoch median", "IQR", "95 % CI", "repeats", "step", "first epoch",
        "start-up", "samples/s", "GFLOP/s", "of peak", "peak RSS", "loss", "metric", "bound"})
    t.header.push_back(h);
  t.right_aligned.assign(t.header.size(), true);
  for (std::size_t c : {std::size_t{1}, std::size_t{4}, measured, measured + 1})
    t.right_aligned[c] = false;
  t.right_aligned.back() = false;
  for (const Result* cell : cells) {
    const Result& r = *cell;
    const bool ok = r.status == CellStatus::kOk;
    const bool predicted = r.status == CellStatus::kPredicted;
    const auto when_ok = [ok](const std::string& text) { return ok ? text : std::string("-"); };
    // A predicted cell shows the model's epoch and step, and nothing it did not measure.
    const auto when_timed = [&](const std::string& text) {
      return ok || predicted ? text : std::string("-");
    };
    std::vector<std::string> row = {
        std::to_string(r.cell.index), device_column(r.cell), size_text(r.cell.batch_size),
        ok ? std::to_string(r.train_rows) : size_text(r.cell.dataset_size),
        data_path_text(r.cell) + (r.cell.timing == Timing::kPhases ? " (phases)" : "")};
    for (const GridKey* key : keys) row.push_back(value_text(key->get(r.cell)));
    for (auto& text : std::vector<std::string>{
             text_of(r.status) + std::string(ok && r.noisy ? " (noisy)" : "") +
                 std::string(ok && r.energy.throttled ? " (throttled)" : ""),
             r.data_source == DataSource::kNone ? "-" : text_of(r.data_source),
             when_timed(format_seconds(r.epoch_seconds)),
             when_ok(format_seconds(r.epoch_seconds_p75 - r.epoch_seconds_p25)),
             when_ok(format_seconds(r.epoch_seconds_ci_low) + " - " +
                     format_seconds(r.epoch_seconds_ci_high)),
             when_ok(std::to_string(r.repeats) + " (" + text_of(r.stop_reason) + ")"),
             when_timed(format_seconds(r.step_seconds)),
             when_ok(format_seconds(r.first_epoch_seconds)),
             when_ok(format_seconds(r.startup_seconds)),
             when_ok(format_number(r.samples_per_second)),
             when_ok(format_number(r.achieved_gflops)),
             when_ok(r.peak_fraction > 0 ? percent(r.peak_fraction) : "-"),
             when_ok(megabytes(r.peak_rss_bytes)), when_ok(format_number(r.train_loss)),
             when_ok(r.metric + " " + format_number(r.metric_value)),
             r.prediction.bound == Bound::kNone ? "-" : text_of(r.prediction.bound)})
      row.push_back(std::move(text));
    t.rows.push_back(std::move(row));
  }
  return t;
}

// Per-step phase times of the cells timed with `timing: "phases"`.
TextTable phase_table(const std::vector<Result>& results) {
  TextTable t;
  t.header = {"#", "cell", "data", "host→device", "forward", "backward", "optimizer", "step (sum)"};
  t.right_aligned = {true, false, true, true, true, true, true, true};
  for (const auto& r : results) {
    if (r.status != CellStatus::kOk || r.cell.timing != Timing::kPhases) continue;
    const double sum = r.phase_data_seconds + r.phase_copy_seconds + r.phase_forward_seconds +
                       r.phase_backward_seconds + r.phase_optimizer_seconds;
    t.rows.push_back({std::to_string(r.cell.index), cell_label(r.cell),
                      format_seconds(r.phase_data_seconds), format_seconds(r.phase_copy_seconds),
                      format_seconds(r.phase_forward_seconds),
                      format_seconds(r.phase_backward_seconds),
                      format_seconds(r.phase_optimizer_seconds), format_seconds(sum)});
  }
  return t;
}

}  // namespace

std::string render_comparison_text(const std::vector<Result>& results) {
  return render_comparison_text(results, compare_devices(results));
}

std::string default_threads_text(const std::optional<DefaultThreads>& threads) {
  const std::string head = "threads 0: the libraries' own counts";
  if (!threads || threads->intra_op <= 0) return head + " of threads (crossover env prints them)";
  const std::int64_t intra = threads->intra_op, blas = threads->blas;
  std::string out = head + ", here " + std::to_string(intra) + " intra-op";
  if (blas > 0) out += " and " + std::to_string(blas) + " BLAS";
  out += " thread" + std::string(intra == 1 && blas <= 1 ? "" : "s");
  if (intra == 1 && blas <= 1) return out + ": the same as threads 1";
  if (intra == 1) return out + " (threads 1: one of each)";
  return out;
}

namespace {

// The tables' legend: what the epochs and speedups are, what each winner word means.
std::string table_legend(const std::vector<Comparison>& devices, Measure measure) {
  const bool time = measure == Measure::kTime;
  const auto has = [&](const std::string& word, bool in_header) {
    return std::any_of(devices.begin(), devices.end(), [&](const Comparison& c) {
      if (in_header)
        return std::any_of(c.table.header.begin(), c.table.header.end(),
                           [&](const std::string& h) { return h.rfind(word, 0) == 0; });
      return std::any_of(c.table.rows.begin(), c.table.rows.end(), [&](const auto& row) {
        return !row.empty() && row.back().rfind(word, 0) == 0;
      });
    });
  };
  std::string out = (time ? "epoch: median ± interquartile range of the timed epochs"
                          : text_of(measure) + ": median " + measure_noun(measure) +
                                " ± interquartile range over every timed epoch");
  // The speedup legend only where a table has a speedup column (not on a CPU-only run).
  if (has(time ? "speedup" : "ratio", true))
    out += time ? "; speedup: CPU time / device time [95 % interval or band]"
                : "; ratio: the CPU's / the device's";
  std::vector<std::string> words;
  if (has("same (", false)) words.push_back("same (±5 %) where the interval lies within 5 % of 1");
  if (has("tie", false)) words.push_back("tie where the interval holds 1");
  if (has("undecided", false)) words.push_back("undecided where the band allows a tie");
  if (!words.empty()) out += "; winner: " + join(words, "; ");
  return out + "\n";
}

}  // namespace

std::string render_comparison_text(const std::vector<Result>& results,
                                   const std::vector<Comparison>& devices, Measure measure,
                                   Detail detail, const std::optional<DefaultThreads>& threads) {
  std::string out;
  for (const auto& c : devices) {
    out += c.workload + "\n" + render_text_table(c.table) + "\n";
  }
  const bool time = measure == Measure::kTime;
  out += table_legend(devices, measure);
  // A threads column that holds 0 next to other counts: 0 is not "no threads".
  const auto default_threads = [](const Result& r) { return r.cell.threads == 0; };
  if (std::any_of(results.begin(), results.end(), default_threads) &&
      !std::all_of(results.begin(), results.end(), default_threads))
    out += default_threads_text(threads) + "\n";
  if (std::any_of(results.begin(), results.end(), [](const Result& r) {
        return r.status == CellStatus::kOk && r.data_source == DataSource::kSynthetic;
      }))
    out +=
        "(synthetic): trained on a synthetic data set of the real one's shape, not on the real "
        "data (scripts/fetch-data.sh fetches it; --data-dir or CROSSOVER_DATA_DIR names its "
        "folder)\n";
  // Why cells did not run, once per reason rather than once per cell; a predicted cell's reason
  // is the verdict's caveat, said already but in full detail.
  std::vector<std::pair<std::string, std::size_t>> reasons;
  for (const auto& r : results) {
    if (r.status == CellStatus::kOk) continue;
    if (r.status == CellStatus::kPredicted && detail != Detail::kVerbose) continue;
    const std::string reason = text_of(r.status) + (": " + r.reason);
    auto it = std::find_if(reasons.begin(), reasons.end(),
                           [&](const auto& x) { return x.first == reason; });
    if (it == reasons.end())
      reasons.emplace_back(reason, 1);
    else
      ++it->second;
  }
  for (const auto& [reason, count] : reasons)
    out += std::to_string(count) + " cell(s) " + reason + "\n";
  if (!time) {
    const auto without = std::count_if(results.begin(), results.end(), [&](const Result& r) {
      return r.status == CellStatus::kOk && !has_measure(r, measure);
    });
    if (without > 0)
      out += std::to_string(without) + " ok cell(s) without " + text_of(measure) +
             ": \"skipped\" in the tables above\n";
  }
  const bool energy_measured = std::any_of(results.begin(), results.end(), [](const Result& r) {
    return has_measure(r, Measure::kEnergy);
  });
  const std::string energy =
      energy_measured || detail == Detail::kVerbose ? energy_summary(results) : "";
  const std::string counted = counted_summary(results);
  return out + (energy.empty() ? "" : energy + "\n") + (counted.empty() ? "" : counted + "\n");
}

namespace {

// The title, the warnings, the cell counts and the synthetic-data note.
std::string markdown_head(const ReportContext& context, const std::vector<Result>& results) {
  std::string out = "# crossover: " + markdown_text(context.title) + "\n\n";
  if (!context.description.empty()) out += markdown_text(context.description) + "\n\n";
  for (const auto& w : context.warnings) out += "> **Warning:** " + markdown_text(w) + "\n\n";

  std::size_t ok = 0, skipped = 0, failed = 0, predicted = 0;
  std::vector<std::string> synthetic;
  for (const auto& r : results) {
    ok += r.status == CellStatus::kOk;
    predicted += r.status == CellStatus::kPredicted;
    skipped += r.status == CellStatus::kSkipped;
    failed += r.status == CellStatus::kFailed;
    if (r.data_source == DataSource::kSynthetic &&
        std::find(synthetic.begin(), synthetic.end(), r.cell.workload) == synthetic.end()) {
      synthetic.push_back(r.cell.workload);
    }
  }
  out += std::to_string(results.size()) + " cells: " + std::to_string(ok) + " ok, " +
         (predicted > 0 ? std::to_string(predicted) + " predicted, " : std::string()) +
         std::to_string(skipped) + " skipped, " + std::to_string(failed) + " failed.\n\n";
  if (predicted > 0) {
    out += "> **Predicted:** " + markdown_text(predicted_cells_note(predicted)) + "\n\n";
  }
  if (!synthetic.empty()) {
    out += "> **Synthetic data:** " + markdown_text(join(synthetic)) +
           " ran on a synthetic data set of the real one's shape (`data_source: synthetic`); "
           "run `scripts/fetch-data.sh` for the real data (MNIST and CIFAR-10: "
           "`scripts/fetch-data.sh --download`, where the network allows) and give `run "
           "--data-dir` its folder.\n\n";
  }
  return out;
}

// The device comparison of each workload, with every cell folded beneath it.
// A workload as these cells ran it: its model, then the data sets, batches, optimiser and rate
// the cells had (a grid may change each), then the seed's own setting from the catalogue.
std::string workload_description(const WorkloadInfo& info, const std::vector<Result>& results,
                                 const std::string& workload) {
  std::set<std::string> datasets, batches, optimizers;
  for (const Result& r : results) {
    if (r.cell.workload != workload) continue;
    datasets.insert(r.cell.dataset);
    batches.insert(size_text(r.cell.batch_size));
    optimizers.insert(text_of(r.cell.optimizer) + " lr " + format_number(r.cell.lr));
  }
  const auto listed = [](const std::set<std::string>& values) {
    return join(std::vector<std::string>(values.begin(), values.end()));
  };
  return info.model + "; here on " + listed(datasets) + ", batch " + listed(batches) + ", " +
         listed(optimizers) + " (the seed's setting: " + info.notes + ")";
}

std::string markdown_devices(const std::vector<Result>& results, const Analysis& analysis) {
  const std::vector<Comparison>& devices = analysis.devices;
  std::string out = "## Device comparison\n\n";
  if (analysis.measure != Measure::kTime) {
    out += "The tables compare " + measure_noun(analysis.measure) +
           (analysis.measure == Measure::kEnergy
                ? " in joules: each epoch's time times the cell's mean power over its timed epochs"
                : " in the units of the prices: each epoch's time times the device's price per "
                  "second") +
           "; the ratio is the CPU's divided by the device's, the winner the device that needs "
           "less. Cells without it are skipped here. Every cell's own table keeps seconds.\n\n";
  }
  out +=
      "Epoch time is the median over every timed epoch of every repeat, ± the interquartile "
      "range; warm-up epochs are not timed. Repeats go on until the median's 95 % confidence "
      "interval is narrow enough (`ci_target`), up to `max_repeats` or the time budget. Speedup "
      "is the CPU's median divided by the device's, with its bootstrap 95 % interval; *wins "
      "after* is the number of epochs from which the device's total time, start-up and first "
      "epoch included, stays below the CPU's. A winner is named only when the interval excludes "
      "1 (the rule of the crossover statements above); otherwise the row is a tie. Settings that "
      "only guard a cell (`isolate`, `timeout_seconds`) or bound its measuring (`min_repeats`, "
      "`max_repeats`, `time_budget_seconds`, `ci_target`) never split a row.\n\n";
  for (const auto& c : devices) {
    out += "### " + markdown_text(c.workload) + "\n\n";
    if (const WorkloadInfo* info = find_workload(c.workload))
      out += markdown_text(workload_description(*info, results, c.workload)) + "\n\n";
    out += render_markdown_table(c.table) + "\n";
    out += "<details><summary>Every cell</summary>\n\n" +
           render_markdown_table(cell_table(results, c.workload)) + "\n</details>\n\n";
  }
  return out;
}

// The noise note and the cells that did not run, with their reasons.
std::string markdown_caveats(const std::vector<Result>& results) {
  std::string out;
  std::vector<std::string> noisy;
  for (const auto& r : results) {
    if (r.status == CellStatus::kOk && r.noisy) noisy.push_back("#" + std::to_string(r.cell.index));
  }
  if (!noisy.empty()) {
    out += "> **Noise:** cells " + join(noisy) +
           " have an interquartile range above 10 % of their median; their figures are less "
           "certain (a busy machine, frequency scaling, or too few repeats).\n\n";
  }
  std::vector<std::string> throttled;
  for (const auto& r : results) {
    if (r.status != CellStatus::kOk || !r.energy.throttled) continue;
    // A results file is the user's: only the reason names crossover writes reach the prose.
    std::string reasons = r.energy.throttle_reasons;
    reasons.erase(std::remove_if(reasons.begin(), reasons.end(),
                                 [](char c) {
                                   return !(std::islower(static_cast<unsigned char>(c)) ||
                                            c == '_' || c == ',');
                                 }),
                  reasons.end());
    throttled.push_back("#" + std::to_string(r.cell.index) +
                        (reasons.empty() ? "" : " (" + reasons + ")"));
  }
  if (!throttled.empty()) {
    out += "> **Throttled:** cells " + join(throttled) +
           " ran with the GPU's SM clock below 75 % of its maximum, or under a thermal or power "
           "throttle: their times are slower than the device is, and speedups against them "
           "are wrong.\n\n";
  }
  if (const std::string energy = energy_summary(results); !energy.empty()) {
    out += "> **Energy:** " + markdown_text(energy.substr(std::string("energy: ").size())) +
           ". Energy covers the timed epochs only; a CPU package or a GPU counts every process "
           "on it, not this run's alone.\n\n";
  }
  if (const std::string counted = counted_summary(results); !counted.empty()) {
    TextTable counts;
    counts.header = {"#", "workload", "instructions per epoch", "per step", "spread"};
    counts.right_aligned = {true, false, true, true, true};
    for (const auto& r : results) {
      if (r.status != CellStatus::kOk || !r.counts.counted()) continue;
      counts.rows.push_back({std::to_string(r.cell.index), r.cell.workload,
                             format_axis_value(std::round(r.counts.instructions_per_epoch)),
                             format_axis_value(std::round(r.counts.instructions_per_step)),
                             format_percent(r.counts.instructions_spread, false)});
    }
    out += "> **Counted:** " + markdown_text(counted.substr(std::string("counted: ").size())) +
           ".\n\n" + render_markdown_table(counts) + "\n";
  }
  TextTable not_run;
  not_run.header = {"#", "workload", "device", "status", "reason"};
  std::vector<std::string> ids;
  for (const auto& r : results) {
    if (r.status == CellStatus::kOk || r.status == CellStatus::kPredicted) continue;
    not_run.rows.push_back({std::to_string(r.cell.index), r.cell.workload, device_column(r.cell),
                            text_of(r.status), r.reason});
    ids.push_back(std::to_string(r.cell.index));
  }
  footnote_column(not_run, 4, ids);  // a reason many cells share, said once
  if (!not_run.rows.empty()) {
    out += "## Cells that did not run\n\n" + render_markdown_table(not_run) + "\n";
  }
  return out;
}

}  // namespace

std::string render_markdown(const ReportContext& context, const std::vector<Result>& results) {
  return render_markdown(context, results, analyse(results, {}));
}

std::string render_markdown(const ReportContext& context, const std::vector<Result>& results,
                            const Analysis& analysis) {
  std::string out = markdown_head(context, results);
  if (const std::vector<WorkloadVerdict> found = verdicts(analysis, context.drifted_cells);
      !found.empty()) {
    out += "## " + markdown_text(verdict_heading(analysis)) + "\n\n";
    if (const std::string caveat = verdict_caveat(results, context.band_validation);
        !caveat.empty())
      out += "*" + markdown_text(caveat) + ".*\n\n";
    for (const WorkloadVerdict& v : found) {
      out += "- **" + markdown_text(v.workload) +
             "**: " + markdown_text(v.lines.front().substr(v.workload.size() + 2)) + "\n";
      for (std::size_t i = 1; i < v.lines.size(); ++i)
        out += "  - " + markdown_text(v.lines[i]) + "\n";
    }
    out += "\n";
  }
  out += "## Environment\n\n";
  for (const auto& line : context.environment) out += "- " + markdown_text(line) + "\n";
  out += "\n";
  out += render_searches_markdown(context.searches);
  for (const ComparisonFindings& f : analysis.comparisons) {
    out += render_analysis_markdown(f.spec, f.pairs, f.crossovers, f.recommendations);
    const auto measures = measure_statements(f);
    std::vector<std::string> names;
    for (const auto& by : f.by_measure) names.push_back(text_of(by.first));
    if (!measures.empty())
      out += "On " + join(names, " and on ") + " (" + markdown_text(f.spec.axis) + "):\n\n";
    for (const auto& line : measures) out += "- " + markdown_text(line) + "\n";
    if (!measures.empty()) out += "\n";
  }
  out += markdown_devices(results, analysis);
  const TextTable phases = phase_table(results);
  if (!phases.rows.empty()) {
    out +=
        "## Phases\n\n"
        "Mean time per step of each phase, for the cells run with `timing: \"phases\"`. Phase mode "
        "synchronises the device at every phase boundary, so these steps are slower than "
        "`end_to_end` ones; use the breakdown for proportions, the end-to-end times for "
        "speed.\n\n" +
        render_markdown_table(phases) + "\n";
  }
  out += render_scaling_markdown(analysis.scaling);
  out += markdown_caveats(results);
  return out;
}

}  // namespace crossover
