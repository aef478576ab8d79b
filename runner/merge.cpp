#include "runner/merge.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/text.hpp"
#include "core/user_files.hpp"
#include "reports/regression.hpp"
#include "runner/grid.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// One shard as read.
struct Part {
  std::string dir;
  std::string grid_text;
  Json grid, env, searches = Json::array();
  std::vector<Result> results;
};

// The JSON path of the first place where `a` and `b` differ, "" when they are equal.
std::string first_difference(const Json& a, const Json& b, const std::string& path) {
  if (a.type() != b.type()) return path.empty() ? "(document)" : path;
  if (a.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string at = path.empty() ? key : path + "." + key;
      if (!b.contains(key)) return at;
      if (std::string d = first_difference(value, b[key], at); !d.empty()) return d;
    }
    for (const auto& [key, value] : b.items())
      if (!a.contains(key)) return path.empty() ? key : path + "." + key;
    return "";
  }
  if (a.is_array()) {
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      if (std::string d = first_difference(a[i], b[i], path + "[" + std::to_string(i) + "]");
          !d.empty())
        return d;
    }
    return a.size() == b.size() ? ""
                                : path + " (" + std::to_string(a.size()) + " against " +
                                      std::to_string(b.size()) + " items)";
  }
  return a == b ? "" : path;
}

Part read_part(const std::string& dir) {
  if (!fs::is_directory(dir))
    throw MergeRefused(dir + " is not a folder; give the shards' run folders");
  for (const char* file : {"results.jsonl", "env.json", "grid.json"}) {
    if (!fs::exists(dir + "/" + file))
      throw MergeRefused(dir + " is not a run: it has no " + file +
                         " (give the folders `run --shard K/N --out DIR` wrote)");
  }
  Part p;
  p.dir = dir;
  try {
    p.results = read_results(dir + "/results.jsonl");
    p.env = Json::parse(read_json_text(dir + "/env.json", kMaxRecordBytes, "an env.json"));
    p.grid_text = read_json_text(dir + "/grid.json", kMaxRecordBytes, "a grid.json");
    p.grid = Json::parse(p.grid_text);
    if (fs::exists(dir + "/searches.json")) {
      p.searches =
          Json::parse(read_json_text(dir + "/searches.json", kMaxRecordBytes, "a searches.json"));
      if (!p.searches.is_array()) throw std::runtime_error("searches.json is not a list");
    }
  } catch (const MergeRefused&) {
    throw;
  } catch (const std::exception& e) {
    throw MergeRefused(dir + ": " + e.what());
  }
  return p;
}

// Which part of how many a run is; a run without --shard is the whole grid, 1 of 1.
std::pair<int, int> part_of(const Part& p) {
  if (!p.env.contains("shard") || !p.env["shard"].is_object()) return {1, 1};
  return {p.env["shard"].value("index", 1), p.env["shard"].value("count", 1)};
}

// The parts: one count, no part twice; the missing ones said.
void check_parts(const std::vector<Part>& parts, std::vector<std::string>& warnings) {
  std::map<int, std::string> seen;
  const int count = part_of(parts.front()).second;
  for (const Part& p : parts) {
    const auto [index, n] = part_of(p);
    if (n != count)
      throw MergeRefused(p.dir + " is part " + std::to_string(index) + " of " + std::to_string(n) +
                         ", " + parts.front().dir + " part of " + std::to_string(count) +
                         ": shards of different --shard counts do not make one run");
    if (const auto [it, fresh] = seen.emplace(index, p.dir); !fresh)
      throw MergeRefused(it->second + " and " + p.dir + " are both part " + std::to_string(index) +
                         " of " + std::to_string(n) + " (overlapping --shard values)");
  }
  for (int k = 1; k <= count; ++k) {
    if (seen.count(k) == 0)
      warnings.push_back("part " + std::to_string(k) + " of " + std::to_string(count) +
                         " is not among the folders: its cells are `not run`");
  }
}

// A cell as merging matches it: its identity keys, less the model's path (which a grid.json
// copied into another folder resolves elsewhere).
std::string match_key(const Cell& cell) {
  Json j = cell_identity_json(cell);
  j.erase("model");
  return j.dump();
}

}  // namespace

MergedRun merge_runs(const std::vector<std::string>& dirs) {
  if (dirs.empty()) throw MergeRefused("no folders to merge");
  std::vector<Part> parts;
  for (const std::string& dir : dirs) parts.push_back(read_part(dir));
  MergedRun out;
  for (const Part& p : parts) {
    if (const std::string d = first_difference(parts.front().grid, p.grid, ""); !d.empty())
      throw MergeRefused(parts.front().dir + " and " + p.dir +
                         " ran different grids (they differ at " + d +
                         "): only shards of one grid merge");
  }
  check_parts(parts, out.warnings);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    for (const auto& d : environment_differences(parts.front().env, parts[i].env, false)) {
      out.warnings.push_back(parts.front().dir + " and " + parts[i].dir +
                             " ran on different machines: " + d.what + ": " + d.baseline +
                             " against " + d.candidate +
                             (d.unfair ? " (this alone can change the timings)" : ""));
    }
  }
  out.grid_text = parts.front().grid_text;
  out.env = parts.front().env;
  out.env.erase("shard");
  out.env["shards"] = Json::array();
  std::map<std::size_t, Result> by_index;
  std::map<std::string, std::string> measured_in;
  for (const Part& p : parts) {
    out.env["shards"].push_back({{"folder", p.dir}, {"env", p.env}});
    if (p.env.contains("reference") && p.env["reference"].contains("cells"))
      for (const auto& [index, times] : p.env["reference"]["cells"].items())
        out.env["reference"]["cells"][index] = times;
    for (const auto& s : p.searches) out.searches.push_back(s);
    for (const Result& r : p.results) {
      const auto [it, fresh] = measured_in.emplace(match_key(r.cell), p.dir);
      if (!fresh) {
        out.warnings.push_back("cell " + std::to_string(r.cell.index) + " (" + cell_label(r.cell) +
                               ") is in both " + it->second + " and " + p.dir +
                               ": the first is kept");
        continue;
      }
      by_index.emplace(r.cell.index, r);
    }
  }
  // The grid's cells that no part measured: `not run`, so that --resume of the merged run runs
  // them.
  Expansion expansion;
  try {
    expansion = expand_grid(parse_grid(out.grid_text, parts.front().dir + "/grid.json"));
  } catch (const GridError& e) {
    throw MergeRefused(parts.front().dir + "/grid.json: " + e.what());
  }
  std::size_t missing = 0;
  for (const Cell& cell : expansion.cells) {
    if (measured_in.count(match_key(cell)) != 0) continue;
    Result r;
    r.cell = cell;
    r.status = CellStatus::kNotRun;
    r.reason = "in none of the merged shards; `crossover run GRID --resume DIR` measures it";
    by_index.emplace(cell.index, r);
    ++missing;
  }
  if (missing > 0)
    out.warnings.push_back(std::to_string(missing) +
                           " cell(s) of the grid are in none of the "
                           "folders: `not run` in the merged results");
  for (auto& [index, r] : by_index) out.results.push_back(std::move(r));
  return out;
}

}  // namespace crossover
