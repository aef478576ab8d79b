#include "workloads/training/fused_optimizer.hpp"

#include <ATen/core/dispatch/Dispatcher.h>

#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace crossover {
namespace {

std::string kernel_name(Optimizer optimizer) { return "aten::_fused_" + text_of(optimizer) + "_"; }

c10::IValue list(const std::vector<torch::Tensor>& tensors) { return c10::IValue(tensors); }

}  // namespace

void call_aten_by_name(const std::string& name,
                       const std::map<std::string, c10::IValue>& arguments) {
  const auto op = c10::Dispatcher::singleton().findOp(c10::OperatorName(name, ""));
  if (!op) throw std::runtime_error(name + ": this LibTorch has no such operator");
  torch::jit::Stack stack;
  for (const auto& argument : op->schema().arguments()) {
    const auto given = arguments.find(argument.name());
    if (given != arguments.end()) {
      stack.push_back(given->second);
    } else if (argument.default_value()) {
      stack.push_back(*argument.default_value());
    } else {
      std::ostringstream schema;
      schema << op->schema();
      throw std::runtime_error(
          name + ": argument \"" + argument.name() +
          "\" is required and was not given (this LibTorch's schema: " + schema.str() + ")");
    }
  }
  op->callBoxed(&stack);
}

bool fused_kernel_available(Optimizer optimizer, torch::DeviceType device) {
  const auto op =
      c10::Dispatcher::singleton().findOp(c10::OperatorName(kernel_name(optimizer), ""));
  if (!op) return false;
  return op->hasKernelForDispatchKey(device == torch::kCUDA ? c10::DispatchKey::CUDA
                                                            : c10::DispatchKey::CPU);
}

FusedOptimizer::FusedOptimizer(Optimizer optimizer, std::vector<torch::Tensor> parameters,
                               double lr, double momentum)
    : optimizer_(optimizer),
      kernel_(kernel_name(optimizer_)),
      parameters_(std::move(parameters)),
      lr_(lr),
      momentum_(momentum) {
  if (!parameters_.empty()) {
    const torch::DeviceType device = parameters_.front().device().type();
    if (!fused_kernel_available(optimizer_, device))
      throw std::runtime_error(kernel_ + " has no kernel for " + c10::DeviceTypeName(device) +
                               " in this LibTorch");
  }
  if (optimizer_ == Optimizer::kAdam) {
    arguments_ = {
        {"max_exp_avg_sqs", list({})}, {"lr", lr_},   {"beta1", 0.9},     {"beta2", 0.999},
        {"weight_decay", 0.0},         {"eps", 1e-8}, {"amsgrad", false}, {"maximize", false}};
  } else {
    arguments_ = {{"weight_decay", 0.0},   {"momentum", momentum_}, {"lr", lr_},
                  {"dampening", 0.0},      {"nesterov", false},     {"maximize", false},
                  {"is_first_step", false}};
  }
  torch::NoGradGuard no_grad;
  for (const auto& p : parameters_) {
    if (optimizer_ == Optimizer::kAdam) {
      exp_avgs_.push_back(torch::zeros_like(p));
      exp_avg_sqs_.push_back(torch::zeros_like(p));
      steps_.push_back(torch::zeros({}, p.options().dtype(torch::kFloat)));
    } else if (momentum_ != 0.0) {
      // With no dampening, a zero buffer's first update is the gradient, as LibTorch's first step.
      momentum_buffers_.push_back(torch::zeros_like(p));
    }
  }
}

void FusedOptimizer::zero_grad() {
  for (auto& p : parameters_) p.mutable_grad() = torch::Tensor();
}

void FusedOptimizer::reset_state() {
  torch::NoGradGuard no_grad;
  for (auto* tensors : {&exp_avgs_, &exp_avg_sqs_, &steps_, &momentum_buffers_})
    for (auto& t : *tensors) t.zero_();
}

void FusedOptimizer::step() {
  torch::NoGradGuard no_grad;
  // Only parameters that have a gradient move, as in torch::optim.
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps, buffers;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const torch::Tensor& grad = parameters_[i].grad();
    if (!grad.defined()) continue;
    params.push_back(parameters_[i]);
    grads.push_back(grad);
    if (optimizer_ == Optimizer::kAdam) {
      exp_avgs.push_back(exp_avgs_[i]);
      exp_avg_sqs.push_back(exp_avg_sqs_[i]);
      steps.push_back(steps_[i]);
    } else if (!momentum_buffers_.empty()) {
      buffers.push_back(momentum_buffers_[i]);
    }
  }
  if (params.empty()) return;
  // The settings were filled in once, by the constructor; only the lists change per step.
  arguments_["self"] = list(params);
  arguments_["grads"] = list(grads);
  if (optimizer_ == Optimizer::kAdam) {
    arguments_["exp_avgs"] = list(exp_avgs);
    arguments_["exp_avg_sqs"] = list(exp_avg_sqs);
    // The kernel reads the step count but does not advance it: PyTorch's _fused_adam adds one
    // first, and a count of 0 would divide by a zero bias correction.
    torch::_foreach_add_(steps, 1);
    arguments_["state_steps"] = list(steps);
  } else {
    arguments_["momentum_buffer_list"] = list(buffers);
  }
  call_aten_by_name(kernel_, arguments_);
}

}  // namespace crossover
