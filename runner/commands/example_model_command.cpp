// crossover example-model: writes a small TorchScript model, so that the torchscript workload can
// be tried without Python (configs/torchscript-example.json trains it).
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <stdexcept>

#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "workloads/models/user_model.hpp"

namespace crossover {
namespace {

int example_model_command(const std::string& path) {
  or_exit(kExitBadInput, [&] { write_example_model(path); });
  std::cout << path << ": " << kExampleModelText << "\n";
  return kExitOk;
}

}  // namespace

Command add_example_model_command(CLI::App& subcommand) {
  auto path = std::make_shared<std::string>();
  CLI::App* command = &subcommand;
  add_output_option(*command, "path", *path, "Where to write it (a .pt file)", OutputKind::kFile)
      ->required();
  return {command, [path] { return example_model_command(*path); }};
}

}  // namespace crossover
