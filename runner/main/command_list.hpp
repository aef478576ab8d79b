#pragma once
// Every command of crossover, declared once, in the order of --help: its name, its help line,
// and the functions that add its options (its file, runner/commands/<name>_command.cpp). Both
// programs read this list: crossover-torch (main_torch.cpp) adds every command's `torch` function;
// crossover (main.cpp), which links no LibTorch, adds a command's `here` function, and for a
// command whose `here` is kStartTorch it starts crossover-torch in its place. A macro list, as
// LLVM's .def files: expanded for one program, a row names no function of the other, so
// crossover never links a command that loads LibTorch.
//
// Adding a command: its file under runner/commands/ (the build takes every .cpp there), a row
// here with its add function declared below, its section in docs/commands.md.

#include "runner/cli/commands.hpp"

namespace crossover {

Command add_run_command(CLI::App& subcommand);
/// `run` in `crossover`, without LibTorch: its checks, and the run handed to crossover-torch when
/// they pass (runner/commands/run_checks.hpp).
Command add_run_checks_command(CLI::App& subcommand);
Command add_report_command(CLI::App& subcommand);
Command add_compare_command(CLI::App& subcommand);
Command add_calibrate_command(CLI::App& subcommand);
Command add_worker_command(CLI::App& subcommand);
Command add_validate_command(CLI::App& subcommand);
Command add_keys_command(CLI::App& subcommand);
Command add_list_command(CLI::App& subcommand);
Command add_bench_command(CLI::App& subcommand);
Command add_env_command(CLI::App& subcommand);
Command add_example_model_command(CLI::App& subcommand);
Command add_merge_command(CLI::App& subcommand);
Command add_profile_command(CLI::App& subcommand);
Command add_predict_command(CLI::App& subcommand);
Command add_catalog_command(CLI::App& subcommand);
Command add_history_command(CLI::App& subcommand);

}  // namespace crossover

// CROSSOVER_COMMAND(name, help, here, torch) for each command. `here`: kStartTorch where the
// command needs LibTorch (crossover starts crossover-torch for it).
// clang-format off
#define CROSSOVER_COMMANDS(CROSSOVER_COMMAND)                                                      \
  CROSSOVER_COMMAND("run", "Run every cell of a grid and write results and reports",               \
    add_run_checks_command, add_run_command)                                                       \
  CROSSOVER_COMMAND("report",                                                                      \
    "Regenerate a run's reports (report.md, report.html, summary.json, results.csv and the "       \
    "trackers' files; report --help lists them) from a results file, comparing any axis",       \
    add_report_command, add_report_command)                                                        \
  CROSSOVER_COMMAND("compare",                                                                     \
    "Compare two runs of a grid cell by cell and decide, with statistics, whether the candidate "  \
    "regressed (exit 0: no regression, 1: a regression, a cell that failed in the candidate or "   \
    "a --require that was not met, 2: bad input)",                                                 \
    add_compare_command, add_compare_command)                                                      \
  CROSSOVER_COMMAND("calibrate",                                                                   \
    "Measure how far compare can be trusted on this runner: --pairs A/A pairs of runs of GRID "    \
    "and as many with a planted slowdown (busy processes competing with the cells); writes "       \
    "calibrate.json (false-alarm and detection rates, run-to-run variation per cell, the "         \
    "smallest slowdown caught) for compare --calibration",                                         \
    add_calibrate_command, add_calibrate_command)                                                  \
  CROSSOVER_COMMAND("worker",                                                                      \
    "Run one cell in this process, as `run` starts isolated cells and ddp ranks; for a ddp cell "  \
    "one rank, also under `torchrun --no-python` across machines (reads MASTER_ADDR, "             \
    "MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK)",                                                  \
    kStartTorch, add_worker_command)                                                               \
  CROSSOVER_COMMAND("validate", "Check a grid and report every problem; runs nothing",             \
    add_validate_command, add_validate_command)                                                    \
  CROSSOVER_COMMAND("keys",                                                                        \
    "List every grid key with its role (identity, protection, policy), values and default",        \
    add_keys_command, add_keys_command)                                                            \
  CROSSOVER_COMMAND("list",                                                                        \
    "List workloads, devices, the data sets found and the shipped machine profiles",               \
    kStartTorch, add_list_command)                                                                 \
  CROSSOVER_COMMAND("bench",                                                                       \
    "Run the micro-benchmarks (one family per seed-004 tip, data path, BLAS threads, harness "     \
    "overhead) and write Google Benchmark JSON",                                                   \
    add_bench_command, add_bench_command)                                                          \
  CROSSOVER_COMMAND("env", "Describe the machine and libraries (BLAS, threads, CUDA, GPUs)",       \
    kStartTorch, add_env_command)                                                                  \
  CROSSOVER_COMMAND("example-model",                                                               \
    "Write a small TorchScript model (an MLP, input_shape [20], classes 4) to try the "            \
    "torchscript workload without Python: configs/torchscript-example.json trains it",             \
    kStartTorch, add_example_model_command)                                                        \
  CROSSOVER_COMMAND("merge",                                                                       \
    "Join the shards of one grid (run --shard K/N) into one run: one results.jsonl, each "         \
    "shard's environment kept, every report; refuses shards of different grids, overlapping "      \
    "parts or cells, cells not in the grid, links, and an --out that holds a run's files; "        \
    "marks cells no shard ran `not run` (--resume of the merged run measures them)",               \
    add_merge_command, add_merge_command)                                                          \
  CROSSOVER_COMMAND("profile",                                                                     \
    "Measure this machine for the cost model: per device the cost per dispatched operator, "       \
    "matrix-multiply throughput on a ladder of sizes, memory bandwidth, and on a GPU the "         \
    "host-to-device bandwidth and synchronisation latency; a profile for run --profile and "       \
    "--predict, and predict --check",                                                              \
    kStartTorch, add_profile_command)                                                              \
  CROSSOVER_COMMAND("predict",                                                                     \
    "Score the cost model against measured runs: predict their every ok cell with a profile "      \
    "(from the anatomy the run recorded, its anatomy.jsonl, or taken again on this machine's "     \
    "CPU) and print predicted (with its band) against measured per cell, the median "              \
    "absolute error and the band's coverage per device, the winner of every pair (right, "         \
    "wrong or undecided) and where the predictions place the measured crossings, each as run "     \
    "--predict gives them (the CPU side measured, the GPU's predicted) and with both sides "       \
    "predicted. A run whose cells set the profile's band is scored against one fitted "            \
    "without it (leave one run out)",                                                              \
    add_predict_command, add_predict_command)                                                      \
  CROSSOVER_COMMAND("catalog",                                                                     \
    "Which GPU would beat this CPU, and at what price: run a grid's CPU cells here (run "          \
    "--predict), predict its CUDA cells on every GPU of the catalog from their datasheets "        \
    "(profiles/datasheets/catalog.json; crossover list), and print one table: per cell and GPU "   \
    "the predicted epoch with its band, the speedup against this CPU, the winner or "              \
    "undecided, and with prices the cost per epoch and the cheapest GPU that wins. Every GPU "     \
    "number is a prediction, labelled so",                                                         \
    add_catalog_command, add_catalog_command)                                                      \
  CROSSOVER_COMMAND("history",                                                                     \
    "Runs of one grid over time: each cell's epoch medians in commit order and where they "        \
    "shifted (E-divisive means with a permutation test); writes history.json, history.md and "     \
    "history.html",                                                                                \
    add_history_command, add_history_command)
// clang-format on
