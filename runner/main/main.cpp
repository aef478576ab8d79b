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
#include "runner/main/command_list.hpp"

namespace {

// The commands that need no LibTorch, as the list declares them for this program: `run` only
// checks here, and a run it does not refuse is crossover-torch's.
using namespace crossover;
constexpr AddCommand kStartTorch = nullptr;
#define CROSSOVER_HERE(name, help, here, torch) CommandDeclaration{name, help, here},
const CommandDeclaration kDeclared[] = {CROSSOVER_COMMANDS(CROSSOVER_HERE)};
#undef CROSSOVER_HERE

}  // namespace

int main(int argc, char** argv) {
  const std::string name = crossover::named_command(argc, argv);
  const auto here = std::find_if(std::begin(kDeclared), std::end(kDeclared),
                                 [&](const auto& command) { return name == command.name; });
  if (here != std::end(kDeclared) && here->add != kStartTorch) {
    try {
      return crossover::run_command_line(argc, argv, {*here});
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
