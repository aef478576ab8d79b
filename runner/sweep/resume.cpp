#include "runner/sweep/resume.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "core/text/text.hpp"
#include "reports/gate/regression.hpp"
#include "runner/grid/grid_search.hpp"
#include "runner/sweep/search_run.hpp"

namespace crossover {
namespace {

// Up to five of `items`, then how many more.
std::string some_of(const std::vector<std::string>& items) {
  std::vector<std::string> shown(
      items.begin(),
      items.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(items.size(), 5)));
  std::string text = join(shown, "; ");
  if (items.size() > shown.size())
    text += "; and " + std::to_string(items.size() - shown.size()) + " more";
  return text;
}

// Whether the environment is the one the run was measured in, as far as the timings go; logs
// every difference, and an error when one matters.
bool same_environment(const ResumeRequest& request, const Environment& before_env,
                      const Environment& record) {
  bool changed = false;
  for (const auto& d : environment_differences(before_env, record, false)) {
    spdlog::log(d.unfair ? spdlog::level::err : spdlog::level::warn,
                "--resume {}: the environment changed: {}: {} then, {} now", request.resume, d.what,
                d.baseline, d.candidate);
    changed |= d.unfair;
  }
  if (changed) {
    spdlog::error(
        "--resume {}: results from different environments would be mixed; run the "
        "grid into a new directory instead",
        request.resume);
  }
  return !changed;
}

// "part 2 of 3 (--shard 2/3)" or "the whole grid".
std::string part_text(const std::optional<Shard>& shard) {
  if (!shard) return "the whole grid";
  const std::string kn = std::to_string(shard->index) + "/" + std::to_string(shard->count);
  return "part " + std::to_string(shard->index) + " of " + std::to_string(shard->count) +
         " (--shard " + kn + ")";
}

// Whether the folder holds the part of the grid resumed now; logs the refusal.
bool same_part(const ResumeRequest& request, const nlohmann::ordered_json& before_env) {
  std::optional<Shard> then;
  const auto& record =
      before_env.contains("shard") ? before_env["shard"] : nlohmann::ordered_json();
  if (!record.is_null()) {
    if (!record.is_object() || !record.contains("index") || !record.contains("count") ||
        !record["index"].is_number_unsigned() || !record["count"].is_number_unsigned() ||
        record["index"].get<std::uint64_t>() < 1 ||
        record["index"].get<std::uint64_t>() > record["count"].get<std::uint64_t>() ||
        record["count"].get<std::uint64_t>() > 1000000) {
      spdlog::error("--resume {}: env.json's shard is not a part K of N ({}); nothing was changed",
                    request.resume, record.dump());
      return false;
    }
    then = Shard{record["index"].get<int>(), record["count"].get<int>(), ""};
  }
  const bool same =
      then.has_value() == request.shard.has_value() &&
      (!then || (then->index == request.shard->index && then->count == request.shard->count));
  if (same) return true;
  spdlog::error(
      "--resume {}: the folder holds {}, and this run is {}; resume it with {}. Nothing was "
      "changed",
      request.resume, part_text(then), part_text(request.shard),
      then ? "--shard " + std::to_string(then->index) + "/" + std::to_string(then->count)
           : "no --shard");
  return false;
}

// Whether every result already there has its cell in the grid: resuming rewrites the file, and
// what the grid does not name would be lost. Logs the cells it would drop.
bool grid_covers(const ResumeRequest& request, const Expansion& expansion,
                 const std::vector<Result>& before) {
  std::set<std::string> in_grid;
  for (const Cell& cell : expansion.cells) in_grid.insert(cell_match_json(cell).dump());
  std::vector<std::string> dropped;
  for (const Result& r : before) {
    if (in_grid.count(cell_match_json(r.cell).dump()) == 0 &&
        !belongs_to_search(r.cell, expansion.searches))
      dropped.push_back("cell " + std::to_string(r.cell.index) + " (" + cell_label(r.cell) + ", " +
                        text_of(r.status) + ")");
  }
  if (dropped.empty()) return true;
  spdlog::error(
      "--resume {}: the grid {} does not have {} of the {} cell(s) in {}/results.jsonl, and "
      "resuming would drop them: {}. Nothing was changed; resume with the grid the run saved "
      "({}/grid.json), or run this grid into a new directory",
      request.resume, request.grid, dropped.size(), before.size(), request.resume, some_of(dropped),
      request.resume);
  return false;
}

// A search's probes measured before (ok results no listed cell has, of a search line's cells,
// on a data set that did not change): kept with their numbers, for the search to reuse, with
// their reference timings. Returns how many.
std::size_t keep_probes(const Expansion& expansion,
                        const std::map<std::string, const Result*>& done,
                        const std::set<std::string>& changed_data,
                        const ReferenceRecord& references, ResumePlan& plan, Environment& record) {
  std::set<std::string> in_grid;
  for (const Cell& cell : expansion.cells) in_grid.insert(cell_match_json(cell).dump());
  std::size_t probes = 0;
  for (const auto& [identity, r] : done) {
    if (in_grid.count(identity) != 0 || changed_data.count(r->cell.dataset) != 0 ||
        !belongs_to_search(r->cell, expansion.searches))
      continue;
    plan.kept.push_back(*r);
    ++probes;
    if (const ReferenceSpan* span = references.around(r->cell.index))
      record.reference.set_around(r->cell.index, *span);
  }
  return probes;
}

// Results written before cells carried the machine's label are this machine's.
void label_unlabelled(std::vector<Result>& before, const Expansion& expansion) {
  const std::string label = !expansion.cells.empty()      ? expansion.cells.front().host
                            : !expansion.searches.empty() ? expansion.searches.front().baseline.host
                                                          : std::string();
  for (Result& r : before)
    if (r.cell.host.empty()) r.cell.host = label;
}

// A cell skipped before and skipped here again (its device is not here) is not missing: kept as
// it was, at its place in the grid now. Whether it was.
bool keep_skipped(const ResumeRequest& request, const std::map<std::string, const Result*>& skipped,
                  const std::string& identity, const Cell& cell, ResumePlan& plan) {
  const auto s = skipped.find(identity);
  if (s == skipped.end() || request.skipped_here.count(cell.index) == 0) return false;
  plan.kept.push_back(*s->second);
  plan.kept.back().cell.index = cell.index;
  plan.kept.back().cell.experiment = cell.experiment;
  return true;
}

}  // namespace

std::optional<ResumePlan> plan_resume(const ResumeRequest& request, const Expansion& expansion,
                                      Environment& record) {
  std::vector<Result> before;
  nlohmann::ordered_json before_document;
  try {
    before = read_results(run_file(request.resume, kResultsFile));
    before_document = nlohmann::ordered_json::parse(
        read_json_text(run_file(request.resume, kEnvFile), kMaxRecordBytes, "an env.json"));
  } catch (const std::exception& e) {
    spdlog::error("--resume {}: {} (it must hold results.jsonl and env.json of a run)",
                  request.resume, e.what());
    return std::nullopt;
  }
  label_unlabelled(before, expansion);
  const Environment before_env =
      environment_from_json(before_document, run_file(request.resume, kEnvFile));
  if (!same_part(request, before_document) || !same_environment(request, before_env, record) ||
      !grid_covers(request, expansion, before))
    return std::nullopt;
  // Matched on identity keys: what is measured (other policy settings are said, below).
  std::map<std::string, const Result*> done, skipped;
  for (const Result& r : before) {
    if (r.status == CellStatus::kOk) done[cell_match_json(r.cell).dump()] = &r;
    if (r.status == CellStatus::kSkipped) skipped[cell_match_json(r.cell).dump()] = &r;
  }
  // A data set that changed (fetched, replaced, or missing now) makes its cells run again.
  std::set<std::string> changed_data;
  for (const auto& [dataset, now] : record.datasets) {
    const std::string then = before_env.dataset_fingerprint(dataset);
    if (then == now) continue;
    changed_data.insert(dataset);
    spdlog::warn("--resume {}: data set {} changed ({} then, {} now): its cells run again",
                 request.resume, dataset, then.empty() ? "not recorded" : then, now);
  }
  const ReferenceRecord& references = before_env.reference;
  ResumePlan plan;
  std::size_t still_skipped = 0;
  for (const Cell& cell : expansion.cells) {
    const std::string identity = cell_match_json(cell).dump();
    const auto it = done.find(identity);
    if (it == done.end() && keep_skipped(request, skipped, identity, cell, plan)) {
      ++still_skipped;
      continue;
    }
    if (it == done.end() || changed_data.count(cell.dataset) != 0) {
      plan.to_run.push_back(cell);
      continue;
    }
    plan.kept.push_back(*it->second);
    Result& kept = plan.kept.back();
    const auto changed_keys = measuring_differences(kept.cell, cell);
    if (!changed_keys.empty()) {
      spdlog::warn(
          "--resume {}: cell {} ({}) is kept as measured, with other policy or protection "
          "settings than the grid's now ({}); run the grid into a new directory to measure "
          "it with them",
          request.resume, cell.index, cell_label(cell), join(changed_keys, "; "));
    }
    if (const ReferenceSpan* span = references.around(kept.cell.index))
      record.reference.set_around(cell.index, *span);
    // Its place in the grid as it is now; the settings it was measured with.
    kept.cell.index = cell.index;
    kept.cell.experiment = cell.experiment;
  }
  // A merged run stays one: its shards' records (their machines, the references each cell is
  // judged against) go on beside this process's, which judges only the cells it measures.
  record.shards = before_env.shards;
  const std::size_t probes = keep_probes(expansion, done, changed_data, references, plan, record);
  const std::string kept_skipped =
      still_skipped > 0
          ? ", " + std::to_string(still_skipped) + " skipped as before (their device is not here)"
          : "";
  spdlog::info("resuming {}: {} cell(s) already ok{}{}, {} to run", request.resume,
               plan.kept.size() - still_skipped,
               probes > 0 ? " (" + std::to_string(probes) + " of them searches' probes)" : "",
               kept_skipped, plan.to_run.size());
  return plan;
}

}  // namespace crossover
