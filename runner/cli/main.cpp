// crossover: when does the GPU beat the CPU? The commands that only read and write files run in
// this program, which does not load LibTorch (validate too, unless the grid has models of its own
// to load, predict, unless a cell's anatomy must be taken on this CPU, and calibrate, whose runs
// are `crossover run` processes of their own); for every other
// command line (run, worker, profile, --help, ...) it starts crossover-torch, beside it, in its
// place (exec: the same process, its signals and exit code). Loading Debian's LibTorch costs
// 0.4-0.75 s of every process that links it (docs/results.md, "Build and test times"); a `report`
// or a `compare` need not pay it.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "core/text/text.hpp"
#include "runner/cli/command_line.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/execution/launch.hpp"

namespace {

// The commands that need no LibTorch, in the order of crossover-torch's --help.
// `run` only checks here, and a run it does not refuse is crossover-torch's.
const std::vector<std::pair<const char*, crossover::AddCommand>> kWithoutTorch = {
    {"run", crossover::add_run_checks_command},    {"report", crossover::add_report_command},
    {"compare", crossover::add_compare_command},   {"calibrate", crossover::add_calibrate_command},
    {"validate", crossover::add_validate_command},
    {"keys", crossover::add_keys_command},
    {"bench", crossover::add_bench_command},       {"merge", crossover::add_merge_command},
    {"predict", crossover::add_predict_command},   {"catalog", crossover::add_catalog_command},
    {"history", crossover::add_history_command}};

}  // namespace

int main(int argc, char** argv) {
  const std::string name = crossover::named_command(argc, argv);
  const auto here = std::find_if(kWithoutTorch.begin(), kWithoutTorch.end(),
                                 [&](const auto& command) { return name == command.first; });
  if (here != kWithoutTorch.end()) {
    try {
      return crossover::run_command_line(argc, argv, {here->second});
    } catch (const crossover::NeedsLibTorch&) {
      // A run that passed its checks, a grid with models of its own to load (validate's model
      // check), or a cell's anatomy to take on this CPU (predict --check): crossover-torch does
      // it.
    }
  }

  // Beside this program, never from PATH: another build's crossover-torch would measure with
  // other code under this one's name.
  std::string torch;
  try {
    torch = (std::filesystem::path(crossover::self_executable()).parent_path() / "crossover-torch")
                .string();
  } catch (const std::exception& e) {
    std::cerr << "crossover: " << e.what()
              << ", so crossover-torch beside it cannot be found; run crossover-torch directly\n";
    return 2;
  }
  execv(torch.c_str(), argv);
  const int error = errno;
  std::cerr << "crossover: cannot start " << torch << " (" << std::strerror(error)
            << "), the half of crossover that loads LibTorch and runs `"
            << (name.empty() ? std::string("--help") : crossover::printable_text(name))
            << "`; build the target crossover (it builds both programs) or install "
               "crossover-torch beside crossover\n";
  return 2;
}
