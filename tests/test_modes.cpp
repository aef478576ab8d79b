// How a step runs: graph execution's bookkeeping (static batches, one capture per batch size,
// warm-up undone), the foreach, flat and fused optimisers against LibTorch's, and the precision
// scopes. What needs a GPU is in the *_CUDA tests.
#include <gtest/gtest.h>

#include "runner/hardware/cuda_seam.hpp"
#include "runner/hardware/devices.hpp"
#include "workloads/training/fused_optimizer.hpp"
#include "workloads/training/optimizers.hpp"
#include "workloads/training/precision.hpp"
#include "workloads/training/workload.hpp"

namespace crossover {
namespace {

const std::string kNoData = "/nonexistent";  // synthetic data is enough here

// Iris on synthetic data: 100 rows in batches of 32, so an epoch ends with a batch of 4.
Cell iris(const std::string& device = "cpu") {
  Cell c;
  c.workload = "iris_mlp";
  c.dataset = "iris";
  c.device = parse_device(device).value();
  c.dataset_size = 100;
  c.batch_size = 32;
  c.optimizer = Optimizer::kAdam;
  c.lr = 0.01;
  return c;
}

double largest_difference(const std::vector<torch::Tensor>& a,
                          const std::vector<torch::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double most = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    most = std::max(most, (a[i].cpu() - b[i].cpu()).abs().max().item<double>());
  return most;
}

std::vector<torch::Tensor> copies(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> out;
  for (const auto& t : tensors) out.push_back(t.detach().cpu().clone());
  return out;
}

// A stand-in for the CUDA seam's capture that "replays" by running the step again: what the
// workload does around a capture (static batches, warm-up undone) is then visible on the CPU.
struct ReplayingCapture {
  int captures = 0;
  std::vector<std::int64_t> rows;
  GraphCapture capture() {
    GraphCapture graph;
    graph.capture = [this](const std::function<void()>& step) {
      ++captures;
      for (int i = 0; i < 4; ++i) step();  // three warm-up steps and the captured one
      return step;
    };
    return graph;
  }
};

TEST(GraphExecution, ReplayedStepsReachTheEagerParametersAndLosses) {
  const Cell eager_cell = iris();
  Cell graph_cell = eager_cell;
  graph_cell.execution = Execution::kGraph;
  auto eager = make_workload(eager_cell, torch::Device("cpu"), kNoData);
  EXPECT_THROW(make_workload(graph_cell, torch::Device("cpu"), kNoData), std::invalid_argument);
  ReplayingCapture fake;
  auto graph =
      make_workload(graph_cell, torch::Device("cpu"), kNoData, nullptr, {}, fake.capture());
  // A reset seeds the weights and the shuffle: each workload trains right after its own.
  eager->reset(5);
  const auto initial = copies(eager->parameters());
  std::vector<double> eager_losses;
  for (int epoch = 0; epoch < 3; ++epoch)
    eager_losses.push_back(eager->train_epoch().item<double>());
  graph->reset(5);
  // One capture for the batch of 32 and one for the last batch of 4, and the warm-up steps they
  // ran are undone: the graph workload starts from the eager one's weights.
  EXPECT_EQ(fake.captures, 2);
  EXPECT_EQ(largest_difference(graph->parameters(), initial), 0.0);
  for (int epoch = 0; epoch < 3; ++epoch)
    EXPECT_NEAR(graph->train_epoch().item<double>(), eager_losses[epoch], 1e-6) << epoch;
  EXPECT_GT(largest_difference(eager->parameters(), initial), 1e-3);  // it trained
  EXPECT_EQ(graph->parameters_digest(), eager->parameters_digest());
  EXPECT_EQ(graph->evaluate(), eager->evaluate());
}

TEST(GraphExecution, AResetCapturesAgainForTheNewModel) {
  Cell c = iris();
  c.execution = Execution::kGraph;
  c.batch_size = 25;  // 100 rows: no shorter last batch
  ReplayingCapture fake;
  auto graph = make_workload(c, torch::Device("cpu"), kNoData, nullptr, {}, fake.capture());
  graph->reset(1);
  EXPECT_EQ(fake.captures, 1);
  graph->reset(1);
  EXPECT_EQ(fake.captures, 2);
}

TEST(GraphExecution, WithoutCudaTheSeamSaysSo) {
  if (cuda_seam::compiled()) GTEST_SKIP() << "a CUDA build";
  try {
    cuda_seam::capture_graph(
        0, [] {}, 3);
    FAIL() << "captured without CUDA";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA LibTorch"), std::string::npos) << e.what();
  }
}

// The probe and the kernel agree: where the probe says a fused kernel exists for the CPU, it
// updates as LibTorch's optimiser does; where it says none, the optimiser refuses by name.
TEST(FusedOptimizer, TheProbeAgreesWithTheKernelOnTheCpu) {
  for (const Optimizer name : {Optimizer::kAdam, Optimizer::kSgd}) {
    torch::manual_seed(0);
    const torch::Tensor start = torch::randn({8, 3});
    const torch::Tensor target = torch::randn({8, 3});
    if (!fused_kernel_available(name, torch::kCPU)) {
      try {
        FusedOptimizer refused(name, {start.clone().requires_grad_()}, 0.01, 0.9);
        FAIL() << text_of(name) << ": no kernel, yet constructed";
      } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("aten::_fused_" + text_of(name) + "_"),
                  std::string::npos);
      }
      continue;
    }
    torch::Tensor fused_p = start.clone().requires_grad_();
    torch::Tensor loop_p = start.clone().requires_grad_();
    FusedOptimizer fused(name, {fused_p}, 0.01, 0.9);
    auto loop = name == Optimizer::kAdam
                    ? std::unique_ptr<torch::optim::Optimizer>(
                          new torch::optim::Adam({loop_p}, torch::optim::AdamOptions(0.01)))
                    : std::unique_ptr<torch::optim::Optimizer>(new torch::optim::SGD(
                          {loop_p}, torch::optim::SGDOptions(0.01).momentum(0.9)));
    for (int step = 0; step < 5; ++step) {
      fused.zero_grad();
      (fused_p - target).pow(2).sum().backward();
      fused.step();
      loop->zero_grad();
      (loop_p - target).pow(2).sum().backward();
      loop->step();
    }
    EXPECT_LT(largest_difference({fused_p}, {loop_p}), 1e-5) << name;
    EXPECT_GT(largest_difference({fused_p}, {start}), 1e-3) << name;
  }
}

// The fused kernels are called this way; here with operators every LibTorch has for the CPU.
TEST(FusedOptimizer, OperatorsAreCalledByArgumentNameInPlaceWithTheSchemasDefaults) {
  std::vector<torch::Tensor> tensors = {torch::ones({3}), torch::ones({2, 2})};
  call_aten_by_name("aten::_foreach_zero_", {{"self", c10::IValue(tensors)}});
  for (const auto& t : tensors) EXPECT_EQ(t.abs().sum().item<double>(), 0.0);
  torch::Tensor x = torch::zeros({1000});
  call_aten_by_name("aten::uniform_", {{"self", x}});  // from and to: the defaults 0 and 1
  EXPECT_GE(x.min().item<double>(), 0.0);
  EXPECT_LT(x.max().item<double>(), 1.0);
  EXPECT_GT(x.max().item<double>(), 0.5);
  call_aten_by_name("aten::uniform_", {{"self", x}, {"from", 5.0}, {"to", 6.0}});
  EXPECT_GE(x.min().item<double>(), 5.0);
  try {
    call_aten_by_name("aten::uniform_", {{"from", 5.0}});
    FAIL() << "called without self";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("argument \"self\" is required"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(call_aten_by_name("aten::no_such_operator", {}), std::runtime_error);
}

TEST(FusedOptimizer, TheInventoryListsWhatTheProbeFinds) {
  const DeviceInventory inventory = probe_devices();
  for (const Optimizer name : {Optimizer::kAdam, Optimizer::kSgd}) {
    const bool listed = std::find(inventory.fused_kernels.begin(), inventory.fused_kernels.end(),
                                  text_of(name) + "/cpu") != inventory.fused_kernels.end();
    EXPECT_EQ(listed, fused_kernel_available(name, torch::kCPU)) << text_of(name);
  }
}

TEST(Precision, AutocastCastsMatmulsToBf16OnlyWhileItLives) {
  const torch::Tensor a = torch::randn({4, 4});
  {
    const AutocastScope bf16(true, torch::kCPU);
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kBFloat16);
    const AutocastScope off(false, torch::kCPU);  // a disabled scope changes nothing
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kBFloat16);
  }
  EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kFloat);
}

TEST(Precision, Tf32IsSetForTheScopeAndRestored) {
  auto& context = at::globalContext();
  context.setAllowTF32CuBLAS(false);
  {
    const Tf32Scope tf32(true);
    EXPECT_TRUE(context.allowTF32CuBLAS());
    EXPECT_TRUE(context.allowTF32CuDNN());
  }
  EXPECT_FALSE(context.allowTF32CuBLAS());
}

TEST(Precision, Bf16TrainsOnTheCpuAndLeavesFp32Behind) {
  Cell c = iris();
  c.precision = Precision::kBf16;
  auto bf16 = make_workload(c, torch::Device("cpu"), kNoData);
  bf16->reset(2);
  const double first = bf16->train_epoch().item<double>();
  double last = first;
  for (int epoch = 0; epoch < 30; ++epoch) last = bf16->train_epoch().item<double>();
  EXPECT_LT(last, first * 0.8);  // the loss falls, as in fp32
  EXPECT_GT(bf16->evaluate(), 0.5);
  for (const auto& p : bf16->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat);
  const torch::Tensor a = torch::randn({2, 2});
  EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kFloat);  // nothing leaks past the workload
}

// On a GPU: the real capture replays what eager fused steps do, from the same seed.
TEST(GraphExecution, CapturedStepsReachTheEagerParameters_CUDA) {
  if (probe_devices().cuda_devices == 0) GTEST_SKIP() << "no CUDA device";
  Cell c = iris("cuda");
  c.optimizer_impl = OptimizerImpl::kFused;
  auto eager = make_workload(c, torch::Device("cuda"), kNoData);
  c.execution = Execution::kGraph;
  GraphCapture capture;
  capture.capture = [](const std::function<void()>& step) {
    return cuda_seam::capture_graph(0, step, 3);
  };
  auto graph = make_workload(c, torch::Device("cuda"), kNoData, nullptr, {}, capture);
  // A reset seeds the weights and the shuffle: each workload trains right after its own.
  eager->reset(5);
  const auto initial = copies(eager->parameters());
  double eager_loss = 0.0, graph_loss = 0.0;
  for (int epoch = 0; epoch < 5; ++epoch) eager_loss = eager->train_epoch().item<double>();
  graph->reset(5);
  EXPECT_EQ(largest_difference(graph->parameters(), initial), 0.0);
  for (int epoch = 0; epoch < 5; ++epoch) graph_loss = graph->train_epoch().item<double>();
  EXPECT_NEAR(graph_loss, eager_loss, 1e-4);
  EXPECT_LT(largest_difference(graph->parameters(), eager->parameters()), 1e-4);
}

// The foreach optimiser against torch::optim, step by step: two parameters, one of which gets no
// gradient on every third step (torch::optim then leaves it, and its Adam step count, alone).
TEST(ForeachOptimizer, MatchesLibTorchsOptimisersStepByStep) {
  struct Case {
    Optimizer name;
    double momentum;
  };
  for (const Case& k :
       {Case{Optimizer::kAdam, 0.0}, Case{Optimizer::kSgd, 0.9}, Case{Optimizer::kSgd, 0.0}}) {
    torch::manual_seed(0);
    const std::vector<torch::Tensor> start = {torch::randn({8, 3}), torch::randn({5})};
    const torch::Tensor target = torch::randn({8, 3});
    std::vector<torch::Tensor> foreach_p, loop_p;
    for (const auto& t : start) {
      foreach_p.push_back(t.clone().requires_grad_());
      loop_p.push_back(t.clone().requires_grad_());
    }
    ForeachOptimizer foreach_opt(k.name, foreach_p, 0.01, k.momentum);
    auto loop = make_optimizer(k.name, loop_p, 0.01, k.momentum);
    const auto loss = [&](const std::vector<torch::Tensor>& p, int step) {
      torch::Tensor l = (p[0] - target).pow(2).sum();
      if (step % 3 != 2) l = l + p[1].pow(2).sum();  // no gradient for p[1] on every third step
      return l;
    };
    for (int step = 0; step < 7; ++step) {
      foreach_opt.zero_grad();
      loss(foreach_p, step).backward();
      foreach_opt.step();
      loop->zero_grad();
      for (auto& p : loop_p) p.mutable_grad() = torch::Tensor();
      loss(loop_p, step).backward();
      loop->step();
    }
    EXPECT_LT(largest_difference(foreach_p, loop_p), 1e-6) << text_of(k.name) << " " << k.momentum;
    EXPECT_GT(largest_difference(foreach_p, start), 1e-3) << text_of(k.name) << " " << k.momentum;
    // A reset optimiser starts afresh: its next steps are a fresh torch::optim's.
    foreach_opt.reset_state();
    auto fresh = make_optimizer(k.name, loop_p, 0.01, k.momentum);
    for (int step = 0; step < 3; ++step) {
      foreach_opt.zero_grad();
      loss(foreach_p, step).backward();
      foreach_opt.step();
      for (auto& p : loop_p) p.mutable_grad() = torch::Tensor();
      loss(loop_p, step).backward();
      fresh->step();
    }
    EXPECT_LT(largest_difference(foreach_p, loop_p), 1e-6) << text_of(k.name) << " after reset";
  }
}

// The flat optimiser against torch::optim, step by step, with a channels-last 4-D parameter and
// one that gets no gradient on every third step: flat steps it with a zero gradient (its gradient
// is zeroed, not dropped), so torch::optim is given zeros there too.
TEST(FlatOptimizer, MatchesLibTorchsOptimisersStepByStep) {
  struct Case {
    Optimizer name;
    double momentum;
  };
  for (const Case& k :
       {Case{Optimizer::kAdam, 0.0}, Case{Optimizer::kSgd, 0.9}, Case{Optimizer::kSgd, 0.0}}) {
    torch::manual_seed(0);
    const std::vector<torch::Tensor> start = {
        torch::randn({2, 3, 2, 2}).contiguous(torch::MemoryFormat::ChannelsLast),
        torch::randn({5})};
    const torch::Tensor target = torch::randn({2, 3, 2, 2});
    std::vector<torch::Tensor> flat_p, loop_p;
    for (const auto& t : start) {
      flat_p.push_back(t.clone().requires_grad_());
      loop_p.push_back(t.clone().requires_grad_());
    }
    FlatOptimizer flat(k.name, flat_p, 0.01, k.momentum);
    // The parameters now live in the buffer, in their own layout and with their own values.
    const auto* buffer = flat.parameter_buffer().data_ptr<float>();
    EXPECT_EQ(flat_p[0].data_ptr<float>(), buffer);
    EXPECT_EQ(flat_p[1].data_ptr<float>(), buffer + 24);
    EXPECT_EQ(flat_p[0].strides(), start[0].strides());
    EXPECT_EQ(largest_difference(flat_p, start), 0.0);
    auto loop = make_optimizer(k.name, loop_p, 0.01, k.momentum);
    const auto loss = [&](const std::vector<torch::Tensor>& p, int step) {
      torch::Tensor l = (p[0] - target).pow(2).sum();
      if (step % 3 != 2) l = l + p[1].pow(2).sum();
      return l;
    };
    const auto train = [&](torch::optim::Optimizer& reference, int steps) {
      for (int step = 0; step < steps; ++step) {
        flat.zero_grad();
        loss(flat_p, step).backward();
        // backward accumulated into the gradient buffer, in place
        EXPECT_EQ(flat_p[1].grad().data_ptr<float>(),
                  flat.gradient_buffer().data_ptr<float>() + 24);
        flat.step();
        for (auto& p : loop_p) p.mutable_grad() = torch::Tensor();
        loss(loop_p, step).backward();
        for (auto& p : loop_p)
          if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
        reference.step();
      }
    };
    train(*loop, 7);
    EXPECT_LT(largest_difference(flat_p, loop_p), 1e-6) << text_of(k.name) << " " << k.momentum;
    EXPECT_GT(largest_difference(flat_p, start), 1e-3) << text_of(k.name) << " " << k.momentum;
    flat.reset_state();
    train(*make_optimizer(k.name, loop_p, 0.01, k.momentum), 3);
    EXPECT_LT(largest_difference(flat_p, loop_p), 1e-6) << text_of(k.name) << " after reset";
  }
  EXPECT_THROW(FlatOptimizer(Optimizer::kAdam,
                             {torch::ones({2}, torch::requires_grad()),
                              torch::ones({2}, torch::dtype(torch::kDouble).requires_grad(true))},
                             0.1, 0.0),
               std::runtime_error);
}

// A workload trained with the foreach or flat optimiser reaches the loop optimiser's parameters.
void expect_same_as_loop(OptimizerImpl impl, const std::string& device) {
  for (const Optimizer name : {Optimizer::kAdam, Optimizer::kSgd}) {
    Cell c = iris(device);
    c.optimizer = name;
    c.momentum = 0.9;
    auto loop = make_workload(c, torch::Device(device), kNoData);
    c.optimizer_impl = impl;
    auto other = make_workload(c, torch::Device(device), kNoData);
    loop->reset(7);
    for (int epoch = 0; epoch < 5; ++epoch) loop->train_epoch();
    other->reset(7);
    for (int epoch = 0; epoch < 5; ++epoch) other->train_epoch();
    EXPECT_LT(largest_difference(other->parameters(), loop->parameters()), 1e-4) << name;
  }
}

TEST(ForeachOptimizer, TrainsAWorkloadAsTheLoopOptimiserDoes) {
  expect_same_as_loop(OptimizerImpl::kForeach, "cpu");
}

TEST(ForeachOptimizer, TrainsAWorkloadAsTheLoopOptimiserDoes_CUDA) {
  if (probe_devices().cuda_devices == 0) GTEST_SKIP() << "no CUDA device";
  expect_same_as_loop(OptimizerImpl::kForeach, "cuda");
}

TEST(FlatOptimizer, TrainsAWorkloadAsTheLoopOptimiserDoes) {
  expect_same_as_loop(OptimizerImpl::kFlat, "cpu");
}

TEST(FlatOptimizer, TrainsAWorkloadAsTheLoopOptimiserDoes_CUDA) {
  if (probe_devices().cuda_devices == 0) GTEST_SKIP() << "no CUDA device";
  expect_same_as_loop(OptimizerImpl::kFlat, "cuda");
}

TEST(FusedOptimizer, MatchesLibTorchsOptimisers_CUDA) {
  if (probe_devices().cuda_devices == 0) GTEST_SKIP() << "no CUDA device";
  for (const Optimizer name : {Optimizer::kAdam, Optimizer::kSgd}) {
    Cell c = iris("cuda");
    c.optimizer = name;
    c.momentum = 0.9;
    auto loop = make_workload(c, torch::Device("cuda"), kNoData);
    c.optimizer_impl = OptimizerImpl::kFused;
    auto fused = make_workload(c, torch::Device("cuda"), kNoData);
    loop->reset(7);
    for (int epoch = 0; epoch < 5; ++epoch) loop->train_epoch();
    fused->reset(7);
    for (int epoch = 0; epoch < 5; ++epoch) fused->train_epoch();
    EXPECT_LT(largest_difference(fused->parameters(), loop->parameters()), 1e-4) << name;
  }
}

}  // namespace
}  // namespace crossover
