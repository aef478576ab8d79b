// crossover list: the workloads, the devices and the data sets found.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "core/costmodel/machine_profile.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "reports/render/table_writer.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/named_profiles.hpp"
#include "runner/hardware/devices.hpp"
#include "workloads/data/catalog.hpp"
#include "workloads/data/datasets.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

std::string shape_text(const DatasetInfo& d) {
  const std::string target = d.classes > 0 ? std::to_string(d.classes) + " classes" : "a number";
  if (d.kind == DatasetKind::kImages) {
    return std::to_string(d.channels) + "x" + std::to_string(d.side) + "x" +
           std::to_string(d.side) + " images, " + target;
  }
  if (d.features == 0) return "the workload's";
  return std::to_string(d.features) + " features, " + target;
}

// Where the data set is under `data_dir`, or what stands in for it and how to fetch it.
std::string found_text(const DatasetInfo& d, const std::string& data_dir) {
  if (d.kind == DatasetKind::kMadeInMemory) return "made in memory: " + d.stand_in;
  // A link loop or an over-long name reads as missing, not as an abort.
  if (have_dataset_files(d, data_dir))
    return data_dir + "/" + d.location + (d.kind == DatasetKind::kImages ? "/" : "");
  return "missing: synthetic data will be used (run " + d.fetch + ")";
}

TextTable dataset_table(const std::string& data_dir) {
  TextTable table;
  table.header = {"dataset", "shape", "train", "test", "from", "here"};
  table.right_aligned = {false, false, true, true, false, false};
  const bool tests = std::getenv(kTestWorkloadsVariable) != nullptr;
  for (const auto& d : dataset_catalog()) {
    if (d.name == "standin" && !tests) continue;
    const auto rows = [&](std::int64_t n) {
      return n > 0 ? format_axis_value(static_cast<double>(n)) : std::string("-");
    };
    table.rows.push_back({d.name, shape_text(d), rows(d.train_rows()), rows(d.test_rows()),
                          d.source.empty() ? "-" : d.source, found_text(d, data_dir)});
  }
  return table;
}

// The shipped machine profiles (shipped_profiles: beside the binary or in its checkout), by the
// name --predict cuda=NAME and --profile NAME take from any folder, with how far each band holds.
std::string profiles_text() {
  TextTable table;
  table.header = {"name", "profile", "GPU", "CPU", "band (cuda)", "file"};
  for (const ShippedProfile& shipped : shipped_profiles()) {
    const Found unreadable = problem_of([&] {
      const MachineProfile profile = load_profile(shipped.path);
      const auto v = profile.validation.find(DeviceKind::kCuda);
      std::string band = "none";
      if (v != profile.validation.end() && v->second.band.factor > 0.0) {
        band = "x" + format_number(v->second.band.factor) + ", " +
               (v->second.coverage_method == kLeaveOneRunOut
                    ? format_percent(v->second.coverage.share(), false) + " of " +
                          std::to_string(v->second.coverage.cells) + " cells, runs left out"
                    : std::string("coverage not measured"));
      }
      table.rows.push_back(
          {shipped.name, profile.name, profile.gpu_name.empty() ? "-" : profile.gpu_name,
           profile.cpu_model + ", " + std::to_string(profile.logical_cores) + " cores", band,
           shipped.path});
    });
    if (unreadable)
      table.rows.push_back({shipped.name, "unreadable", unreadable->text, "-", "-", shipped.path});
  }
  if (table.rows.empty()) return "";
  return "\nMachine profiles (predict a GPU this machine lacks: run --predict cuda=NAME; "
         "predict --check RUN --profile NAME)\n" +
         render_text_table(table);
}

// The catalog's GPUs (profiles/datasheets/catalog.json), each by the name --predict cuda=NAME and
// `catalog --gpus` take: its figures and where its profile's band was measured.
std::string catalog_text() {
  DatasheetCatalog catalog;
  if (const Found unreadable = problem_of([&] { catalog = load_catalog(); }))
    return "\nGPUs from their datasheets: " + unreadable->text + "\n";
  TextTable table;
  table.header = {"name",        "GPU",       "architecture", "FP32 TFLOPS",
                  "memory GB/s", "host link", "TDP W"};
  table.right_aligned = {false, false, false, true, true, false, true};
  for (const Datasheet& card : catalog.cards)
    table.rows.push_back(
        {card.name, card.gpu, card.architecture, format_number(card.fp32_flops_per_second / 1e12),
         format_number(card.memory_bytes_per_second / 1e9),
         "PCIe " + std::to_string(card.pcie_generation) + ".0 x" + std::to_string(card.pcie_lanes),
         format_number(card.tdp_watts)});
  return "\nGPUs from their datasheets (predicted, never measured: run --predict cuda=NAME; "
         "crossover catalog GRID for all of them; each figure's source in " +
         catalog_file() + ")\n" + render_text_table(table);
}

int list_command(const std::string& data_dir) {
  TextTable workloads;
  workloads.header = {"workload", "seed",  "model",  "datasets", "optimizer",
                      "lr",       "batch", "epochs", "loader",   "MFLOP/sample"};
  workloads.right_aligned = {false, false, false, false, false, true, true, true, false, true};
  for (const auto& w : workload_catalog()) {
    workloads.rows.push_back({w.name, w.seed, w.model, join(w.datasets), text_of(w.optimizer),
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

  std::cout << "\nData sets under " << data_dir
            << "/ (train: a cell's rows at dataset_size "
               "\"full\")\n"
            << render_text_table(dataset_table(data_dir)) << profiles_text() << catalog_text();
  return kExitOk;
}

}  // namespace

Command add_list_command(CLI::App& subcommand) {
  auto args = std::make_shared<std::string>("data");
  CLI::App* list = &subcommand;
  add_data_dir_option(*list, *args);

  return {list, [args] { return list_command(*args); }};
}

}  // namespace crossover
