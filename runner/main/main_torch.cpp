// crossover-torch: every command of crossover, LibTorch loaded. `crossover` starts it in its
// place for the commands that train, measure or load a model (runner/main/main.cpp); it can be run
// directly as well.
#include "runner/cli/command_line.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/execution/anatomy.hpp"
#include "runner/grid/model_check.hpp"
#include "runner/main/command_list.hpp"

int main(int argc, char** argv) {
  using namespace crossover;
  // A grid's own models are loaded, each in a child process, here only.
  user_model_check = [](const std::vector<Cell>& models, double seconds) {
    return check_user_models(models, {}, seconds);
  };
  // And a cell's anatomy taken on this CPU for predict --check.
  take_twin_anatomy = record_twin_anatomy;
  // Every command, in the order of --help.
#define CROSSOVER_TORCH(name, help, here, torch) CommandDeclaration{name, help, torch},
  return run_command_line(argc, argv, {CROSSOVER_COMMANDS(CROSSOVER_TORCH)});
#undef CROSSOVER_TORCH
}
