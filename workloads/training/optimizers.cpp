#include "workloads/training/optimizers.hpp"

#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "workloads/training/fused_optimizer.hpp"

namespace crossover {
namespace {

constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;  // torch::optim::AdamOptions'

std::vector<torch::Tensor> pick(const std::vector<torch::Tensor>& tensors,
                                const std::vector<std::size_t>& indices) {
  std::vector<torch::Tensor> picked;
  picked.reserve(indices.size());
  for (const std::size_t i : indices) picked.push_back(tensors[i]);
  return picked;
}

std::vector<torch::Tensor> grads_of(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> grads;
  grads.reserve(parameters.size());
  for (const auto& p : parameters) grads.push_back(p.grad());
  return grads;
}

// torch::optim, one parameter at a time.
class LoopOptimizer : public StepOptimizer {
 public:
  LoopOptimizer(Optimizer name, std::vector<torch::Tensor> parameters, double lr, double momentum)
      : name_(name), parameters_(std::move(parameters)), lr_(lr), momentum_(momentum) {
    reset_state();
  }
  void zero_grad() override { optimizer_->zero_grad(); }
  void step() override { optimizer_->step(); }
  void reset_state() override { optimizer_ = make_optimizer(name_, parameters_, lr_, momentum_); }

 private:
  Optimizer name_;
  std::vector<torch::Tensor> parameters_;
  double lr_, momentum_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

}  // namespace

std::unique_ptr<torch::optim::Optimizer> make_optimizer(Optimizer optimizer,
                                                        std::vector<torch::Tensor> parameters,
                                                        double lr, double momentum) {
  if (optimizer == Optimizer::kAdam) {
    return std::make_unique<torch::optim::Adam>(std::move(parameters),
                                                torch::optim::AdamOptions(lr));
  }
  return std::make_unique<torch::optim::SGD>(std::move(parameters),
                                             torch::optim::SGDOptions(lr).momentum(momentum));
}

ForeachOptimizer::ForeachOptimizer(Optimizer optimizer, std::vector<torch::Tensor> parameters,
                                   double lr, double momentum)
    : optimizer_(optimizer), parameters_(std::move(parameters)), lr_(lr), momentum_(momentum) {
  torch::NoGradGuard no_grad;
  if (optimizer_ == Optimizer::kAdam) {
    for (const auto& p : parameters_) {
      exp_avgs_.push_back(torch::zeros_like(p));
      exp_avg_sqs_.push_back(torch::zeros_like(p));
    }
  }
  steps_.assign(parameters_.size(), 0);
  momentum_buffers_.resize(parameters_.size());
}

void ForeachOptimizer::zero_grad() {
  for (auto& p : parameters_) p.mutable_grad() = torch::Tensor();
}

void ForeachOptimizer::reset_state() {
  torch::NoGradGuard no_grad;
  for (auto* tensors : {&exp_avgs_, &exp_avg_sqs_})
    for (auto& t : *tensors) t.zero_();
  steps_.assign(parameters_.size(), 0);
  for (auto& buffer : momentum_buffers_) buffer = torch::Tensor();
}

void ForeachOptimizer::step() {
  torch::NoGradGuard no_grad;
  // Only parameters that have a gradient move, as in torch::optim.
  std::vector<std::size_t> moving;
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].grad().defined()) moving.push_back(i);
  if (moving.empty()) return;
  if (optimizer_ == Optimizer::kAdam) {
    adam_step(moving);
  } else {
    sgd_step(moving);
  }
}

void ForeachOptimizer::adam_step(const std::vector<std::size_t>& moving) {
  // Parameters that skipped steps (no gradient) have their own counts and bias corrections:
  // one group of foreach calls per count (normally a single group).
  std::map<std::int64_t, std::vector<std::size_t>> by_step;
  for (const std::size_t i : moving) by_step[++steps_[i]].push_back(i);
  for (const auto& [step, group] : by_step) {
    const auto params = pick(parameters_, group);
    const auto grads = grads_of(params);
    const auto exp_avgs = pick(exp_avgs_, group);
    const auto exp_avg_sqs = pick(exp_avg_sqs_, group);
    torch::_foreach_mul_(exp_avgs, kBeta1);
    torch::_foreach_add_(exp_avgs, grads, 1 - kBeta1);
    torch::_foreach_mul_(exp_avg_sqs, kBeta2);
    torch::_foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - kBeta2);
    const double bias_correction1 = 1 - std::pow(kBeta1, static_cast<double>(step));
    const double bias_correction2 = 1 - std::pow(kBeta2, static_cast<double>(step));
    // As torch::optim::Adam: denom = sqrt(v) / sqrt(bc2) + eps; p -= lr / bc1 * m / denom.
    std::vector<torch::Tensor> denom = torch::_foreach_sqrt(exp_avg_sqs);
    torch::_foreach_div_(denom, std::sqrt(bias_correction2));
    torch::_foreach_add_(denom, kEps);
    torch::_foreach_addcdiv_(params, exp_avgs, denom, -lr_ / bias_correction1);
  }
}

void ForeachOptimizer::sgd_step(const std::vector<std::size_t>& moving) {
  const auto params = pick(parameters_, moving);
  const auto grads = grads_of(params);
  if (momentum_ == 0.0) {
    torch::_foreach_add_(params, grads, -lr_);
    return;
  }
  // As torch::optim::SGD: a parameter's first buffer is its gradient; then buf = m * buf + grad.
  std::vector<std::size_t> first, later;
  for (const std::size_t i : moving) (momentum_buffers_[i].defined() ? later : first).push_back(i);
  for (const std::size_t i : first) momentum_buffers_[i] = parameters_[i].grad().detach().clone();
  if (!later.empty()) {
    const auto buffers = pick(momentum_buffers_, later);
    torch::_foreach_mul_(buffers, momentum_);
    torch::_foreach_add_(buffers, grads_of(pick(parameters_, later)));
  }
  torch::_foreach_add_(params, pick(momentum_buffers_, moving), -lr_);
}

FlatOptimizer::FlatOptimizer(Optimizer optimizer, std::vector<torch::Tensor> parameters, double lr,
                             double momentum)
    : optimizer_(optimizer), lr_(lr), momentum_(momentum) {
  if (parameters.empty()) throw std::runtime_error("optimizer_impl \"flat\": no parameters");
  std::int64_t numel = 0;
  const auto options = parameters.front().options();
  for (const auto& p : parameters) {
    if (p.dtype() != options.dtype() || p.device() != options.device() ||
        !p.is_non_overlapping_and_dense()) {
      throw std::runtime_error(
          "optimizer_impl \"flat\" needs every parameter dense, in one dtype on one device; "
          "use \"foreach\"");
    }
    numel += p.numel();
  }
  torch::NoGradGuard no_grad;
  params_ = torch::empty({numel}, options);
  grads_ = torch::zeros({numel}, options);
  std::int64_t offset = 0;
  for (auto& p : parameters) {
    // The same strides as before (channels-last weights stay channels last): a dense tensor's
    // strides cover exactly numel elements from its slice's start.
    const auto view_of = [&](const torch::Tensor& buffer) {
      return buffer.slice(0, offset, offset + p.numel()).as_strided(p.sizes(), p.strides());
    };
    torch::Tensor data = view_of(params_);
    data.copy_(p.detach());
    p.set_data(data);
    p.mutable_grad() = view_of(grads_);
    offset += p.numel();
  }
  if (optimizer_ == Optimizer::kAdam) {
    exp_avg_ = torch::zeros_like(params_);
    exp_avg_sq_ = torch::zeros_like(params_);
  }
}

void FlatOptimizer::zero_grad() { grads_.zero_(); }

void FlatOptimizer::reset_state() {
  torch::NoGradGuard no_grad;
  if (exp_avg_.defined()) {
    exp_avg_.zero_();
    exp_avg_sq_.zero_();
  }
  momentum_buffer_ = torch::Tensor();
  steps_ = 0;
}

void FlatOptimizer::step() {
  torch::NoGradGuard no_grad;
  if (optimizer_ == Optimizer::kAdam) {
    ++steps_;
    exp_avg_.mul_(kBeta1).add_(grads_, 1 - kBeta1);
    exp_avg_sq_.mul_(kBeta2).addcmul_(grads_, grads_, 1 - kBeta2);
    const double bias_correction1 = 1 - std::pow(kBeta1, static_cast<double>(steps_));
    const double bias_correction2 = 1 - std::pow(kBeta2, static_cast<double>(steps_));
    torch::Tensor denom = exp_avg_sq_.sqrt();  // the step's one allocation
    denom.div_(std::sqrt(bias_correction2)).add_(kEps);
    params_.addcdiv_(exp_avg_, denom, -lr_ / bias_correction1);
    return;
  }
  if (momentum_ == 0.0) {
    params_.add_(grads_, -lr_);
    return;
  }
  if (momentum_buffer_.defined()) {
    momentum_buffer_.mul_(momentum_).add_(grads_);
  } else {
    momentum_buffer_ = grads_.clone();
  }
  params_.add_(momentum_buffer_, -lr_);
}

std::unique_ptr<StepOptimizer> make_step_optimizer(OptimizerImpl impl, Optimizer name,
                                                   std::vector<torch::Tensor> parameters, double lr,
                                                   double momentum) {
  switch (impl) {
    case OptimizerImpl::kForeach:
      return std::make_unique<ForeachOptimizer>(name, std::move(parameters), lr, momentum);
    case OptimizerImpl::kFlat:
      return std::make_unique<FlatOptimizer>(name, std::move(parameters), lr, momentum);
    case OptimizerImpl::kFused:
      return std::make_unique<FusedOptimizer>(name, std::move(parameters), lr, momentum);
    case OptimizerImpl::kLoop:
      break;
  }
  return std::make_unique<LoopOptimizer>(name, std::move(parameters), lr, momentum);
}

}  // namespace crossover
