#include "runner/execution/reference.hpp"

#include <chrono>

#include "core/stats/stats.hpp"
#include "runner/hardware/threads.hpp"

namespace crossover {
namespace {

constexpr int kTrials = 7;
constexpr int kMatmulsPerTrial = 16;
constexpr int kStepsPerTrial = 80;

// The median over kTrials of the time of `per_trial` calls of `work`, per call, after one
// untimed trial (thread pools, page faults, kernel selection).
template <typename Work>
double median_seconds(int per_trial, Work&& work) {
  std::vector<double> trials;
  for (int t = 0; t <= kTrials; ++t) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < per_trial; ++i) work();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t > 0) trials.push_back(seconds / per_trial);
  }
  return quantile(trials, 0.5);
}

}  // namespace

ReferenceTimes measure_reference() {
  apply_threads(1);
  torch::manual_seed(0);
  torch::Tensor a = torch::randn({256, 256}), b = torch::randn({256, 256}), c;
  const double matmul = median_seconds(kMatmulsPerTrial, [&] {
    torch::NoGradGuard no_grad;
    c = torch::mm(a, b);
  });

  torch::nn::Sequential mlp(torch::nn::Linear(64, 64), torch::nn::ReLU(),
                            torch::nn::Linear(64, 10));
  torch::optim::SGD sgd(mlp->parameters(), torch::optim::SGDOptions(0.01));
  const torch::Tensor x = torch::randn({32, 64});
  const torch::Tensor y = torch::randint(0, 10, {32});
  const double step = median_seconds(kStepsPerTrial, [&] {
    sgd.zero_grad();
    torch::nn::functional::cross_entropy(mlp->forward(x), y).backward();
    sgd.step();
  });
  // The same kind of work on every core (the libraries' default threads): a machine whose other
  // cores are taken (a neighbour, steal time on a virtual machine) slows the cells that use them,
  // and the one-thread reference cannot see that.
  apply_threads(0);
  torch::Tensor p = torch::randn({384, 384}), q = torch::randn({384, 384});
  const double matmul_all = median_seconds(kMatmulsPerTrial / 2, [&] {
    torch::NoGradGuard no_grad;
    c = torch::mm(p, q);
  });
  const torch::Tensor wide = torch::randn({512, 64});
  const torch::Tensor wide_y = torch::randint(0, 10, {512});
  const double step_all = median_seconds(kStepsPerTrial / 4, [&] {
    sgd.zero_grad();
    torch::nn::functional::cross_entropy(mlp->forward(wide), wide_y).backward();
    sgd.step();
  });
  ReferenceTimes times;
  times.matmul_seconds = matmul;
  times.step_seconds = step;
  times.matmul_all_seconds = matmul_all;
  times.step_all_seconds = step_all;
  return times;
}

}  // namespace crossover
