// Every grid key's declaration: name, JSON type and values, default, role, description, and the
// key's own rules over a whole cell (normalisation, grid problems, skip reasons). The registry
// functions that read them are in core/cells/keys.cpp.
#include <string>
#include <utility>

#include "core/cells/key_builder.hpp"

namespace crossover {
namespace {

using namespace key_builder;  // NOLINT: the declarations read as a table

// What is measured: the model, the data and the data path.
void declare_data_keys(Keys& keys) {
  const auto add = [&keys](GridKey key) { keys.push_back(std::move(key)); };
  add(Declare("workload", kText, &Cell::workload)
          .not_settable()
          .fixed_column()
          .expects("a workload (see `crossover list`)")
          .means("the model and its training recipe; set by each experiment's \"workload\""));
  add(Declare("dataset", kText, &Cell::dataset)
          .values_from_workload()
          .expects("a data set the workload accepts")
          .means("a data set the workload accepts (see `crossover list`)")
          .defaults_to("the workload's"));
  add(Declare("device", kText, &Cell::device)
          .fixed_column()
          .value_synonyms({{"gpu", "cuda"}, {"cuda0", "cuda:0"}, {"cuda:", "cuda"}})
          .choices({"cpu", "cuda", "cuda:0"})
          .pattern("cpu|cuda(:[0-9]{1,3})?")
          .expects("\"cpu\", \"cuda\" or \"cuda:N\"")
          .means("`\"cpu\"`, `\"cuda\"`, `\"cuda:N\"`"));
  add(Declare("batch_size", &Cell::batch_size)
          .fixed_column()
          .also_called({"batch", "bs", "batchsize", "batch-size"})
          .numeric_axis()
          .problem([](const Cell& c) -> Found {
            const int n = replicas(c);
            if (c.batch_size == kFull || c.batch_size >= n) return std::nullopt;
            return Problem("batch_size " + std::to_string(c.batch_size) + " is smaller than the " +
                           std::to_string(n) + " replicas: some would get no data");
          })
          .range(1, 1e9)
          .expects("a positive integer or \"full\"")
          .means("a positive integer or `\"full\"` (the whole training split per step)")
          .defaults_to("the workload's"));
  add(Declare("dataset_size", &Cell::dataset_size)
          .fixed_column()
          .also_called({"size", "rows", "n_samples", "samples"})
          .numeric_axis()
          .range(1, 1e9)
          .expects("a positive integer or \"full\"")
          .means("training rows: a positive integer or `\"full\"`; fewer rows are a seeded "
                 "subsample, more rows are drawn with replacement from the training split; the "
                 "test split never changes"));
}

// What is measured: the data path.
void declare_data_path_keys(Keys& keys) {
  const auto add = [&keys](GridKey key) { keys.push_back(std::move(key)); };
  add(Declare("loader", &Cell::loader)
          .fixed_column()
          .knob()
          .expects("\"tensor\" or \"dataloader\"")
          .means("`\"tensor\"` or `\"dataloader\"` (docs/grids.md#the-data-path)")
          .defaults_to("the workload's"));
  add(Declare("data_placement", &Cell::data_placement)
          .fixed_column()
          .knob()
          .normalise([](Cell& c) {  // a dataloader's batches are made on the host
            if (c.loader == Loader::kDataLoader) c.data_placement = Placement::kHost;
          })
          .on_cpu("device")
          .expects("\"device\" or \"host\"")
          .means("`\"device\"` or `\"host\"`: where the tensor loader keeps the data set "
                 "(`dataloader` batches are always made on the host; on the CPU it is "
                 "`\"device\"`)"));
  add(Declare("num_workers", kInteger, &Cell::num_workers)
          .fixed_column()
          .also_called({"workers", "n_workers"})
          .numeric_axis()
          .knob()
          .skip_when([](const Cell& c) -> Found {
            if (c.num_workers > 0 && c.loader != Loader::kDataLoader)
              return Problem(
                  "num_workers > 0 needs loader \"dataloader\"; the tensor loader cuts batches "
                  "from one tensor and has no workers");
            return std::nullopt;
          })
          .range(0, 256)
          .expects("an integer from 0 to 256")
          .means("0 to 256: DataLoader worker threads"));
  add(Declare("pin_memory", kBoolean, &Cell::pin_memory)
          .fixed_column()
          .also_called({"pin", "pinned"})
          .knob()
          .skip_when([](const Cell& c) -> Found {
            if (!c.pin_memory) return std::nullopt;
            if (!c.device.is_cuda())
              return Problem(
                  "pin_memory needs CUDA: pinned host memory only speeds up copies to a CUDA "
                  "device");
            if (c.loader == Loader::kTensor && c.data_placement == Placement::kDevice)
              return Problem(
                  "pin_memory stages host batches, but with loader \"tensor\" on the device "
                  "there are none (use data_placement \"host\" or loader \"dataloader\")");
            return std::nullopt;
          })
          .expects("true or false")
          .means("`true` / `false`: page-locked host memory for copies to a CUDA device"));
}

// Where it runs: replicas and GPUs.
void declare_replica_keys(Keys& keys) {
  const auto add = [&keys](GridKey key) { keys.push_back(std::move(key)); };
  add(Declare("gpus", kInteger, &Cell::gpus)
          .fixed_column()
          .numeric_axis()
          .normalise([](Cell& c) {  // one GPU per ddp rank
            if (c.parallel == Parallel::kDdp && c.device.is_cuda()) c.gpus = c.nproc;
          })
          .problem([](const Cell& c) -> Found {
            if (c.parallel == Parallel::kNone && c.device.is_cuda() && c.gpus > 1)
              return Problem("gpus " + std::to_string(c.gpus) +
                             " needs parallel \"dp\" or \"ddp\" to use more than one GPU");
            return std::nullopt;
          })
          .range(1, 1024)
          .on_cpu(0)
          .expects("an integer from 1 to 1024")
          .means("1 to 1024: GPUs used by a CUDA cell (ignored on the CPU, recorded as 0; more "
                 "than 1 needs `parallel`)"));
  add(Declare("parallel", &Cell::parallel)
          .value_synonyms({{"DataParallel", "dp"}, {"DistributedDataParallel", "ddp"}})
          .skip_when([](const Cell& c) -> Found {
            if (c.parallel == Parallel::kDp && !c.device.is_cuda())
              return Problem(
                  "dp replicates the model over CUDA devices; on the CPU use parallel \"ddp\" "
                  "(Gloo; docs/distributed.md)");
            return std::nullopt;
          })
          .added_later()
          .expects("\"none\", \"dp\" or \"ddp\"")
          .means("`\"none\"`, `\"dp\"` (LibTorch's DataParallel over `gpus` CUDA devices from "
                 "`device`, loss on `output_device`; CUDA builds only) or `\"ddp\"` (one process "
                 "per replica, c10d; docs/distributed.md)"));
  add(Declare("nproc", kInteger, &Cell::nproc)
          .problem([](const Cell& c) -> Found {
            if (c.parallel != Parallel::kDdp && c.nproc != 1)
              return Problem("nproc " + std::to_string(c.nproc) + " needs parallel \"ddp\"");
            return std::nullopt;
          })
          .range(1, 1024)
          .added_later()
          .expects("an integer from 1 to 1024 (ddp ranks in all)")
          .means(
              "ddp: ranks in all, one process each (the world size; `run` starts them on this "
              "machine, torchrun on several); on CUDA each rank uses one GPU (`gpus` = `nproc`)"));
  add(Declare("output_device", kInteger, &Cell::output_device)
          .normalise([](Cell& c) {
            if (c.parallel != Parallel::kDp) c.output_device = 0;
          })
          .problem([](const Cell& c) -> Found {
            if (c.parallel == Parallel::kDp && c.device.is_cuda() && c.output_device >= c.gpus)
              return Problem("output_device " + std::to_string(c.output_device) +
                             " is not among the GPUs used (0 to " + std::to_string(c.gpus - 1) +
                             ")");
            return std::nullopt;
          })
          .range(0, 1023)
          .added_later()
          .expects("an integer from 0 (dp: index among the GPUs)")
          .means("dp: the GPU, by index among those used, that gathers the outputs and computes "
                 "the loss"));
}

// How much is measured: threads, then epochs timed and untimed.
void declare_epoch_keys(Keys& keys) {
  const auto add = [&keys](GridKey key) { keys.push_back(std::move(key)); };
  add(Declare("threads", kInteger, &Cell::threads)
          .also_called({"num_threads", "n_threads", "omp_threads"})
          .numeric_axis()
          .knob()
          .host_only()
          .range(0, 4096)
          .expects("an integer from 0 (library default) to 4096")
          .means("0 (library defaults) or a thread count that bounds **every** pool: LibTorch "
                 "intra-op, OpenMP and the BLAS library's own threads (`run --predict` predicts a "
                 "CUDA cell once, at 0, and pairs it with the CPU cell of each value)"));
  add(Declare("epochs", kInteger, &Cell::epochs)
          .numeric_axis()
          .range(1, 1e8)
          .expects("an integer from 1 to 100000000")
          .means("timed epochs per repeat")
          .defaults_to("the workload's"));
  add(Declare("warmup_epochs", kInteger, &Cell::warmup_epochs)
          .range(0, 1e6)
          .expects("an integer from 0 to 1000000")
          .means("untimed epochs before each repeat"));
}

// How long and how often it is measured; then what is measured, again: timing and seeds.
void declare_policy_keys(Keys& keys) {
  const auto add = [&keys](GridKey key) { keys.push_back(std::move(key)); };
  add(Declare("min_repeats", kInteger, &Cell::min_repeats)
          .role(KeyRole::kPolicy)
          .range(1, 10000)
          .expects("an integer from 1 to 10000")
          .means("the fewest repetitions of adaptive repetition"));
  add(Declare("max_repeats", kInteger, &Cell::max_repeats)
          .role(KeyRole::kPolicy)
          .range(1, 10000)
          .expects("an integer from 1 to 10000")
          .means("the most repetitions of adaptive repetition"));
  add(Declare("repeats", kInteger,
              [](Cell& cell, const nlohmann::json& value) {
                cell.min_repeats = cell.max_repeats = json_as<int>(value);
              })
          .role(KeyRole::kPolicy)
          .range(1, 10000)
          .expects("an integer from 1 to 10000 (a fixed count)")
          .means("a fixed number of repetitions, each from a freshly initialised model (sets "
                 "both `min_repeats` and `max_repeats`; not a results column)")
          .defaults_to("—"));
  add(Declare("processes", kInteger, &Cell::processes)
          .role(KeyRole::kPolicy)
          .range(1, 100)
          .added_later()
          .expects("an integer from 1 to 100")
          .means("spread the repeats (and the time budget) over this many child processes, one "
                 "after another, each with its own warm-up: the results keep each process's "
                 "median (`process_epoch_seconds`) and the last process's metric and anatomy (the "
                 "others skip evaluating and taking the step apart), and `compare` tests a change "
                 "against the "
                 "variation between processes, which one process cannot show (docs/ci.md)"));
  add(Declare("time_budget_seconds", kNumber, &Cell::time_budget_seconds)
          .role(KeyRole::kPolicy)
          .range(0, 1e7)
          .expects("a number of seconds from 0")
          .means("per cell: no new repeat starts after this (the minimum always runs)"));
  add(Declare("ci_target", kNumber, &Cell::ci_target)
          .role(KeyRole::kPolicy)
          .range(1e-6, 1)
          .expects("a relative width above 0 and at most 1 (0.02 = 2 %)")
          .means("stop when the median's 95 % CI is this narrow, relative to the median"));
  // What is measured, again.
  add(Declare("timing", &Cell::timing)
          .fixed_column()
          .expects("\"end_to_end\" or \"phases\"")
          .means("`\"end_to_end\"` or `\"phases\"` (synchronised per-phase times; adds syncs)"));
  add(Declare("count", &Cell::count)
          .normalise([](Cell& c) {
            if (c.device.is_cuda()) c.count = Count::kNone;  // a GPU's kernels are not counted
            if (c.count != Count::kNone) c.isolate = true;   // its own process, under the counter
          })
          .added_later()
          .expects("\"none\", \"instructions\" or \"cycles\"")
          .means("`\"instructions\"`: also count the instructions each timed epoch executes, "
                 "the gate that a busy runner cannot move (`compare --metric instructions`); "
                 "`\"cycles\"`: also cycles estimated from Callgrind's cache simulation. Hardware "
                 "counters where the machine has them, else Callgrind (valgrind), 10-50x slower: "
                 "keep counted cells small. The cell runs exactly min_repeats repeats in a process "
                 "of its own, is neither evaluated nor taken apart, and its times are taken under "
                 "the counter. CPU cells: a CUDA cell is timed only "
                 "(docs/ci.md#counted-cells-a-gate-the-runners-noise-cannot-move)"));
  add(Declare("deterministic", kBoolean, &Cell::deterministic)
          .expects("true or false")
          .means("`true`: deterministic algorithms, cuDNN deterministic, benchmark off"));
  add(Declare("seed", kInteger, &Cell::seed)
          .also_called({"random_seed", "rng_seed"})
          .range(0, 9.0e15)
          .expects("a non-negative integer")
          .means("seeds the split, the resampling and the weights"));
}

// How the cell is guarded; then what is measured: the optimiser.
void declare_guard_and_optimizer_keys(Keys& keys) {
  const auto add = [&keys](GridKey key) { keys.push_back(std::move(key)); };
  add(Declare("isolate", kBoolean, &Cell::isolate)
          .normalise([](Cell& c) {  // a timeout needs a process to end
            if (c.timeout_seconds > 0.0) c.isolate = true;
          })
          .role(KeyRole::kProtection)
          .on_cuda(true)
          .added_later()
          .expects("true or false")
          .means("`true`: run the cell in a child process (`crossover worker`), so that an abort, "
                 "a segfault, an out-of-memory kill or a hang costs only this cell — it becomes "
                 "`failed` with the signal and the last lines the child wrote. Isolated cells "
                 "run on warm workers, kept between cells of one device, `threads` and "
                 "`deterministic`: LibTorch's start (about 0.9 s) is paid once per worker, not per "
                 "cell (`run --fresh-process-per-cell`: once per cell)")
          .defaults_to("`true` for CUDA cells, `false` for CPU cells"));
  add(Declare("timeout_seconds", kNumber, &Cell::timeout_seconds)
          .role(KeyRole::kProtection)
          .range(0, 1e7)
          .added_later()
          .expects("a number of seconds from 0 (0: the default)")
          .means("end the cell as `failed` (\"timed out after N s\") after this long; isolates "
                 "the cell. 0 = the default, 4 × `time_budget_seconds` + 120 s (6 minutes at the "
                 "default budget): an isolated cell is then killed and fails alone, a cell in the "
                 "run's own process ends the run with its name (the cells before it kept; `run "
                 "--resume` continues)"));
  // What is measured: the optimiser.
  add(Declare("optimizer", &Cell::optimizer)
          .expects("\"sgd\" or \"adam\"")
          .means("`\"sgd\"` or `\"adam\"`")
          .defaults_to("the workload's"));
  add(Declare("lr", kNumber, &Cell::lr)
          .also_called({"learning_rate", "learning-rate"})
          .range(1e-12, 100)
          .expects("a number greater than 0 and at most 100")
          .means("learning rate")
          .defaults_to("the workload's"));
  add(Declare("momentum", kNumber, &Cell::momentum)
          .range(0, 0.999999)
          .expects("a number from 0 to below 1")
          .means("SGD momentum")
          .defaults_to("the workload's"));
}

// What is measured: how the step is executed.
void declare_execution_keys(Keys& keys) {
  const auto add = [&keys](GridKey key) { keys.push_back(std::move(key)); };
  add(Declare("execution", &Cell::execution)
          .mode()
          .value_synonyms(
              {{"cuda_graph", "graph"}, {"cudagraph", "graph"}, {"cuda graph", "graph"}})
          .knob()
          .skip_when([](const Cell& c) -> Found {
            if (c.execution != Execution::kGraph) return std::nullopt;
            if (!c.device.is_cuda())
              return Problem(
                  "execution \"graph\" captures the step in a CUDA graph; the CPU has none "
                  "(use \"eager\")");
            if (c.parallel != Parallel::kNone)
              return Problem(
                  "execution \"graph\" captures one process's step on one GPU; parallel \"" +
                  text_of(c.parallel) + "\" cells run \"eager\"");
            if (c.timing == Timing::kPhases)
              return Problem(
                  "timing \"phases\" synchronises between the phases of a step, and a replayed "
                  "graph has none; use \"end_to_end\"");
            return std::nullopt;
          })
          .cuda_only()
          .added_later()
          .expects("\"eager\" or \"graph\"")
          .means("`\"eager\"` (one kernel launch at a time, as the seeds ran) or `\"graph\"`: "
                 "the whole training step captured once in a CUDA graph and replayed (CUDA "
                 "cells; a graph cell's optimiser is always `\"fused\"`, so it is recorded so)"));
  add(Declare("optimizer_impl", &Cell::optimizer_impl)
          .mode()
          .knob()
          // A captured step replays its kernels' addresses: the loop, foreach and flat ones keep
          // step counts on the host and cannot be captured, so a graph cell always uses fused.
          .normalise([](Cell& c) {
            if (c.execution == Execution::kGraph) c.optimizer_impl = OptimizerImpl::kFused;
          })
          .follows_cuda_only()
          .added_later()
          .expects("\"loop\", \"foreach\", \"flat\" or \"fused\"")
          .means("`\"loop\"` (LibTorch's `torch::optim`, one parameter at a time), "
                 "`\"foreach\"` (ATen's `_foreach_*` operators over all parameters together: "
                 "PyTorch 2.x's default on CUDA), `\"flat\"` (parameters, gradients and moments "
                 "as views of one buffer each: a few operator calls per step in all) or "
                 "`\"fused\"` (ATen's kernels "
                 "`_fused_adam_` / `_fused_sgd_`, step counts on the device; skipped where the "
                 "LibTorch lacks the kernel)"));
  add(Declare("precision", &Cell::precision)
          .mode()
          .also_called({"dtype", "amp"})
          .value_synonyms({{"bfloat16", "bf16"}, {"float32", "fp32"}, {"float", "fp32"}})
          .knob()
          .skip_when([](const Cell& c) -> Found {
            if (c.precision == Precision::kTf32 && !c.device.is_cuda())
              return Problem(
                  "precision \"tf32\" is a CUDA tensor-core format; on the CPU use \"fp32\" or "
                  "\"bf16\"");
            if (c.precision == Precision::kBf16 && c.parallel == Parallel::kDp)
              return Problem(
                  "precision \"bf16\" autocasts one thread, and LibTorch's C++ DataParallel "
                  "runs "
                  "its replicas on threads of its own; use parallel \"ddp\"");
            return std::nullopt;
          })
          .added_later()
          .expects("\"fp32\", \"tf32\" or \"bf16\"")
          .means("`\"fp32\"` (LibTorch's defaults), `\"tf32\"` (TF32 matrix products and "
                 "convolutions; CUDA cells) or `\"bf16\"` (forward and loss autocast to "
                 "bfloat16, images channels-last; CPU and CUDA)"));
}

}  // namespace

std::vector<GridKey> declare_grid_keys() {
  Keys keys;
  declare_data_keys(keys);
  declare_data_path_keys(keys);
  declare_replica_keys(keys);
  declare_epoch_keys(keys);
  declare_policy_keys(keys);
  declare_guard_and_optimizer_keys(keys);
  declare_execution_keys(keys);
  declare_model_keys(keys);  // last: results files keep their older columns' order
  keys.push_back(Declare("host", kText, &Cell::host)
                     .not_settable()
                     .added_later()
                     .expects("a label")
                     .means("the machine's label: `run --label`, by default its host name; "
                            "`report` of several runs pairs cells across it (`--compare "
                            "host=a:b`)")
                     .defaults_to("the host name"));
  return keys;
}

// The key table (docs/grids.md, `crossover keys`): beside the declarations, because a key's
// default is the default Cell's value.
std::string default_text(const GridKey& key) {
  if (!key.default_text.empty()) return key.default_text;
  if (!key.get) return "—";
  const nlohmann::ordered_json value = key.get(Cell{});
  return "`" + value.dump() + "`";
}

std::string key_table_markdown() {
  std::string out = "| key | role | values and meaning | default |\n|---|---|---|---|\n";
  for (const auto& key : grid_keys()) {
    if (!key.settable) continue;
    out += "| `" + key.name + "` | " + text_of(key.role) + " | " + key.description + " | " +
           default_text(key) + " |\n";
  }
  return out;
}

}  // namespace crossover
