#include "runner/distributed/merge.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "core/stats/search.hpp"
#include "core/text/text.hpp"
#include "reports/gate/regression.hpp"
#include "runner/distributed/shard.hpp"
#include "runner/grid/grid.hpp"
#include "runner/grid/grid_search.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// One shard as read: its part of the grid (1 of 1 for a run without --shard).
struct Part {
  std::string dir;
  std::string grid_text;
  Json grid, env, searches = Json::array();
  Environment record;  ///< env, read through the one reader (read_env)
  std::vector<Result> results;
  int index = 1;
  int count = 1;
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

// Whether `path` is there at all (a dangling link or a loop is: it is refused when read).
bool present(const std::string& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0;
}

// The part's env.json, read through the one reader: a field of another type than its own, or a
// shard's place outside 1 to its count, is refused (never a record crossover wrote). Sets the
// part's index and count.
void read_env(Part& p) {
  const std::string file = run_file(p.dir, kEnvFile);
  const auto refuse = [&](const std::string& problem) {
    throw MergeRefused(file + ": " + problem + "; this is not an env.json crossover wrote");
  };
  if (!p.env.is_object()) refuse("the document is " + json_text(p.env) + ", expected an object");
  std::vector<std::string> mistyped;
  p.record = environment_from_json(p.env, file, &mistyped);
  if (!mistyped.empty()) refuse(mistyped.front());
  if (!p.record.shard) return;
  const auto whole = [&](const char* key, std::int64_t value, std::int64_t most) {
    if (value < 1 || value > most)
      refuse(std::string("shard.") + key + " is " + std::to_string(value) +
             ", expected a whole number from 1 to " + std::to_string(most));
    return static_cast<int>(value);
  };
  p.count = whole("count", p.record.shard->count, 1000000);
  p.index = whole("index", p.record.shard->index, p.count);
}

Part read_part(const std::string& dir) {
  Part p;
  p.dir = dir;
  try {
    check_real_folder(dir, "a shard's run folder");
    for (const char* file : {kResultsFile, kEnvFile, kGridFile}) {
      if (!present(dir + "/" + file))
        throw MergeRefused(dir + " is not a run: it has no " + file +
                           " (give the folders `run --shard K/N --out DIR` wrote)");
    }
    p.results = read_results(run_file(dir, kResultsFile), Links::kRefuse);
    p.env = Json::parse(read_json_text(run_file(dir, kEnvFile), kMaxRecordBytes, "a run's env.json",
                                       Links::kRefuse));
    p.grid_text = read_json_text(run_file(dir, kGridFile), kMaxRecordBytes, "a run's grid.json",
                                 Links::kRefuse);
    p.grid = Json::parse(p.grid_text);
    if (present(dir + "/searches.json")) {
      p.searches = Json::parse(read_json_text(dir + "/searches.json", kMaxRecordBytes,
                                              "a run's searches.json", Links::kRefuse));
      if (const Found problem = searches_problem(p.searches))
        throw std::runtime_error("searches.json: " + problem->text);
    }
  } catch (const MergeRefused&) {
    throw;
  } catch (const std::exception& e) {
    throw MergeRefused(std::string(e.what()).rfind(dir, 0) == 0 ? e.what() : dir + ": " + e.what());
  }
  read_env(p);
  return p;
}

// "3", "3 and 5", "3, 5, 7 and 12 more": the parts not given.
std::string some_parts(const std::vector<int>& parts) {
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < parts.size() && i < 5; ++i) shown.push_back(std::to_string(parts[i]));
  if (parts.size() > shown.size())
    return join(shown) + " and " + std::to_string(parts.size() - shown.size()) + " more";
  if (shown.size() == 1) return shown.front();
  const std::string last = shown.back();
  shown.pop_back();
  return join(shown) + " and " + last;
}

// The parts: one count, no more than the grid's units, no part twice. Returns the missing ones.
std::vector<int> check_parts(const std::vector<Part>& parts, std::size_t units) {
  const Part& first = parts.front();
  std::map<int, std::string> seen;
  for (const Part& p : parts) {
    if (p.count != first.count)
      throw MergeRefused(p.dir + " is part " + std::to_string(p.index) + " of " +
                         std::to_string(p.count) + ", " + first.dir + " part of " +
                         std::to_string(first.count) +
                         ": shards of different --shard counts do not make one run");
    if (const auto [it, fresh] = seen.emplace(p.index, p.dir); !fresh)
      throw MergeRefused(it->second + " and " + p.dir + " are both part " +
                         std::to_string(p.index) + " of " + std::to_string(p.count) +
                         " (overlapping --shard values)");
  }
  if (static_cast<std::size_t>(first.count) > units)
    throw MergeRefused(first.dir + "/env.json: shard.count is " + std::to_string(first.count) +
                       ", but the grid has " + std::to_string(units) +
                       " unit(s) to share out: no run of this grid was cut into so many parts");
  std::vector<int> missing;
  for (int k = 1; k <= first.count; ++k)
    if (seen.count(k) == 0) missing.push_back(k);
  return missing;
}

// The one warning of what is missing: the parts not given and the grid's cells in no folder.
std::string missing_warning(const std::vector<int>& parts, int count, std::size_t cells) {
  const std::string not_run =
      std::to_string(cells) + " cell(s) of the grid " + (cells == 1 ? "is" : "are") +
      " in none of the folders: `not run` in the merged results (`crossover run GRID --resume "
      "OUT` measures them)";
  if (parts.empty()) return not_run;
  return std::string(parts.size() == 1 ? "part " : "parts ") + some_parts(parts) + " of " +
         std::to_string(count) + (parts.size() == 1 ? " is" : " are") + " not among the folders; " +
         not_run;
}

// A cell as merging matches it: its identity keys less the machine's label (each shard is
// labelled by its node, the grid by none) and the model's path (which a grid.json copied into
// another folder resolves elsewhere).
Cell comparable(Cell cell) {
  cell.host.clear();
  cell.model.clear();
  return cell;
}
std::string match_key(const Cell& cell) { return cell_match_json(comparable(cell)).dump(); }

// The grid's cells by match key, and its search lines as merging compares them.
struct GridCells {
  std::map<std::string, std::size_t> index_of;
  std::vector<SearchLine> searches;
};

GridCells grid_cells(const Expansion& expansion) {
  GridCells g;
  for (const Cell& cell : expansion.cells) g.index_of.emplace(match_key(cell), cell.index);
  g.searches = expansion.searches;
  for (SearchLine& line : g.searches) {
    line.baseline = comparable(line.baseline);
    line.contender = comparable(line.contender);
  }
  return g;
}

// Each part's results into `by_index`: every one a cell of the grid (or a search's probe), each
// cell once across the folders; refuses naming the cell otherwise.
void collect_results(const std::vector<Part>& parts, const GridCells& grid,
                     std::map<std::size_t, Result>& by_index, std::set<std::string>& measured) {
  std::map<std::size_t, std::string> folder_of;
  for (const Part& p : parts) {
    for (const Result& r : p.results) {
      const std::string key = match_key(r.cell);
      const std::string name =
          "cell " + std::to_string(r.cell.index) + " (" + cell_label(r.cell) + ")";
      const auto in_grid = grid.index_of.find(key);
      if (in_grid == grid.index_of.end() && !belongs_to_search(comparable(r.cell), grid.searches))
        throw MergeRefused(p.dir + " holds " + name +
                           ", which is not a cell of the grid: not a shard of this grid as run");
      if (in_grid != grid.index_of.end() && in_grid->second != r.cell.index)
        throw MergeRefused(p.dir + " holds " + name + " as the grid's cell " +
                           std::to_string(in_grid->second) +
                           ": its results were renumbered; merge the shards as run wrote them");
      if (const auto [it, fresh] = folder_of.emplace(r.cell.index, p.dir); !fresh)
        throw MergeRefused(name + " is in both " + it->second + " and " + p.dir +
                           ": the folders overlap; merge each cell once");
      if (!measured.insert(key).second)
        throw MergeRefused(name + " is measured twice among the folders (the second in " + p.dir +
                           "); merge each cell once");
      by_index.emplace(r.cell.index, r);
    }
  }
}

// Every part's data set fingerprints in the merged env.json, so that --resume of the merged run
// finds each data set as the shards read it (the first part's alone made the others' data sets
// read as changed, and their cells run again); two parts that read different files of one data
// set are a warning.
void merge_datasets(const std::vector<Part>& parts, MergedRun& out) {
  auto& merged = out.env.datasets;
  std::map<std::string, std::string> from;  // data set -> the part whose fingerprint is kept
  for (const auto& [name, print] : merged) from[name] = parts.front().dir;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    for (const auto& dataset : parts[i].record.datasets) {
      // Named, not a structured binding: a lambda may not capture one in C++17 (clang says so).
      const std::string& name = dataset.first;
      const std::string& print = dataset.second;
      const auto kept = std::find_if(merged.begin(), merged.end(),
                                     [&](const auto& d) { return d.first == name; });
      if (kept == merged.end()) {
        merged.emplace_back(name, print);
        from[name] = parts[i].dir;
      } else if (kept->second != print) {
        out.warnings.push_back(from[name] + " and " + parts[i].dir + " read different files of " +
                               "data set " + name + ": their cells did not train on the same data");
      }
    }
  }
}

// A part whose task was stopped while it ran (cancelled, interrupted, out of time) lists the
// cells it did not reach as `not run`: the same warning as a part that never ran.
void stopped_cells_warning(const std::vector<Part>& parts, MergedRun& out) {
  for (const Part& p : parts) {
    const auto stopped = std::count_if(p.results.begin(), p.results.end(), [](const Result& r) {
      return r.status == CellStatus::kNotRun;
    });
    if (stopped == 0) continue;
    out.warnings.push_back(std::to_string(stopped) + " cell(s) of " + p.dir +
                           " did not run: its task was stopped before them (cancelled, "
                           "interrupted or out of time); `not run` in the merged results "
                           "(`crossover run GRID --resume OUT` measures them)");
  }
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
  Expansion expansion;
  try {
    expansion =
        expand_grid(parse_grid(parts.front().grid_text, run_file(parts.front().dir, kGridFile)));
  } catch (const GridError& e) {
    throw MergeRefused(parts.front().dir + "/grid.json: " + e.what());
  }
  const std::vector<int> missing_parts = check_parts(parts, shard_units(expansion));
  // Nodes of one kind (another host name, kernel or compiler) read as one machine, listed in
  // the environment section; only what changes timings by itself is a warning.
  for (std::size_t i = 1; i < parts.size(); ++i) {
    for (const auto& d : environment_differences(parts.front().record, parts[i].record, false)) {
      if (!d.unfair) continue;
      out.warnings.push_back(parts.front().dir + " and " + parts[i].dir +
                             " ran on different kinds of machine: " + d.what + ": " + d.baseline +
                             " against " + d.candidate +
                             " (this alone can change the timings; docs/distributed.md)");
    }
  }
  std::map<std::size_t, Result> by_index;
  std::set<std::string> measured;
  collect_results(parts, grid_cells(expansion), by_index, measured);
  out.grid_text = parts.front().grid_text;
  out.env = parts.front().record;
  out.env.shard.reset();
  out.env.shards.clear();
  merge_datasets(parts, out);
  for (const Part& p : parts) {
    out.env.shards.push_back({p.dir, p.record});
    for (const auto& [cell, span] : p.record.reference.cells)
      out.env.reference.set_around(cell, span);
    for (const auto& s : p.searches) out.searches.push_back(s);
  }
  stopped_cells_warning(parts, out);
  // The grid's cells that no part measured: `not run`, so that --resume of the merged run runs
  // them.
  for (const Cell& cell : expansion.cells) {
    if (measured.count(match_key(cell)) != 0) continue;
    Result r;
    r.cell = cell;
    r.status = CellStatus::kNotRun;
    r.reason = "in none of the merged shards; `crossover run GRID --resume DIR` measures it";
    by_index.emplace(cell.index, r);
    ++out.not_run;
  }
  if (out.not_run > 0 || !missing_parts.empty())
    out.warnings.insert(out.warnings.begin(),
                        missing_warning(missing_parts, parts.front().count, out.not_run));
  for (auto& [index, r] : by_index) out.results.push_back(std::move(r));
  return out;
}

}  // namespace crossover
