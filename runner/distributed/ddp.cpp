#include "runner/distributed/ddp.hpp"

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <thread>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "core/files/file_writer.hpp"
#include "core/files/user_files.hpp"
#include "core/text/log.hpp"
#include "core/text/words.hpp"
#include "runner/execution/executor.hpp"
#include "runner/execution/launch.hpp"
#include "runner/grid/grid.hpp"
#include "runner/hardware/cuda_seam.hpp"
#include "runner/hardware/cuda_seam_parallel.hpp"
#include "runner/hardware/devices.hpp"
#include "runner/hardware/threads.hpp"
#include "workloads/training/workload.hpp"

namespace crossover {
namespace {

using Clock = std::chrono::steady_clock;

// The replica group over c10d's Gloo backend (CPU tensors, and CUDA tensors where no NCCL is
// built in); all-reduce time is summed for the results.
class GlooReplicas : public Replicas {
 public:
  GlooReplicas(const c10::intrusive_ptr<c10d::Store>& store, bool local, int rank, int world,
               std::chrono::milliseconds timeout)
      : rank_(rank), world_(world) {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    // On one machine, loopback; across machines, the interface this host's name resolves to.
    options->devices.push_back(local ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                     : c10d::ProcessGroupGloo::createDefaultDevice());
    group_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, options);
  }
  int rank() const override { return rank_; }
  int world() const override { return world_; }
  // Gloo's multi-tensor calls mean one tensor on several devices: one call per tensor here.
  void broadcast(std::vector<torch::Tensor>& tensors) override {
    for (auto& tensor : tensors) {
      std::vector<torch::Tensor> one = {tensor};
      group_->broadcast(one)->wait();
    }
  }
  void all_reduce_sum(std::vector<torch::Tensor>& tensors) override {
    const Clock::time_point start = Clock::now();
    for (auto& tensor : tensors) {
      std::vector<torch::Tensor> one = {tensor};
      group_->allreduce(one)->wait();
    }
    reduce_seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
    ++reduces_;
  }
  double seconds_per_all_reduce() const override {
    return reduces_ == 0 ? 0.0 : reduce_seconds_ / static_cast<double>(reduces_);
  }

 private:
  int rank_, world_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
  double reduce_seconds_ = 0.0;
  std::size_t reduces_ = 0;
};

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value == nullptr ? fallback : std::atoi(value);
}

std::vector<std::uint8_t> bytes(const std::string& text) { return {text.begin(), text.end()}; }

// A fault planted for the tests of isolation, as a library crash, the kernel's out-of-memory
// killer (SIGKILL), a deadlock or a model far too large for its device would fail.
enum class Fault { kAbort, kSegfault, kKill, kHang, kOom };
inline constexpr auto words(Fault) {
  return std::array{std::pair{Fault::kAbort, std::string_view("abort")},
                    std::pair{Fault::kSegfault, std::string_view("segfault")},
                    std::pair{Fault::kKill, std::string_view("kill")},
                    std::pair{Fault::kHang, std::string_view("hang")},
                    std::pair{Fault::kOom, std::string_view("oom")}};
}

// For the tests of isolation only: CROSSOVER_INJECT_FAULT="abort|segfault|kill|hang|oom@SEED" makes
// the isolated cell with that seed fail in that way.
void inject_fault(const Cell& cell) {
  const char* spec = std::getenv("CROSSOVER_INJECT_FAULT");
  if (spec == nullptr) return;
  const std::string text = spec;
  const auto at = text.find('@');
  if (at == std::string::npos || std::to_string(cell.seed) != text.substr(at + 1)) return;
  const std::optional<Fault> fault = parse_word<Fault>(text.substr(0, at));
  if (!fault) return;
  std::fprintf(stderr, "injecting %s into cell %zu\n", text.substr(0, at).c_str(), cell.index);
  switch (*fault) {
    case Fault::kAbort:
      std::abort();
    case Fault::kSegfault:
      std::raise(SIGSEGV);
      break;
    case Fault::kKill:
      std::raise(SIGKILL);
      break;
    case Fault::kHang:
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    case Fault::kOom: {
      // Asks the cell's device for a pebibyte: LibTorch throws its out-of-memory error (CUDA's
      // caching allocator, or the CPU allocator).
      const torch::Tensor too_big =
          torch::empty({std::int64_t{1} << 48}, torch::TensorOptions().device(cell.device.text()));
      break;
    }
  }
}

// A cell that is not ddp, run alone in this process for `run`'s isolation.
int run_isolated(const Cell& cell, const WorkerArgs& args) {
  RunOptions options;
  options.data_dir = args.data_dir;
  options.timing_only = args.timing_only;
  Result result;
  try {
    inject_fault(cell);
    result = run_cell(cell, options);
  } catch (const std::exception& e) {  // a planted out-of-memory error fails the cell as a real one
    result.cell = cell;
    result.status = CellStatus::kFailed;
    result.reason = failure_reason(e);
  }
  try {
    write_text_file(args.out_file, json_text(result_to_json(result)) + "\n");
  } catch (const std::exception& e) {
    log_error(e.what());
    return 1;
  }
  return 0;  // a failed cell is still a result
}

}  // namespace

namespace {

// The cell a worker runs: from --cell FILE, or cell N of --grid FILE; logs why not.
std::optional<Cell> worker_cell(const WorkerArgs& args) {
  if (args.grid.empty() == args.cell_file.empty()) {
    log_error("crossover worker needs --cell FILE or --grid FILE --cell-index N");
    return std::nullopt;
  }
  try {
    if (!args.grid.empty()) {
      const auto cells = expand_grid(load_grid(args.grid)).cells;
      if (args.cell_index < 0 || static_cast<std::size_t>(args.cell_index) >= cells.size())
        throw std::invalid_argument("--cell-index " + std::to_string(args.cell_index) +
                                    " is not a cell of the grid (0 to " +
                                    std::to_string(cells.size() - 1) + ")");
      return cells[static_cast<std::size_t>(args.cell_index)];
    }
    return cell_from_json(
        nlohmann::json::parse(read_json_text(args.cell_file, kMaxGridBytes, "a cell file")));
  } catch (const std::exception& e) {
    log_error((args.grid.empty() ? args.cell_file : args.grid) + ": not a cell (" + e.what() + ")");
    return std::nullopt;
  }
}

// A rank's place in the process group: the store the ranks meet at and the replicas' group.
struct Membership {
  c10::intrusive_ptr<c10d::Store> store;
  std::unique_ptr<Replicas> group;
};

// Joins the group. `run` starts local ranks with a file store in its private folder, so that
// nothing listens beyond loopback; under torchrun (across machines) rank 0 serves a TCP store at
// MASTER_ADDR. NCCL for CUDA cells where the build has it (the CUDA seam), Gloo otherwise.
// Throws what c10d throws.
Membership join_group(const Cell& cell, int rank, int world, const std::string& host, int port,
                      std::chrono::milliseconds timeout) {
  const char* store_file = std::getenv("CROSSOVER_STORE_FILE");
  Membership m;
  if (store_file != nullptr) {
    m.store = c10::make_intrusive<c10d::FileStore>(store_file, world);
    m.store->setTimeout(timeout);
  } else {
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<std::uint16_t>(port);
    store_options.isServer = rank == 0;
    store_options.numWorkers = world;
    store_options.timeout = timeout;
    m.store = c10::make_intrusive<c10d::TCPStore>(host, store_options);
  }
  if (cell.device.is_cuda() && cuda_seam::nccl_available()) {
    m.group = cuda_seam::nccl_replicas(m.store, rank, world, cell.device.cuda_index(), timeout);
  } else {
    const bool local = store_file != nullptr || host == "127.0.0.1" || host == "localhost";
    m.group = std::make_unique<GlooReplicas>(m.store, local, rank, world, timeout);
  }
  return m;
}

// Every rank hands its part to rank 0 through the store; rank 0 writes the cell's result. Throws
// when the store fails.
void gather_results(c10d::Store& store, Result& result, const Cell& cell, int rank, int world,
                    const std::string& out_file) {
  nlohmann::json part = {
      {"status", result.status},
      {"reason", result.reason},
      {"epoch_seconds", result.epoch_seconds},
      {"train_loss", result.train_loss},
      {"digest",
       result.parameter_digests.empty() ? std::string() : result.parameter_digests.front()}};
  store.set("crossover/rank/" + std::to_string(rank), bytes(part.dump()));
  if (rank != 0) return;
  result.rank_epoch_seconds.clear();
  result.parameter_digests.clear();
  double loss = 0.0;
  for (int r = 0; r < world; ++r) {
    const auto raw = store.get("crossover/rank/" + std::to_string(r));
    const auto other = nlohmann::json::parse(std::string(raw.begin(), raw.end()));
    if (other.at("status").get<CellStatus>() != CellStatus::kOk &&
        result.status == CellStatus::kOk) {
      result.status = CellStatus::kFailed;
      result.reason = "rank " + std::to_string(r) + ": " + other["reason"].get<std::string>();
    }
    result.rank_epoch_seconds.push_back(other["epoch_seconds"].get<double>());
    result.parameter_digests.push_back(other["digest"].get<std::string>());
    loss += other["train_loss"].get<double>();
  }
  // Each rank's loss is the mean over its slices; with equal slices their mean is the global one.
  result.train_loss = loss / world;
  result.cell = cell;
  write_text_file(out_file, json_text(result_to_json(result)) + "\n");
}

// A warm worker: cells one after another from `run`'s pool, each as run_isolated runs one, with
// what a cell may leave behind reset between them.
int serve(const WorkerArgs& args) {
  return serve_cells(args.serve_dir,
                     [&args](const std::string& cell_file, const std::string& out_file) {
                       WorkerArgs one = args;
                       one.cell_file = cell_file;
                       one.out_file = out_file;
                       const std::optional<Cell> cell = worker_cell(one);
                       if (!cell) return false;
                       torch::GradMode::set_enabled(true);
                       apply_threads(0);
                       const bool wrote = run_isolated(*cell, one) == 0;
                       if (cell->device.is_cuda())
                         cuda_seam::release_cached_memory(cell->device.cuda_index());
                       return wrote;
                     });
}

}  // namespace

int worker_command(const WorkerArgs& args) {
  if (!args.serve_dir.empty()) return serve(args);
  if (args.out_file.empty()) {
    log_error("crossover worker needs --out FILE (where the cell's result goes)");
    return 2;
  }
  std::optional<Cell> read = worker_cell(args);
  if (!read) return 2;
  Cell cell = *read;
  if (cell.parallel != Parallel::kDdp) return run_isolated(cell, args);
  const int rank = env_int("RANK", -1), world = env_int("WORLD_SIZE", -1);
  if (rank < 0 || world < 1 || rank >= world) {
    log_error(
        "crossover worker needs RANK and WORLD_SIZE (0 <= RANK < WORLD_SIZE) for a ddp cell, as "
        "torchrun sets them; got RANK=" +
        std::to_string(rank) + " WORLD_SIZE=" + std::to_string(world));
    return 2;
  }
  const char* address = std::getenv("MASTER_ADDR");
  const int port = env_int("MASTER_PORT", 29500);
  cell.nproc = world;  // the ranks of every node together
  if (cell.device.is_cuda()) cell.device = Device::cuda(env_int("LOCAL_RANK", 0));
  const auto timeout = std::chrono::milliseconds(static_cast<long>(args.timeout_seconds * 1000));
  const std::string host = address != nullptr ? address : "127.0.0.1";
  Membership member;
  try {
    member = join_group(cell, rank, world, host, port, timeout);
  } catch (const std::exception& e) {
    const char* store_file = std::getenv("CROSSOVER_STORE_FILE");
    const std::string at =
        store_file != nullptr ? std::string(store_file) : host + ":" + std::to_string(port);
    log_error("rank " + std::to_string(rank) + ": cannot join the process group at " + at + ": " +
              e.what());
    return 1;
  }
  RunOptions options;
  options.data_dir = args.data_dir;
  options.replicas = member.group.get();
  Result result = run_cell(cell, options);
  result.allreduce_seconds = member.group->seconds_per_all_reduce();
  if (result.status != CellStatus::kOk)
    log_error("rank " + std::to_string(rank) + ": " + result.reason);
  try {
    gather_results(*member.store, result, cell, rank, world, args.out_file);
  } catch (const std::exception& e) {
    log_error("rank " + std::to_string(rank) + ": gathering the results failed: " + e.what());
    return 1;
  }
  return result.status == CellStatus::kOk ? 0 : 1;
}

}  // namespace crossover
