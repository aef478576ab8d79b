// crossover-torch: every command of crossover, LibTorch loaded. `crossover` starts it in its
// place for the commands that train, measure or load a model (runner/cli/main.cpp); it can be run
// directly as well.
#include "runner/cli/command_line.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/execution/anatomy.hpp"
#include "runner/grid/model_check.hpp"

int main(int argc, char** argv) {
  using namespace crossover;
  // A grid's own models are loaded, each in a child process, here only.
  user_model_check = [](const std::vector<Cell>& models, double seconds) {
    return check_user_models(models, {}, seconds);
  };
  // And a cell's anatomy taken on this CPU for predict --check.
  take_twin_anatomy = record_twin_anatomy;
  // In the order of --help.
  return run_command_line(
      argc, argv,
      {add_run_command, add_report_command, add_compare_command, add_calibrate_command,
       add_worker_command, add_validate_command, add_keys_command, add_list_command,
       add_bench_command, add_env_command, add_example_model_command, add_merge_command,
       add_profile_command, add_predict_command, add_catalog_command, add_history_command});
}
