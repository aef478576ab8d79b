// crossover profile: this machine's constants for the cost model, measured, as a profile file.
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

#include "core/files/file_writer.hpp"
#include "core/files/run_files.hpp"
#include "core/text/text.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/execution/busy_load.hpp"
#include "runner/machine/profile_derive.hpp"
#include "runner/machine/profile_measure.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

struct ProfileArgs {
  std::string out;  ///< "" = standard output
  std::string name;
  bool quick = false;
  std::vector<std::string> derive;  ///< --derive RUN...: derived from measured runs
  std::string data_dir = "data";
};

// The profile's numbers in a few lines, for people.
std::string summary(const MachineProfile& p) {
  std::string text = "profile " + p.name + ": " + p.cpu_model + ", " +
                     std::to_string(p.logical_cores) + " logical cores, LibTorch " +
                     p.libtorch_version + (p.cuda ? ", " + p.gpu_name : "") + "\n";
  const auto line = [&](const std::string& what, const DeviceProfile& d) {
    text += "  " + what + ": " + format_seconds(d.dispatch_seconds) + " per operator; matmul " +
            format_number(d.gemm.front().second / 1e9) +
            " GFLOP/s at n=" + format_number(d.gemm.front().first) + " to " +
            format_number(d.gemm.back().second / 1e9) +
            " at n=" + format_number(d.gemm.back().first) + "; memory " +
            format_number(d.memory_bytes_per_second / 1e9) + " GB/s";
    if (d.h2d_pageable_bytes_per_second > 0.0)
      text += "; host to device " + format_number(d.h2d_pageable_bytes_per_second / 1e9) +
              " GB/s pageable, " + format_number(d.h2d_pinned_bytes_per_second / 1e9) +
              " GB/s pinned; sync " + format_seconds(d.sync_seconds);
    if (d.graph_op_seconds > 0.0)
      text += "; " + format_seconds(d.graph_op_seconds) + " per operator in a graph replay";
    text += "\n";
  };
  line("cpu, one thread", p.cpu_one_thread);
  line("cpu, every core", p.cpu_all_threads);
  if (p.cuda) line("cuda", *p.cuda);
  return text;
}

int profile_command(const ProfileArgs& args) {
  if (!is_profile_text(args.name)) {
    spdlog::error("--name: {}: the name goes into reports and the terminal", kProfileTextRule);
    return kExitBadInput;
  }
  if (!args.out.empty()) {
    std::vector<std::string> inputs;  // --derive's runs: their files, by any name
    for (const std::string& run : args.derive)
      for (const char* file : {kResultsFile, kEnvFile}) inputs.push_back(run_file(run, file));
    inputs.insert(inputs.end(), args.derive.begin(), args.derive.end());
    if (const Found problem = output_file_problem(args.out, inputs)) {
      spdlog::error("--out {}", problem->text);
      return kExitBadInput;
    }
  }
  // A profile taken beside other work reads the machine slow (on the H200, every core at 7.6
  // GFLOP/s while killed tests still ran, 1,739 when alone) and would mislead every prediction.
  if (const int others = other_running_processes(); others > 0) {
    spdlog::warn(
        "{} other process(es) are running on the CPUs: the profile will read this "
        "machine slower than it is; measure it when nothing else runs",
        others);
  }
  ProfileOptions options;
  options.quick = args.quick;
  options.name = args.name;
  MachineProfile profile = measure_profile(options);
  if (!args.derive.empty()) {
    profile = or_exit(
        kExitBadInput,
        [&] {
          std::vector<RunRecord> runs;
          for (const std::string& run : args.derive) runs.push_back(load_run(run));
          return derive_profile(args.name.empty() ? "derived" : args.name, runs, profile,
                                args.data_dir);
        },
        "--derive: ");
  }
  // What is written must read back: a number outside its range (derived from a hand-edited
  // env.json) is refused here, never stored for predict to refuse later.
  const std::string text = json_text(profile_to_json(profile), 2) + "\n";
  or_exit(
      args.derive.empty() ? kExitRunFailed : kExitBadInput,
      [&] { profile_from_json(nlohmann::json::parse(text)); },
      std::string("the profile ") + (args.derive.empty() ? "measured" : "derived") +
          " would not read back (",
      "); nothing was written");
  if (args.out.empty()) {
    std::cout << text;
    return kExitOk;
  }
  or_exit(kExitRunFailed, [&] { write_text_file(args.out, text); });
  std::cout << summary(profile) << "Written: " << args.out << "\n";
  return kExitOk;
}

}  // namespace

Command add_profile_command(CLI::App& subcommand) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* profile = &subcommand;
  add_output_option(*profile, "--out", args->out,
                    "The profile file to write (default: standard output)", OutputKind::kFile);
  profile->add_option("--name", args->name, "The profile's name (default: the host name)");
  profile->add_option("--derive", args->derive,
                      "RUN...: derive the profile from runs measured on the machine to be "
                      "profiled (one that cannot be measured here), each constant from the "
                      "cells that show it; the formulas and cells are in its provenance "
                      "(docs/methodology.md)");
  add_data_dir_option(*profile, args->data_dir,
                      "With --derive, to take each cell's anatomy again on this CPU: ");
  profile->add_flag("--quick", args->quick,
                    "The quick profile every run measures (a quarter of a second), not the "
                    "full one (well under a minute per device)");
  return {profile, [args] { return profile_command(*args); }};
}

}  // namespace crossover
