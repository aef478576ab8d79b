// crossover list: the workloads, the devices and the data sets found.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "core/text.hpp"
#include "reports/table.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/devices.hpp"
#include "workloads/catalog.hpp"
#include "workloads/image_files.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

int list_command(const std::string& data_dir) {
  TextTable workloads;
  workloads.header = {"workload", "seed",  "model",  "datasets", "optimizer",
                      "lr",       "batch", "epochs", "loader",   "MFLOP/sample"};
  workloads.right_aligned = {false, false, false, false, false, true, true, true, false, true};
  for (const auto& w : workload_catalog()) {
    workloads.rows.push_back({w.name, w.seed, w.model, join(w.datasets), w.optimizer,
                              format_number(w.lr), size_text(w.batch_size),
                              std::to_string(w.epochs), text_of(w.loader),
                              w.flops_per_sample > 0 ? format_number(w.flops_per_sample / 1e6)
                                                     : std::string("per cell")});
  }
  std::cout
      << "Workloads (defaults as in their seed; MFLOP/sample: analytical, one training step)\n"
      << render_text_table(workloads) << "\n";
  for (const auto& w : workload_catalog()) std::cout << "  " << w.name << ": " << w.notes << "\n";

  const DeviceInventory inventory = probe_devices();
  std::cout << "\nDevices\n  cpu\n";
  for (int i = 0; i < inventory.cuda_devices; ++i) std::cout << "  cuda:" << i << "\n";
  if (!inventory.cuda_compiled) {
    std::cout << "  (no CUDA: this build's LibTorch has none)\n";
  } else if (inventory.cuda_devices == 0) {
    std::cout << "  (CUDA compiled in, but no CUDA device found)\n";
  }

  const std::string missing = "missing: synthetic data will be used (run scripts/fetch-data.sh)";
  std::cout << "\nData sets under " << data_dir << "/\n";
  for (const auto& dataset : {"iris", "boston"}) {
    const std::string path = data_dir + "/" + tabular_file(dataset);
    std::error_code error;  // a link loop or an over-long name reads as missing, not an abort
    std::cout << "  " << dataset << ": " << (fs::exists(path, error) ? path : missing) << "\n";
  }
  for (const auto& dataset : {"mnist", "fashion_mnist", "cifar10"}) {
    const std::string path = data_dir + "/" + image_directory(dataset);
    const std::string fetch = std::string(dataset) == "fashion_mnist" ? "" : " --download";
    std::cout << "  " << dataset << ": "
              << (have_image_files(dataset, data_dir)
                      ? path + "/"
                      : "missing: synthetic data will be used (run scripts/fetch-data.sh" + fetch +
                            ")")
              << "\n";
  }
  return kExitOk;
}

}  // namespace

Command add_list_command(CLI::App& app) {
  auto args = std::make_shared<std::string>("data");
  CLI::App* list = app.add_subcommand("list", "List workloads, devices and the data sets found");
  list->add_option("--data-dir", *args, kDataDirHelp)->envname(kDataDirVariable);

  return {list, [args] { return list_command(*args); }};
}

}  // namespace crossover
