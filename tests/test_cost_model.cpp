// The cost model on hand-made anatomies and profiles with known answers: each operator takes the
// larger of its fixed cost, its FLOPs at the throughput for its size and its bytes at the
// bandwidth; the copy and the loader add; the largest term is the bound. Profiles are read as
// users' files: every field checked.
#include <gtest/gtest.h>

#include <cmath>

#include "core/costmodel/cost_model.hpp"
#include "core/costmodel/scoring.hpp"
#include "core/records/prediction.hpp"
#include "core/stats/stats.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

// 10 us per operator, 1 GFLOP/s at n = 10 rising to 100 GFLOP/s from n = 1,000, 10 GB/s.
DeviceProfile device() {
  DeviceProfile d;
  d.dispatch_seconds = 10e-6;
  d.gemm = {{10, 1e9}, {1000, 100e9}};
  d.memory_bytes_per_second = 10e9;
  d.h2d_pageable_bytes_per_second = 1e9;
  d.h2d_pinned_bytes_per_second = 4e9;
  d.sync_seconds = 20e-6;
  return d;
}

TEST(CostModel, EachOperatorTakesItsLargestTermAndTheLargestSumIsTheBound) {
  StepAnatomy a;
  for (int i = 0; i < 30; ++i) a.add(Phase::kOptimizer, 0.0, 400.0);  // 40 ns of bytes: dispatch
  a.add(Phase::kForward, 2e9, 1e6);   // n = 1,000: 2 GFLOP at 100 GFLOP/s = 20 ms
  a.add(Phase::kBackward, 0.0, 1e9);  // 1 GB at 10 GB/s = 100 ms
  const StepPrediction p = predict_step(a, device(), StepContext{});
  EXPECT_DOUBLE_EQ(p.dispatch, 30 * 10e-6);
  EXPECT_DOUBLE_EQ(p.dispatched_ops, 30.0);
  EXPECT_NEAR(p.compute, 0.02, 1e-12);
  EXPECT_NEAR(p.memory, 0.1, 1e-12);
  EXPECT_EQ(p.bound(), Bound::kMemory);
  EXPECT_NEAR(p.step(), 0.3e-3 + 0.02 + 0.1, 1e-12);
  EXPECT_NEAR(predict_epoch(p, 3, device()), 3 * p.step() + 20e-6, 1e-12);
  // A small product is slower per FLOP: n = 100 lies halfway on the log scale, 10 GFLOP/s.
  EXPECT_NEAR(device().gemm_flops_per_second(2e6), 10e9, 1e3);
  // Below the smallest rung its time is no less than that rung's product's.
  EXPECT_NEAR(2e3 / device().gemm_flops_per_second(2e3), 2e3 / 1e9, 1e-15);
}

TEST(CostModel, TheBatchCopyTheLoaderAndGraphsCountAsTheCellSays) {
  StepAnatomy a;
  for (int i = 0; i < 100; ++i) a.add(Phase::kData, 0.0, 8.0);  // cutting the batch
  a.add(Phase::kForward, 0.0, 8.0);
  a.h2d_bytes = 4e6;
  a.loader_seconds = 3e-3;  // measured where the anatomy was taken: never part of a prediction
  StepContext c;
  EXPECT_DOUBLE_EQ(predict_step(a, device(), c).dispatch, 101 * 10e-6);  // the cut counts
  // Made on the host: the host CPU's 100 operators at its cost for a batch's operator.
  DeviceProfile host = device();
  host.batch_op_seconds = 2e-6;
  c.batch_on_device = false;
  c.host = &host;
  StepPrediction p = predict_step(a, device(), c);
  EXPECT_DOUBLE_EQ(p.dispatch, 10e-6);
  EXPECT_DOUBLE_EQ(p.loader, 100 * 2e-6);
  EXPECT_DOUBLE_EQ(p.batch, 100 * 2e-6);
  // On a GPU the host's side (dispatch and the batch, 0.21 ms) runs beside the device's (the
  // copy, 4 ms pageable): the step is the longer.
  c.cuda = true;
  p = predict_step(a, device(), c);
  EXPECT_DOUBLE_EQ(p.transfer, 4e6 / 1e9);  // pageable
  EXPECT_NEAR(p.step(), 4e-3, 1e-9);
  EXPECT_NEAR(p.hidden, 10e-6 + 100 * 2e-6, 1e-12);
  EXPECT_EQ(p.bound(), Bound::kTransfer);
  c.pinned = true;
  EXPECT_DOUBLE_EQ(predict_step(a, device(), c).transfer, 4e6 / 4e9);
  EXPECT_EQ(predict_step(a, device(), c).bound(), Bound::kTransfer);
  // A host without its cost per batch operator counts its dispatch instead.
  host.batch_op_seconds = 0.0;
  c.pinned = false;
  c.cuda = false;
  EXPECT_DOUBLE_EQ(predict_step(a, device(), c).loader, 100 * 10e-6);
  // A graph replays every operator from one launch: one dispatch in all.
  c.cuda = true;
  c.graph = true;
  c.batch_on_device = true;
  a.h2d_bytes = 0.0;
  EXPECT_DOUBLE_EQ(predict_step(a, device(), c).dispatch, 10e-6);
  // With the profile's cost per replayed operator, the device pays it for each of the 101.
  DeviceProfile replaying = device();
  replaying.graph_op_seconds = 1e-6;
  EXPECT_NEAR(predict_step(a, replaying, c).memory, 101 * 1e-6, 1e-15);
  EXPECT_NEAR(predict_step(a, replaying, c).step(), 101 * 1e-6, 1e-15);
  EXPECT_EQ(predict_step(StepAnatomy{}, device(), StepContext{}).bound(), Bound::kNone);
}

TEST(CostModel, AGpusQueueHidesTheShorterSide) {
  // 100 operators of 10 us dispatch each (1 ms of host) and one 2 GFLOP product (20 ms of
  // device): on a CPU they add, on a GPU the host's dispatch hides behind the kernel.
  StepAnatomy a;
  for (int i = 0; i < 100; ++i) a.add(Phase::kForward, 0.0, 4.0);
  a.add(Phase::kForward, 2e9, 1e6);
  StepContext c;
  EXPECT_NEAR(predict_step(a, device(), c).step(), 100 * 10e-6 + 0.02, 1e-12);
  c.cuda = true;
  const StepPrediction gpu = predict_step(a, device(), c);
  EXPECT_NEAR(gpu.step(), 0.02, 1e-7);
  EXPECT_NEAR(gpu.dispatch, 101 * 10e-6, 1e-12);
  EXPECT_EQ(gpu.bound(), Bound::kCompute);
}

TEST(CostModel, AResultIsAccountedForFromTheAnatomyItRecorded) {
  MachineProfile there;
  there.name = "there";
  there.cpu_one_thread = there.cpu_all_threads = device();
  there.cpu_all_threads.batch_op_seconds = 20e-6;
  there.cuda = device();
  there.cuda->dispatch_seconds = 5e-6;
  Result r;
  r.cell.device = Device::cuda();
  r.cell.loader = Loader::kDataLoader;
  r.cell.data_placement = Placement::kHost;
  r.steps_per_epoch = 10;
  StepAnatomy a;
  for (int i = 0; i < 100; ++i) a.add(Phase::kData, 0.0, 4.0);
  for (int i = 0; i < 100; ++i) a.add(Phase::kForward, 0.0, 4.0);
  r.anatomy.step_op_groups = groups_to_rows(a.groups);
  r.anatomy.step_loader_seconds = 1.0;  // the checking machine's wait: not part of the prediction
  r.anatomy.step_loader_share = 0.25;
  apply_prediction(r, there);
  EXPECT_DOUBLE_EQ(r.prediction.terms.dispatch, 100 * 5e-6);
  EXPECT_DOUBLE_EQ(r.prediction.terms.loader, 100 * 20e-6);  // made on there's CPU
  EXPECT_EQ(r.prediction.bound, Bound::kLoader);
  EXPECT_NEAR(r.prediction.predicted_epoch_seconds, 10 * (0.5e-3 + 2e-3) + 20e-6, 1e-12);
  EXPECT_EQ(r.prediction.prediction_profile, "there");
  // Two loader workers make the batches beside the step: one batch (2 ms) over two workers is
  // 1 ms a batch, of which the 0.5 ms step hides 0.5 ms; the loader bounds it.
  Result workers = r;
  workers.cell.num_workers = 2;
  apply_prediction(workers, there);
  EXPECT_NEAR(workers.prediction.terms.loader, 1e-3 - 0.5e-3, 1e-12);
  EXPECT_NEAR(workers.prediction.predicted_step_seconds, 1e-3, 1e-12);
  EXPECT_EQ(workers.prediction.bound, Bound::kLoader);
  // Workers quicker than the step are hidden behind it: nothing to wait for.
  workers.cell.num_workers = 8;
  apply_prediction(workers, there);
  EXPECT_DOUBLE_EQ(workers.prediction.terms.loader, 0.0);
  EXPECT_NEAR(workers.prediction.predicted_step_seconds, 0.5e-3, 1e-12);
  EXPECT_EQ(workers.prediction.bound, Bound::kDispatch);
  // On a CPU whose every core runs the step, the workers find no idle core: the batch adds.
  Result on_cpu = workers;
  on_cpu.cell.device = Device::cpu();
  on_cpu.cell.num_workers = 2;
  apply_prediction(on_cpu, there);
  EXPECT_NEAR(on_cpu.prediction.terms.loader, 2e-3, 1e-12);
  on_cpu.cell.threads = 1;  // one intra-op thread: the workers have cores of their own
  apply_prediction(on_cpu, there);
  EXPECT_LT(on_cpu.prediction.terms.loader, 2e-3);
  // Without a GPU in the profile a CUDA cell is not accounted for; without anatomy neither.
  MachineProfile cpu_only = there;
  cpu_only.cuda.reset();
  Result none = r;
  none.prediction.bound = Bound::kNone;
  apply_prediction(none, cpu_only);
  EXPECT_EQ(none.prediction.bound, Bound::kNone);
  none.anatomy.step_op_groups.clear();
  apply_prediction(none, there);
  EXPECT_EQ(none.prediction.bound, Bound::kNone);
  EXPECT_EQ(bound_text(StepPrediction{{1e-3, 0, 0, 0, 0}, 100, 5e-5, 0}, a),
            "dispatch-bound (100 operators x 10 us ~ 1 ms, against 50 us of arithmetic)");
  // Arithmetic under a hundredth of the dispatch is no word ("against 0 us" said nothing).
  EXPECT_EQ(bound_text(StepPrediction{{1e-3, 0, 0, 0, 0}, 100, 2e-6, 0}, a),
            "dispatch-bound (100 operators x 10 us ~ 1 ms)");
}

TEST(CostModel, ABandIsTheConformalQuantileOfItsCells) {
  // Nine cells: rank ceil(10 x 0.8) = 8 of the sorted |log ratios|.
  std::vector<double> logs;
  for (int i = 9; i >= 1; --i) logs.push_back(0.1 * i);
  const PredictionBand band = fit_band(logs);
  EXPECT_NEAR(band.factor, std::exp(0.8), 1e-12);
  EXPECT_EQ(band.cells, 9);
  // Three cells cannot promise 80 %: rank ceil(3.2) = 4 is past them.
  EXPECT_DOUBLE_EQ(fit_band({0.1, 0.2, 0.3}).factor, 0.0);
  EXPECT_DOUBLE_EQ(fit_band({}).factor, 0.0);
}

// Leaving a run out drops its cells from the band its cells are scored against: a run the model
// misses by far is not covered by the band the others give, though a band fitted with it would.
TEST(CostModel, ARunIsScoredAgainstABandFittedWithoutIt) {
  std::vector<BandCell> cells;
  for (int run = 0; run < 3; ++run)
    for (int i = 1; i <= 5; ++i)
      cells.push_back({"r" + std::to_string(run), DeviceKind::kCuda, Bound::kDispatch, 0.01 * i});
  for (int i = 1; i <= 5; ++i)
    cells.push_back({"far", DeviceKind::kCuda, Bound::kDispatch, 1.0 + 0.1 * i});
  cells.push_back({"r0", DeviceKind::kCpu, Bound::kMemory, 0.3});
  // Fitted on all 20: rank ceil(21 x 0.8) = 17, a cell of the far run (1.2).
  EXPECT_NEAR(band_without(cells, "", DeviceKind::kCuda, Bound::kDispatch).factor, std::exp(1.2),
              1e-12);
  // Without the far run: 15 cells, rank 13 (0.05); its cells all lie outside.
  EXPECT_NEAR(band_without(cells, "far", DeviceKind::kCuda, Bound::kDispatch).factor,
              std::exp(0.05), 1e-12);
  const Coverage c = leave_one_run_out(cells, DeviceKind::kCuda);
  // The other runs' cells are each scored against a band with the far run in it (all inside);
  // the far run's five against one without it (all outside).
  EXPECT_EQ(c.cells, 20);
  EXPECT_EQ(c.inside, 15);
  // A kind with too few cells has no band, and no cell of it counts.
  EXPECT_EQ(leave_one_run_out(cells, DeviceKind::kCpu).cells, 0);
  // A bound class of its own from 8 cells; fewer share their kind's.
  cells.push_back({"r1", DeviceKind::kCuda, Bound::kCompute, 0.5});
  EXPECT_NEAR(band_without(cells, "", DeviceKind::kCuda, Bound::kCompute).factor,
              band_without(cells, "", DeviceKind::kCuda, Bound::kNone).factor, 1e-12);
}

TEST(CostModel, APredictionsBandIsItsBoundsOwnOrItsKinds) {
  MachineProfile p;
  Validation v;
  v.median_abs_error = 0.2;
  v.band = {1.5, 20};
  v.by_bound[Bound::kDispatch] = {1.2, 9};
  p.validation[DeviceKind::kCuda] = v;
  EXPECT_DOUBLE_EQ(p.band(DeviceKind::kCuda, Bound::kDispatch).factor, 1.2);
  EXPECT_DOUBLE_EQ(p.band(DeviceKind::kCuda, Bound::kCompute).factor, 1.5);
  EXPECT_DOUBLE_EQ(p.band(DeviceKind::kCpu, Bound::kCompute).factor, 0.0);
  Result r;
  r.cell.device = Device::cuda();
  r.prediction.bound = Bound::kCompute;
  EXPECT_DOUBLE_EQ(band_error(r, p), 0.5);
  EXPECT_EQ(predicted_interval_text(3e-3, 0.5), "2 ms-4.5 ms, predicted, 80 %");
  EXPECT_EQ(predicted_interval_text(3e-3, 0.0), "3 ms, predicted (no validated band)");
}

TEST(MachineProfile, AProfileRoundTripsAndEveryBadFieldIsNamed) {
  MachineProfile p;
  p.name = "box";
  p.cpu_model = "a CPU";
  p.logical_cores = 4;
  p.cpu_one_thread = p.cpu_all_threads = device();
  p.cuda = device();
  p.cuda->graph_op_seconds = 1e-6;
  p.gpu_name = "a GPU";
  Validation v;
  v.median_abs_error = 0.2;
  v.band = {1.8, 17};
  v.by_bound[Bound::kDispatch] = {1.3, 8};
  v.runs = {"a-seed001"};
  v.coverage_method = kLeaveOneRunOut;
  v.coverage = {17, 14};
  p.validation[DeviceKind::kCuda] = v;
  p.cpu_all_threads.batch_op_seconds = 2e-6;
  const MachineProfile back = profile_from_json(profile_to_json(p));
  EXPECT_EQ(back.validation.at(DeviceKind::kCuda).coverage.inside, 14);
  EXPECT_EQ(band_validation_text(back.validation.at(DeviceKind::kCuda)),
            "the band held 14 of 17 measured cells (82 %) of 1 run(s), each scored by a band "
            "fitted without its run");
  EXPECT_EQ(profile_to_json(back), profile_to_json(p));
  EXPECT_DOUBLE_EQ(back.cuda->graph_op_seconds, 1e-6);
  EXPECT_DOUBLE_EQ(back.validation.at(DeviceKind::kCuda).median_abs_error, 0.2);
  EXPECT_EQ(back.validation.count(DeviceKind::kCpu), 0u);
  EXPECT_DOUBLE_EQ(back.band(DeviceKind::kCuda, Bound::kDispatch).factor, 1.3);
  EXPECT_DOUBLE_EQ(back.cpu_all_threads.batch_op_seconds, 2e-6);
  const auto refused = [&](const std::function<void(nlohmann::ordered_json&)>& edit) {
    nlohmann::ordered_json j = profile_to_json(p);
    edit(j);
    try {
      profile_from_json(j);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused([](auto& j) {
              j["cuda"]["dispatch_seconds"] = -1;
            }).find("cuda.dispatch_seconds: expected a finite number above 0"),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["cpu"]["one_thread"]["gemm"] = nlohmann::json::array();
            }).find("cpu.one_thread.gemm"),
            std::string::npos);
  EXPECT_NE(
      refused([](auto& j) { j["cpu"]["all_threads"]["gemm"][1]["n"] = 5; }).find("sizes ascending"),
      std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["cuda"]["graph_op_seconds"] = -1e-6;
            }).find("cuda.graph_op_seconds: expected a finite number from 0"),
            std::string::npos);
  // A profile from before graph replays were measured reads as one that counts them free.
  EXPECT_EQ(refused([](auto& j) { j["cuda"].erase("graph_op_seconds"); }), "accepted");
  EXPECT_NE(refused([](auto& j) { j["name"] = 3; }).find("name"), std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["validation"]["tpu"] = {{"median_abs_error", 0.1}};
            }).find("validation.tpu"),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["cpu"]["all_threads"]["batch_op_seconds"] = 1e308;
            }).find("cpu.all_threads.batch_op_seconds: expected a time in seconds from 1e-10 to 1"),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["cpu"]["all_threads"]["fresh_memory_bytes_per_second"] = 1e300;
            }).find("fresh_memory_bytes_per_second"),
            std::string::npos);
  // Numbers no machine has, on either side, read as no profile (never "+inf %" predictions).
  EXPECT_NE(
      refused([](auto& j) {
        j["cuda"]["dispatch_seconds"] = 1e308;
      }).find("cuda.dispatch_seconds: expected a time in seconds from 1e-10 to 1, not 1e+308"),
      std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["cpu"]["one_thread"]["gemm"][0]["flops_per_second"] = 1e-300;
            }).find("cpu.one_thread.gemm[0].flops_per_second: expected a rate in FLOP per second"),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) { j["cpu"]["logical_cores"] = 1e308; }).find("cpu.logical_cores"),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["validation"]["cuda"]["band"]["factor"] = 0.5;
            }).find("validation.cuda.band.factor: expected a factor from 1"),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["validation"]["cuda"]["band_by_bound"]["warp"] = {{"factor", 2}, {"cells", 9}};
            }).find("bound classes"),
            std::string::npos);
  EXPECT_NE(
      refused([](auto& j) { j["validation"]["cuda"]["band"]["coverage"] = 0.5; }).find("coverage"),
      std::string::npos);
  EXPECT_NE(
      refused([](auto& j) { j["validation"]["cuda"]["band"]["cells"] = 1e300; }).find("cells"),
      std::string::npos);
  // How the band's coverage was measured: only leave one run out, its counts whole and sane.
  EXPECT_NE(refused([](auto& j) {
              j["validation"]["cuda"]["coverage_measured"] = {{"method", "in-sample"}};
            }).find("validation.cuda.coverage_measured.method: expected \"leave-one-run-out\""),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["validation"]["cuda"]["coverage_measured"] = {
                  {"method", "leave-one-run-out"}, {"cells", 10}, {"inside", 11}};
            }).find("coverage_measured.inside"),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["validation"]["cuda"]["coverage_measured"] = {
                  {"method", "leave-one-run-out"}, {"cells", "ten"}, {"inside", 1}};
            }).find("coverage_measured.cells"),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) {
              j["cuda"]["memory_bytes_per_second"] = "fast";
            }).find("expected a number"),
            std::string::npos);
  // A profile file is a user's file: not a directory, not over a megabyte.
  testing::ScratchDir dir;
  EXPECT_THROW(load_profile(dir.path()), std::runtime_error);
  dir.write("p.json", profile_to_json(p).dump());
  EXPECT_EQ(load_profile(dir.file("p.json")).name, "box");
  dir.write("bad.json", "{\"name\": \"x\"}");
  try {
    load_profile(dir.file("bad.json"));
    FAIL() << "a profile without cpu was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: not a machine profile: cpu"), std::string::npos)
        << e.what();
  }
  // Its name goes into headings: a control character or a line break is refused.
  EXPECT_NE(refused([](auto& j) { j["name"] = "a\x1b[31mred"; }).find("printable"),
            std::string::npos);
  EXPECT_NE(refused([](auto& j) { j["cuda"]["name"] = "a\nb"; }).find("printable"),
            std::string::npos);
  // run --predict needs a GPU in the profile.
  MachineProfile cpu_only = p;
  cpu_only.cuda.reset();
  dir.write("cpu.json", profile_to_json(cpu_only).dump());
  EXPECT_NO_THROW(load_profile(dir.file("cpu.json")));
  try {
    load_gpu_profile(dir.file("cpu.json"));
    FAIL() << "a profile without a GPU was taken to predict CUDA cells";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("has no GPU"), std::string::npos) << e.what();
  }
}

TEST(StepAnatomy, GroupsRoundTripAndBadRowsAreRefused) {
  StepAnatomy a;
  a.add(Phase::kForward, 2.0, 8.0);
  a.add(Phase::kForward, 2.0, 8.0);
  a.add(Phase::kBackward, 0.0, 4.0);
  ASSERT_EQ(a.groups.size(), 2u);
  EXPECT_DOUBLE_EQ(a.ops(Phase::kForward), 2.0);
  EXPECT_DOUBLE_EQ(a.flops(), 4.0);
  EXPECT_DOUBLE_EQ(a.bytes(), 20.0);
  const auto back = groups_from_rows(groups_to_rows(a.groups));
  EXPECT_EQ(groups_to_rows(back), groups_to_rows(a.groups));
  EXPECT_THROW(groups_from_rows({{0, 1, 2}}), std::runtime_error);
  EXPECT_THROW(groups_from_rows({{5, 1, 2, 3}}), std::runtime_error);
  EXPECT_THROW(groups_from_rows({{1, -1, 2, 3}}), std::runtime_error);
  EXPECT_THROW(groups_from_rows({{1.5, 1, 2, 3}}), std::runtime_error);
  EXPECT_THROW(groups_from_rows({{1, 1, std::nan(""), 3}}), std::runtime_error);
  // The arithmetic each group's FLOPs are travels with it; a row of four from before it was kept
  // reads as a matrix product's where it has FLOPs.
  StepAnatomy kinds;
  kinds.add(Phase::kBackward, 2.0, 8.0, Math::kConvolution);
  kinds.add(Phase::kBackward, 2.0, 8.0, Math::kMatmul);
  ASSERT_EQ(kinds.groups.size(), 2u);
  EXPECT_EQ(groups_from_rows(groups_to_rows(kinds.groups))[0].math, Math::kConvolution);
  EXPECT_EQ(groups_from_rows({{1, 1, 2, 3}})[0].math, Math::kMatmul);
  EXPECT_EQ(groups_from_rows({{1, 1, 0, 3}})[0].math, Math::kNone);
  EXPECT_THROW(groups_from_rows({{1, 1, 2, 3, 4}}), std::runtime_error);
  EXPECT_THROW(groups_from_rows({{1, 1, 2, 3, 0.5}}), std::runtime_error);
}

// Issue 99: every card was costed at its FP32 peak. On a GPU with tensor cores a convolution
// runs in TF32 (cuDNN's default), a matrix product in FP32 unless precision tf32 asks, both in
// BF16 with precision bf16; the optimiser's element-wise arithmetic is bound by its bytes; a CPU
// has the one ladder.
TEST(CostModel, EachOperatorRunsInThePrecisionLibTorchGivesItOnTheCard) {
  DeviceProfile gpu = device();  // FP32 tops out at 100 GFLOP/s
  gpu.tf32_flops_per_second = 400e9;
  gpu.bf16_flops_per_second = 800e9;
  StepContext cuda;
  cuda.cuda = true;
  EXPECT_EQ(math_top_rate(Math::kConvolution, gpu, cuda), 400e9);
  EXPECT_EQ(math_top_rate(Math::kMatmul, gpu, cuda), 0.0);
  EXPECT_EQ(math_top_rate(Math::kElementwise, gpu, cuda), 0.0);
  StepContext tf32 = cuda;
  tf32.precision = Precision::kTf32;
  EXPECT_EQ(math_top_rate(Math::kMatmul, gpu, tf32), 400e9);
  StepContext bf16 = cuda;
  bf16.precision = Precision::kBf16;
  EXPECT_EQ(math_top_rate(Math::kMatmul, gpu, bf16), 800e9);
  EXPECT_EQ(math_top_rate(Math::kConvolution, gpu, bf16), 800e9);
  EXPECT_EQ(math_top_rate(Math::kConvolution, gpu, StepContext{}), 0.0);  // a CPU
  DeviceProfile turing = device();  // no TF32, no BF16: FP32 stands in
  EXPECT_EQ(math_top_rate(Math::kConvolution, turing, bf16), 0.0);

  // 2 GFLOP at n = 1,000 (the ladder's top): 20 ms in FP32, 5 ms at 400 GFLOP/s; a small product
  // keeps its fixed part (n = 100: 0.2 ms in FP32, of which 20 us is its work at the top).
  EXPECT_NEAR(2e9 / gpu.flops_per_second_at(2e9, 400e9), 5e-3, 1e-12);
  EXPECT_NEAR(2e6 / gpu.flops_per_second_at(2e6, 400e9), 0.2e-3 - 20e-6 + 5e-6, 1e-12);
  EXPECT_EQ(gpu.flops_per_second_at(2e9, 0.0), gpu.gemm_flops_per_second(2e9));
  StepAnatomy a;
  a.add(Phase::kForward, 2e9, 1e3, Math::kConvolution);
  a.add(Phase::kForward, 2e9, 1e3, Math::kMatmul);
  a.add(Phase::kOptimizer, 4e9, 1e3, Math::kElementwise);  // counted, never compute
  const StepPrediction p = predict_step(a, gpu, cuda);
  EXPECT_NEAR(p.compute, 5e-3 + 20e-3, 1e-12);
  EXPECT_DOUBLE_EQ(a.flops(), 8e9);
  EXPECT_NEAR(predict_step(a, gpu, StepContext{}).compute, 40e-3, 1e-12);  // the CPU: FP32 both
}

// predict --check's scores add each cell to its kind and to its kind and bound, listed in the
// order of their texts; the fitted profile takes per kind the median error, the band of the
// kind's cells, a bound class's own band only where it has fewer cells than the kind's, and the
// coverage leave one run out. A kind too small for a band gets no validation.
TEST(CostModel, ScoresAddUpByKindAndBoundAndFitTheProfilesBands) {
  Scores scores;
  std::vector<BandCell> cells;
  for (int i = 1; i <= 10; ++i) {
    add_score(scores, DeviceKind::kCuda, Bound::kDispatch, -0.01 * i, true, i <= 8);
    cells.push_back({"r" + std::to_string(i % 5), DeviceKind::kCuda, Bound::kDispatch, 0.01 * i});
  }
  for (int i = 1; i <= 8; ++i) {
    add_score(scores, DeviceKind::kCuda, Bound::kCompute, 0.5, false, false);
    cells.push_back({"r" + std::to_string(i % 5), DeviceKind::kCuda, Bound::kCompute, 0.2});
  }
  add_score(scores, DeviceKind::kCpu, Bound::kMemory, 0.3, true, false);
  cells.push_back({"r0", DeviceKind::kCpu, Bound::kMemory, 0.3});

  std::vector<std::string> keys;
  for (const auto& [key, s] : scores) keys.push_back(key.text());
  EXPECT_EQ(keys, (std::vector<std::string>{"cpu", "cpu/memory", "cuda", "cuda/compute",
                                            "cuda/dispatch"}));
  const Score& cuda = scores.at({DeviceKind::kCuda, Bound::kNone});
  EXPECT_EQ(cuda.errors.size(), 18u);
  EXPECT_EQ(cuda.banded, 10);
  EXPECT_EQ(cuda.inside, 8);
  EXPECT_DOUBLE_EQ(scores.at({DeviceKind::kCuda, Bound::kDispatch}).errors.front(), 0.01);
  EXPECT_EQ(score_text(DeviceKind::kCuda, cuda).rfind("cuda ", 0), 0u);

  MachineProfile old;
  old.validation[DeviceKind::kCpu].median_abs_error = 9.0;  // a validation it had goes
  const MachineProfile fitted = fitted_profile(old, cells, {"r0", "r1"}, scores);
  ASSERT_EQ(fitted.validation.size(), 1u);
  const Validation& v = fitted.validation.at(DeviceKind::kCuda);
  EXPECT_DOUBLE_EQ(v.median_abs_error, summarize(cuda.errors).median);
  EXPECT_DOUBLE_EQ(v.band.factor, band_without(cells, "", DeviceKind::kCuda, Bound::kNone).factor);
  EXPECT_EQ(v.band.cells, 18);
  // Each class has 8 or more cells, fewer than the kind's 18: both their own.
  ASSERT_EQ(v.by_bound.count(Bound::kDispatch), 1u);
  EXPECT_EQ(v.by_bound.at(Bound::kDispatch).cells, 10);
  EXPECT_EQ(v.by_bound.at(Bound::kCompute).cells, 8);
  EXPECT_EQ(v.runs, (std::vector<std::string>{"r0", "r1"}));
  EXPECT_EQ(v.coverage_method, kLeaveOneRunOut);
  EXPECT_EQ(v.coverage.cells, leave_one_run_out(cells, DeviceKind::kCuda).cells);
}

}  // namespace
}  // namespace crossover
