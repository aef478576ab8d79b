#include "runner/commands/predict_check.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/costmodel/cost_model.hpp"
#include "core/files/file_writer.hpp"
#include "core/files/run_files.hpp"
#include "core/records/prediction.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "runner/cli/command_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

std::string results_path(const std::string& run) {
  return fs::is_directory(run) ? run_file(run, kResultsFile) : run;
}

std::string anatomy_path(const std::string& run) {
  return (fs::path(results_path(run)).parent_path() / kAnatomyFile).string();
}

// The anatomy a run's anatomy.jsonl keeps, by cell: none when there is no such file.
std::map<std::size_t, Result> saved_anatomy(const std::string& run) {
  std::map<std::size_t, Result> out;
  const std::string path = anatomy_path(run);
  std::error_code error;
  if (!fs::exists(fs::symlink_status(path, error))) return out;
  for (Result& r : read_results(path, Links::kRefuse))
    if (!r.anatomy.empty()) out.emplace(r.cell.index, std::move(r));
  return out;
}

// A cell's anatomy as its run has it: recorded, or kept in anatomy.jsonl beside the run, its FLOPs
// counted by today's rule (an anatomy from before counted no backward convolution). False when
// the cell's anatomy must be taken again.
bool recorded_anatomy(const Result& r, const std::map<std::size_t, Result>& saved, Result& p) {
  // A graph cell recorded before its anatomy came from its twin saw only the replay.
  const bool replay_only = r.cell.execution == Execution::kGraph && r.anatomy.step_ops_forward == 0;
  if (r.anatomy.current() && !replay_only) return true;
  // A line of anatomy.jsonl counts for the cell of its index only when it is that cell.
  if (const auto it = saved.find(r.cell.index); it != saved.end() && it->second.anatomy.current() &&
                                                cell_label(it->second.cell) == cell_label(r.cell)) {
    p.anatomy = it->second.anatomy;
    return true;
  }
  return false;
}

bool measured_ok(const Result& r) { return r.status == CellStatus::kOk && r.epoch_seconds > 0.0; }

// A cell's anatomy: recorded, saved beside the run, or taken on this machine's CPU (then kept in
// `taken`). False when it cannot be had.
bool find_anatomy(const Result& r, const std::map<std::size_t, Result>& saved,
                  const std::string& data_dir, Result& p, std::vector<Result>& taken) {
  if (recorded_anatomy(r, saved, p)) return true;
  if (!take_twin_anatomy) hand_to_libtorch();
  Result twin = r;
  if (const Found failed = problem_of([&] { take_twin_anatomy(r.cell, data_dir, twin); })) {
    // One counted by an older rule still predicts: it lacks only what that rule did not count
    // (a convolution's backward, the optimiser's arithmetic), nothing of a network without them.
    const auto line = saved.find(r.cell.index);
    const bool replay_only =
        r.cell.execution == Execution::kGraph && r.anatomy.step_ops_forward == 0;
    const Anatomy* older = line != saved.end() && !line->second.anatomy.empty() &&
                                   cell_label(line->second.cell) == cell_label(r.cell)
                               ? &line->second.anatomy
                           : !r.anatomy.empty() && !replay_only ? &r.anatomy
                                                                : nullptr;
    if (older != nullptr) {
      spdlog::warn(
          "cell {} ({}): its anatomy could not be taken again here ({}); predicted from "
          "the one it kept, its FLOPs counted before backward convolutions and the "
          "optimiser were",
          r.cell.index, cell_label(r.cell), failed->text);
      p.anatomy = *older;
      return true;
    }
    spdlog::warn("cell {} ({}): its anatomy could not be taken here ({}); not predicted",
                 r.cell.index, cell_label(r.cell), failed->text);
    return false;
  }
  p.anatomy = twin.anatomy;
  taken.push_back(p);
  return true;
}

}  // namespace

bool anatomy_to_take(const std::vector<std::string>& paths) {
  const auto level = spdlog::get_level();
  spdlog::set_level(spdlog::level::off);
  bool take = false;
  for (const std::string& path : paths) {
    (void)problem_of([&] {  // a run that cannot be read: check_run says why
      const RunRecord run = load_run(path);
      const std::map<std::size_t, Result> saved = saved_anatomy(path);
      for (const Result& r : run.results) {
        Result p = r;
        take = take || (measured_ok(r) && !recorded_anatomy(r, saved, p));
      }
    });
  }
  spdlog::set_level(level);
  return take;
}

Checked check_run(const std::string& path, const RunRecord& run, const MachineProfile& target,
                  const std::string& data_dir) {
  Checked out;
  out.run = path;
  for (const Result& r : run.results)
    if (measured_ok(r)) out.measured.push_back(r);
  const std::map<std::size_t, Result> saved = saved_anatomy(path);
  for (const Result& r : out.measured) {
    Result anatomised = r;
    if (!find_anatomy(r, saved, data_dir, anatomised, out.anatomy)) continue;
    std::optional<Result> predicted = predicted_result(anatomised, target);
    if (!predicted) continue;
    if (const Found past = predicted_past_ceiling(*predicted)) {
      spdlog::warn("{}: cell {} ({}): {}; not scored", path, r.cell.index + 1, cell_label(r.cell),
                   past->text);
      continue;
    }
    Result& p = *predicted;
    // As the analysis reads it: the model's epoch, with the measured spread around it.
    const double scale = p.prediction.predicted_epoch_seconds / r.epoch_seconds;
    for (double& s : p.epoch_seconds_samples) s *= scale;
    p.epoch_seconds_ci_low *= scale;
    p.epoch_seconds_ci_high *= scale;
    out.predicted.push_back(std::move(p));
  }
  return out;
}

std::string run_name(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  if (!fs::is_directory(p)) p = p.parent_path();  // its results.jsonl
  return p.filename().string();
}

std::vector<BandCell> band_cells(const std::vector<Checked>& checked) {
  std::vector<BandCell> cells;
  for (const Checked& c : checked) {
    for (const Result& p : c.predicted) {
      const auto m = std::find_if(c.measured.begin(), c.measured.end(),
                                  [&](const Result& r) { return r.cell.index == p.cell.index; });
      cells.push_back(
          {run_name(c.run), p.cell.device.kind, p.prediction.bound,
           std::abs(std::log(p.prediction.predicted_epoch_seconds / m->epoch_seconds))});
    }
  }
  return cells;
}

void assign_bands(std::vector<Checked>& checked, const MachineProfile& source, bool leave_out) {
  const std::vector<BandCell> cells = band_cells(checked);
  for (Checked& c : checked) {
    const std::string name = run_name(c.run);
    std::set<std::string> how;
    for (Result& p : c.predicted) {
      const std::string kind = text_of(p.cell.device.kind);
      const Bound bound = p.prediction.bound;
      const auto v = source.validation.find(p.cell.device.kind);
      const bool set_it =
          v != source.validation.end() &&
          std::find(v->second.runs.begin(), v->second.runs.end(), name) != v->second.runs.end();
      PredictionBand band;
      if (leave_out || set_it) {
        band = band_without(cells, name, p.cell.device.kind, bound);
        if (band.factor > 0.0)
          how.insert(kind + ": fitted without this run, on the other checked runs' cells" +
                     (set_it && !leave_out ? std::string(" (the profile's own was fitted with it)")
                                           : std::string()));
        else
          how.insert(kind +
                     ": none (a band fitted with this run would score itself, and the "
                     "other checked runs have too few cells; check it with the other " +
                     std::to_string(set_it ? v->second.runs.size() - 1 : 0) +
                     " run(s) the profile's band lists)");
      } else {
        band = source.band(p.cell.device.kind, bound);
        how.insert(kind + (band.factor > 0.0
                               ? ": the profile " + source.name +
                                     "'s, which never "
                                     "saw this run"
                               : ": none (the profile " + source.name + " has no band)"));
      }
      p.prediction.prediction_error = band.factor > 1.0 ? band.factor - 1.0 : 0.0;
    }
    c.band = join(std::vector<std::string>(how.begin(), how.end()), "; ");
  }
}

void save_anatomy(const Checked& c) {
  if (c.anatomy.empty()) return;
  // The lines kept before, less the cells taken again now, then those: one line a cell.
  std::map<std::size_t, Result> lines = saved_anatomy(c.run);
  for (const Result& r : c.anatomy) lines.insert_or_assign(r.cell.index, r);
  std::string text;
  for (const auto& [index, r] : lines) text += result_to_json(r).dump() + "\n";
  write_text_file(anatomy_path(c.run), text);
}

void warn_other_cpu(const std::string& path, const RunRecord& run, const MachineProfile& target) {
  if (!run.environment) return;
  const auto& cpu = run.environment->cpu;
  const bool other_model =
      !cpu.model.empty() && !target.cpu_model.empty() && cpu.model != target.cpu_model;
  const bool other_cores =
      cpu.logical_cores && target.logical_cores > 0 && *cpu.logical_cores != target.logical_cores;
  if (!other_model && !other_cores) return;
  spdlog::warn(
      "{}: its CPU ({}, {} logical cores) is not the profile's ({}, {}): its CPU cells are "
      "predicted for the profile's machine, not for the one that measured them",
      path, cpu.model, cpu.logical_cores ? std::to_string(*cpu.logical_cores) : "?",
      target.cpu_model, target.logical_cores);
}

}  // namespace crossover
