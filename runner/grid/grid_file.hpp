#pragma once
// A grid's file before it is a grid: read through the guarded reader, parsed as JSON with the line
// and column of a mistake, and named for what it is when it is another file crossover knows (a
// TorchScript model, a run's results, report or record, a profile, a history) rather than checked
// key by key as a grid it never was.

#include <nlohmann/json.hpp>
#include <string>

#include "core/text/problem.hpp"

namespace crossover {

/// The text of the grid file at `path`; throws GridError naming it (a folder that holds a run
/// names the grid.json inside it).
std::string read_grid_file(const std::string& path);

/// `text` parsed as JSON; throws GridError with the line and column of a syntax error and the
/// usual mistake there (a trailing comma, single quotes, a comment), or saying what file it is
/// when not_a_grid recognises it.
nlohmann::ordered_json parse_grid_json(const std::string& text, const std::string& file);

/// What `text` is when it is a file crossover knows that is not a grid, with where it belongs:
/// "a zip archive (torch.jit.save writes TorchScript models as one), not a grid: ..."; nothing
/// otherwise.
Found not_a_grid(const std::string& text);

}  // namespace crossover
