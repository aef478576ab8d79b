#pragma once
// `run --set KEY=VALUE[,VALUE...]`: one key changed for every experiment of a grid from the
// command line, as hyperfine's -P, nvbench's -a and Google Benchmark's filter narrow a sweep
// without editing a file. The grid text is changed before it is checked, so the grid's own
// validation and suggestions answer a bad value, and the run's grid.json is the grid as run.

#include <string>
#include <vector>

namespace crossover {

/// `text` (a grid's JSON) with each of `sets` applied in turn: KEY=VALUE sets the key in every
/// experiment's settings (overriding the defaults and the experiment's own value, and replacing
/// an axis of it); KEY=V1,V2,... makes it an axis of those values in every experiment. Values are
/// JSON where they parse as it (3, 0.5, true, [1,28,28]) and text otherwise (cpu, full). Throws
/// std::invalid_argument naming the --set and what is wrong: no "=", no value, or a key that is
/// not a grid key (with the nearest names). Text that is not a JSON object comes back as it was,
/// for the grid's own reader to name.
std::string apply_sets(const std::string& text, const std::vector<std::string>& sets);

}  // namespace crossover
