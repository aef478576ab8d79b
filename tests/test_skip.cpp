// Which cells a machine cannot run, for machines we do not have.
#include <gtest/gtest.h>

#include "runner/grid/skip.hpp"

namespace crossover {
namespace {

Cell cell_on(const std::string& device, int gpus = 1) {
  Cell c;
  c.workload = "iris_mlp";
  c.device = parse_device(device).value();
  c.gpus = gpus;
  return c;
}

TEST(Skip, CpuCellsRunAnywhere) { EXPECT_FALSE(skip_reason(cell_on("cpu"), DeviceInventory{})); }

TEST(Skip, CudaWithoutACudaBuildOrDevice) {
  const auto no_build = skip_reason(cell_on("cuda"), DeviceInventory{false, 0, {}});
  ASSERT_TRUE(no_build);
  EXPECT_NE(no_build->text.find("without CUDA"), std::string::npos);
  const auto no_device = skip_reason(cell_on("cuda"), DeviceInventory{true, 0, {}});
  ASSERT_TRUE(no_device);
  EXPECT_NE(no_device->text.find("no CUDA device"), std::string::npos);
  // A CPU-only user is pointed to a prediction as well as to a rebuild.
  EXPECT_NE(no_build->text.find("or predict them: --predict cuda=h100"), std::string::npos);
  EXPECT_NE(no_device->text.find("--predict cuda="), std::string::npos);
  EXPECT_FALSE(skip_reason(cell_on("cuda"), DeviceInventory{true, 1, {}}));
}

TEST(Skip, DevicesAndGpuCountsBeyondWhatIsPresent) {
  const DeviceInventory two{true, 2, {}};
  EXPECT_FALSE(skip_reason(cell_on("cuda:1"), two));
  const auto absent = skip_reason(cell_on("cuda:2"), two);
  ASSERT_TRUE(absent);
  EXPECT_NE(absent->text.find("has 2 CUDA device(s)"), std::string::npos);
  const auto too_many = skip_reason(cell_on("cuda", 3), two);
  ASSERT_TRUE(too_many);
  EXPECT_NE(too_many->text.find("gpus=3"), std::string::npos);
}

TEST(Skip, PinMemoryAndWorkersNeedWhatTheyImprove) {
  Cell pinned = cell_on("cpu");
  pinned.pin_memory = true;
  const auto pin = skip_reason(pinned, DeviceInventory{true, 1, {}});
  ASSERT_TRUE(pin);
  EXPECT_NE(pin->text.find("pin_memory needs CUDA"), std::string::npos);
  Cell workers = cell_on("cpu");
  workers.num_workers = 2;
  const auto loader = skip_reason(workers, DeviceInventory{});
  ASSERT_TRUE(loader);
  EXPECT_NE(loader->text.find("needs loader \"dataloader\""), std::string::npos);
  workers.loader = Loader::kDataLoader;
  EXPECT_FALSE(skip_reason(workers, DeviceInventory{}));
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

TEST(Skip, DataParallelNeedsCudaAndSaysWhatToUseInstead) {
  Cell dp = cell_on("cpu");
  dp.parallel = Parallel::kDp;
  const auto cpu = skip_reason(dp, DeviceInventory{true, 4, {}});
  ASSERT_TRUE(cpu);
  EXPECT_NE(cpu->text.find("on the CPU use parallel \"ddp\""), std::string::npos);
  Cell ddp = cell_on("cpu");
  ddp.parallel = Parallel::kDdp;
  ddp.nproc = 2;
  EXPECT_FALSE(skip_reason(ddp, DeviceInventory{false, 0, {}}));  // Gloo on the CPU runs anywhere
  Cell gpus = cell_on("cuda", 3);
  gpus.parallel = Parallel::kDdp;
  gpus.nproc = 3;
  EXPECT_TRUE(skip_reason(gpus, DeviceInventory{true, 2, {}}));  // more devices than present
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// Execution modes: what a device or a LibTorch cannot do is a reason, not a failure.
TEST(Skip, ExecutionModesNeedTheirDeviceAndKernels) {
  const auto reason = [](const Cell& c, const DeviceInventory& inventory) {
    const Found reason = skip_reason(c, inventory);
    return reason ? reason->text : std::string();
  };
  const DeviceInventory gpu{true, 1, {"adam/cuda"}};
  Cell graph = cell_on("cpu");
  graph.execution = Execution::kGraph;
  graph.optimizer_impl = OptimizerImpl::kFused;
  EXPECT_NE(reason(graph, {}).find("CUDA graph"), std::string::npos);
  graph.device = Device::cuda();
  EXPECT_EQ(reason(graph, gpu), "");
  graph.timing = Timing::kPhases;
  EXPECT_NE(reason(graph, gpu).find("timing \"phases\""), std::string::npos);
  graph.timing = Timing::kEndToEnd;
  graph.parallel = Parallel::kDdp;
  EXPECT_NE(reason(graph, gpu).find("parallel \"ddp\""), std::string::npos);

  Cell tf32 = cell_on("cpu");
  tf32.precision = Precision::kTf32;
  EXPECT_NE(reason(tf32, {}).find("tf32"), std::string::npos);
  tf32.device = Device::cuda();
  EXPECT_EQ(reason(tf32, gpu), "");
  Cell bf16 = cell_on("cpu");
  bf16.precision = Precision::kBf16;
  EXPECT_EQ(reason(bf16, {}), "");
  bf16.device = Device::cuda();
  bf16.gpus = 1;
  bf16.parallel = Parallel::kDp;
  EXPECT_NE(reason(bf16, gpu).find("DataParallel"), std::string::npos);

  Cell fused = cell_on("cpu");
  fused.optimizer_impl = OptimizerImpl::kFused;
  EXPECT_NE(reason(fused, {}).find("aten::_fused_adam_ for the CPU"), std::string::npos);
  EXPECT_EQ(reason(fused, DeviceInventory{false, 0, {"adam/cpu"}}), "");
  fused.device = Device::cuda();
  fused.optimizer = Optimizer::kSgd;
  EXPECT_NE(reason(fused, gpu).find("aten::_fused_sgd_ for CUDA"), std::string::npos);
}

// run --predict: a CUDA cell this machine lacks is predicted once for every `threads` (the CPU's
// own key), at the default where the grid has it; a CUDA cell that runs here is not folded.
TEST(Skip, APredictedCudaCellIsMadeOnceForEveryThreadCount) {
  std::vector<Cell> cells;
  for (const std::string device : {"cpu", "cuda"}) {
    for (const int threads : {1, 0, 2}) {
      Cell c = cell_on(device);
      c.threads = threads;
      c.index = cells.size();
      cells.push_back(c);
    }
  }
  Cell other_batch = cells.back();
  other_batch.batch_size = 7;
  other_batch.index = cells.size();
  cells.push_back(other_batch);
  auto with_gpu = cells;
  EXPECT_EQ(fold_predicted_cells(with_gpu, DeviceInventory{true, 1, {}}), 0u);
  EXPECT_EQ(with_gpu.size(), cells.size());
  auto without = cells;
  EXPECT_EQ(fold_predicted_cells(without, DeviceInventory{}), 2u);
  ASSERT_EQ(without.size(), 5u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(without[i].index, i);  // the CPU's, all kept
  EXPECT_EQ(without[3].index, 4u);  // the CUDA cell at threads 0, listed second
  EXPECT_EQ(without[3].threads, 0);
  EXPECT_EQ(without[4].index, 6u);  // another batch size is another prediction
  // Without the default among them, the first is kept.
  std::vector<Cell> no_default = {cells[3], cells[5]};
  EXPECT_EQ(fold_predicted_cells(no_default, DeviceInventory{}), 1u);
  ASSERT_EQ(no_default.size(), 1u);
  EXPECT_EQ(no_default[0].threads, 1);
  EXPECT_NE(folded_cells_text(2).find("2 CUDA cell(s) not predicted twice: threads"),
            std::string::npos);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// The one decision the dry run, the executor and the progress line read: a cell runs, is
// predicted (run --predict, a CUDA cell this machine lacks) or is skipped with its reason.
TEST(Skip, ACellsPlanIsRunPredictOrSkipWithItsReason) {
  const DeviceInventory none{}, gpu{true, 1, {}};
  EXPECT_EQ(plan_cell(cell_on("cpu"), none, true).action, CellPlan::Action::kRun);
  EXPECT_EQ(plan_cell(cell_on("cpu"), none, true).reason, "");
  // A CUDA cell without CUDA: skipped, naming the rebuild, unless the run predicts it.
  const CellPlan skipped = plan_cell(cell_on("cuda"), none, false);
  EXPECT_EQ(skipped.action, CellPlan::Action::kSkip);
  EXPECT_NE(skipped.reason.find("without CUDA"), std::string::npos) << skipped.reason;
  const CellPlan predicted = plan_cell(cell_on("cuda"), none, true);
  EXPECT_EQ(predicted.action, CellPlan::Action::kPredict);
  EXPECT_EQ(predicted.reason, "no CUDA here");
  // Too few GPUs here: the device is missing too, so it is predicted.
  EXPECT_EQ(plan_cell(cell_on("cuda", 3), gpu, true).action, CellPlan::Action::kPredict);
  // A cell skipped for a reason a GPU does not change is skipped, prediction or not.
  Cell pinned = cell_on("cpu");
  pinned.pin_memory = true;
  const CellPlan pin = plan_cell(pinned, gpu, true);
  EXPECT_EQ(pin.action, CellPlan::Action::kSkip);
  EXPECT_NE(pin.reason.find("pin_memory needs CUDA"), std::string::npos) << pin.reason;
  EXPECT_EQ(text_of(CellPlan::Action::kPredict), "predict");
}

// The plan is decided once, when the run has its cells: one per cell, in order, and one per side
// of each search; a probe's cells are planned as they are made.
TEST(Skip, AnExpansionIsPlannedOncePerCellAndPerSearchSide) {
  Expansion e;
  e.cells = {cell_on("cpu"), cell_on("cuda"), cell_on("cuda:1")};
  SearchLine line;
  line.baseline = cell_on("cpu");
  line.contender = cell_on("cuda");
  e.searches = {line};
  const DeviceInventory one_gpu{true, 1, {}};
  plan_expansion(e, one_gpu, false);
  ASSERT_EQ(e.plans.size(), 3u);
  EXPECT_EQ(e.plans[0].action, CellPlan::Action::kRun);
  EXPECT_EQ(e.plans[1].action, CellPlan::Action::kRun);
  EXPECT_EQ(e.plans[2].action, CellPlan::Action::kSkip);
  EXPECT_NE(e.plans[2].reason.find("cuda:1 not present"), std::string::npos) << e.plans[2].reason;
  EXPECT_EQ(e.searches[0].contender_plan.action, CellPlan::Action::kRun);
  // Planned again (another machine, --predict): the plans are replaced, not added to.
  plan_expansion(e, DeviceInventory{}, true);
  ASSERT_EQ(e.plans.size(), 3u);
  EXPECT_EQ(e.plans[2].action, CellPlan::Action::kPredict);
  EXPECT_EQ(e.searches[0].contender_plan.action, CellPlan::Action::kPredict);
  EXPECT_EQ(e.searches[0].baseline_plan.action, CellPlan::Action::kRun);
  const std::vector<PlannedCell> probe = plan_cells(e.cells, DeviceInventory{}, false);
  ASSERT_EQ(probe.size(), 3u);
  EXPECT_EQ(probe[1].cell.device, Device::cuda());
  EXPECT_EQ(probe[1].plan.action, CellPlan::Action::kSkip);
}

}  // namespace
}  // namespace crossover
