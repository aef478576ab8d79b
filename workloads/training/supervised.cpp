#include "workloads/training/supervised.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "workloads/training/precision.hpp"

namespace crossover {
namespace {

// Test batches bound the memory of evaluating a convolutional network on 10,000 images.
constexpr std::int64_t kEvaluationBatch = 1000;

// Tells `observer`, when there is one, that `phase` of the current step has ended.
void end_phase(StepObserver* observer, Phase phase) {
  if (observer != nullptr) observer->phase_end(phase);
}

// A tensor shaped like `like` but with `rows` rows, zero-filled.
torch::Tensor zero_rows(const torch::Tensor& like, std::int64_t rows) {
  std::vector<std::int64_t> shape = like.sizes().vec();
  shape[0] = rows;
  return torch::zeros(shape, like.options());
}

}  // namespace

SupervisedWorkload::SupervisedWorkload(TensorData data, ModelFactory make_model, TrainingSpec spec,
                                       DataPath path, torch::Device device, double flops_per_sample,
                                       Replicas* replicas)
    : make_model_(std::move(make_model)),
      spec_(std::move(spec)),
      device_(device),
      replicas_(replicas) {
  TORCH_CHECK(data.x_train.size(0) > 0, "the training split is empty");
  batches_ = make_batches(data, path, device_);
  x_test_ = to_features(data.x_test, data.mean, data.stdev).to(device_);
  y_test_ = data.y_test.to(device_);
  facts_.data_source = data.data_source;
  facts_.train_rows = data.x_train.size(0);
  facts_.test_rows = data.x_test.size(0);
  facts_.steps_per_epoch = batches_->steps_per_epoch();
  facts_.metric = metric_name(spec_.task);
  facts_.flops_per_sample = flops_per_sample;
  if (flops_per_sample > 0)
    facts_.flops_source = spec_.flops_estimated ? "estimated" : "analytical";
  const std::int64_t rows = facts_.train_rows;
  batch_rows_ = path.batch_size <= 0 ? rows : std::min(path.batch_size, rows);
  last_rows_ = rows % batch_rows_;
  facts_.rows_per_step = batch_rows_;
  const auto row_bytes = [](const torch::Tensor& t) {
    return t.size(0) > 0 ? static_cast<double>(t.numel() / t.size(0) * t.element_size()) : 0.0;
  };
  facts_.sample_bytes = row_bytes(x_test_) + row_bytes(y_test_);
  channels_last_ = spec_.precision == Precision::kBf16 && x_test_.dim() == 4;
}

void SupervisedWorkload::reset(std::int64_t seed) {
  // Build on the CPU from the seed, then move: the same initial weights on every device.
  torch::manual_seed(static_cast<std::uint64_t>(seed));
  model_ = make_model_();
  model_.ptr()->to(device_);
  if (channels_last_) {
    torch::NoGradGuard no_grad;
    for (auto& p : model_.ptr()->parameters())
      if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  if (replicas_ != nullptr) {
    // As DistributedDataParallel does: every replica starts from rank 0's weights and buffers.
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> state = model_.ptr()->parameters();
    for (const auto& buffer : model_.ptr()->buffers()) state.push_back(buffer);
    replicas_->broadcast(state);
    std::int64_t numel = 0;
    for (const auto& p : model_.ptr()->parameters()) numel += p.numel();
    gradient_bucket_ = {torch::empty({numel}, model_.ptr()->parameters().front().options())};
  }
  if (spec_.data_parallel.forward) {
    data_parallel_ = torch::nn::Sequential();
    data_parallel_->push_back(model_);
  }
  graphs_.clear();  // they replay the previous model's kernels
  optimizer_.reset();
  optimizer_ = make_step_optimizer(spec_.optimizer_impl, spec_.optimizer,
                                   model_.ptr()->parameters(), spec_.lr, spec_.momentum);
  if (spec_.graph.capture) capture_steps();
}

void SupervisedWorkload::capture_steps() {
  const Tf32Scope tf32(spec_.precision == Precision::kTf32);
  model_.ptr()->train();  // the graph replays training-mode kernels (batch norm, dropout)
  // Warming up and capturing run real steps, on zeros: keep what they change to put it back.
  std::vector<torch::Tensor> state = model_.ptr()->parameters();
  for (const auto& buffer : model_.ptr()->buffers()) state.push_back(buffer);
  std::vector<torch::Tensor> fresh;
  for (const auto& t : state) fresh.push_back(t.detach().clone());
  graph_total_ = torch::zeros({}, torch::TensorOptions().device(device_));
  for (const std::int64_t rows : {batch_rows_, last_rows_}) {
    if (rows == 0 || (!graphs_.empty() && graphs_.front().x.size(0) == rows)) continue;
    CapturedStep captured;
    captured.x = zero_rows(x_test_, rows);
    captured.y = zero_rows(y_test_, rows);
    captured.replay = spec_.graph.capture([this, x = captured.x, y = captured.y] {
      zero_grads();  // none: the captured backward writes every gradient afresh
      const torch::Tensor l = forward_loss(x, y);
      l.backward();
      optimizer_step();
      graph_total_.add_(l.detach());  // the loss stays on the device
    });
    graphs_.push_back(std::move(captured));
  }
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < state.size(); ++i) state[i].copy_(fresh[i]);
  optimizer_->reset_state();  // in place: the graphs point at it
}

torch::Tensor SupervisedWorkload::forward_loss(const torch::Tensor& x, const torch::Tensor& y) {
  const AutocastScope autocast(spec_.precision == Precision::kBf16, device_.type());
  const torch::Tensor input = channels_last_ ? x.contiguous(torch::MemoryFormat::ChannelsLast) : x;
  if (!spec_.data_parallel.forward) return loss(model_.forward(input), y);
  return loss(spec_.data_parallel.forward(data_parallel_, input), y.to(spec_.data_parallel.output));
}

void SupervisedWorkload::zero_grads() { optimizer_->zero_grad(); }

void SupervisedWorkload::optimizer_step() { optimizer_->step(); }

torch::Tensor SupervisedWorkload::loss(const torch::Tensor& output,
                                       const torch::Tensor& target) const {
  if (spec_.task == Task::kRegression) return torch::mse_loss(output, target);
  return torch::nn::functional::cross_entropy(output, target);
}

torch::Tensor SupervisedWorkload::train_epoch(StepObserver* observer) {
  const auto end = [observer](Phase phase) { end_phase(observer, phase); };
  TORCH_CHECK(optimizer_ != nullptr, "train_epoch() before reset()");
  const Tf32Scope tf32(spec_.precision == Precision::kTf32);
  model_.ptr()->train();
  if (spec_.graph.capture) return train_epoch_graph(observer);
  torch::Tensor total = torch::zeros({}, torch::TensorOptions().device(device_));
  std::int64_t count = 0;
  torch::Tensor x, y;
  batches_->start_epoch();
  while (batches_->next(x, y)) {
    end(Phase::kData);
    batches_->to_device(x, y);
    // A replica trains on its contiguous slice of the global batch; its loss is weighted by the
    // slice's share so that the averaged gradient is the global batch's even when the last
    // batch does not divide evenly.
    double weight = 1.0;
    if (replicas_ != nullptr) {
      const std::int64_t rows = x.size(0), world = replicas_->world();
      const std::int64_t begin = rows * replicas_->rank() / world;
      const std::int64_t stop = rows * (replicas_->rank() + 1) / world;
      x = x.slice(0, begin, stop);
      y = y.slice(0, begin, stop);
      weight = static_cast<double>((stop - begin) * world) / static_cast<double>(rows);
    }
    end(Phase::kCopy);
    zero_grads();
    const bool empty = x.size(0) == 0;  // a replica can get no row of a short last batch
    torch::Tensor l;
    if (!empty) {
      l = forward_loss(x, y);
      end(Phase::kForward);
      (weight == 1.0 ? l : l * weight).backward();
    } else {
      end(Phase::kForward);
    }
    if (replicas_ != nullptr) average_gradients();
    end(Phase::kBackward);
    optimizer_step();
    if (!empty) {
      // Weighted like the gradient: the mean over replicas is then the global batch loss.
      torch::Tensor step_loss = weight == 1.0 ? l.detach() : l.detach() * weight;
      if (step_loss.device() != device_) step_loss = step_loss.to(device_);  // dp's output device
      total += step_loss;                                                    // stays on the device
      ++count;
    }
    end(Phase::kOptimizer);
  }
  return total / static_cast<double>(std::max<std::int64_t>(count, 1));
}

torch::Tensor SupervisedWorkload::train_epoch_graph(StepObserver* observer) {
  const auto end = [observer](Phase phase) { end_phase(observer, phase); };
  graph_total_.zero_();
  std::int64_t count = 0;
  torch::Tensor x, y;
  const auto captured_for = [this](std::int64_t rows) {
    const auto it = std::find_if(graphs_.begin(), graphs_.end(),
                                 [rows](const auto& g) { return g.x.size(0) == rows; });
    TORCH_CHECK(it != graphs_.end(), "no captured step for a batch of ", rows, " rows");
    return it;
  };
  batches_->start_epoch();
  for (;;) {
    // Data already on the device is gathered straight into the captured inputs: no batch tensor
    // and no copy into them (two kernels a step fewer). Other batches are copied in.
    const std::int64_t in_place = batches_->rows_gathered_in_place();
    if (in_place == 0) break;
    CapturedStep* step = nullptr;
    if (in_place > 0) {
      step = &*captured_for(in_place);
      batches_->next_into(step->x, step->y);
      end(Phase::kData);
    } else {
      if (!batches_->next(x, y)) break;
      end(Phase::kData);
      batches_->to_device(x, y);
      step = &*captured_for(x.size(0));
      step->x.copy_(x, /*non_blocking=*/true);
      step->y.copy_(y, /*non_blocking=*/true);
    }
    end(Phase::kCopy);
    step->replay();  // forward, loss, backward and update: one launch
    ++count;
    for (const Phase phase : {Phase::kForward, Phase::kBackward, Phase::kOptimizer}) end(phase);
  }
  return graph_total_ / static_cast<double>(std::max<std::int64_t>(count, 1));
}

void SupervisedWorkload::average_gradients() {
  torch::NoGradGuard no_grad;
  // One flat bucket, allocated once per model in reset(): no allocation in the timed step.
  torch::Tensor& bucket = gradient_bucket_.front();
  std::int64_t offset = 0;
  for (auto& p : model_.ptr()->parameters()) {
    const std::int64_t n = p.numel();
    torch::Tensor slice = bucket.slice(0, offset, offset + n);
    if (p.grad().defined()) {
      slice.copy_(p.grad().reshape(-1));
    } else {
      slice.zero_();  // a parameter this replica's slice did not reach
    }
    offset += n;
  }
  replicas_->all_reduce_sum(gradient_bucket_);
  bucket.div_(static_cast<double>(replicas_->world()));
  offset = 0;
  for (auto& p : model_.ptr()->parameters()) {
    const std::int64_t n = p.numel();
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    p.grad().copy_(bucket.slice(0, offset, offset + n).view_as(p));
    offset += n;
  }
}

std::vector<torch::Tensor> SupervisedWorkload::parameters() const {
  return model_.is_empty() ? std::vector<torch::Tensor>{} : model_.ptr()->parameters();
}

std::string SupervisedWorkload::parameters_digest() const {
  // FNV-1a over the bytes of every parameter, in order, copied to the host.
  std::uint64_t hash = 1469598103934665603ULL;
  for (const auto& p : model_.ptr()->parameters()) {
    const torch::Tensor host = p.detach().to(torch::kCPU).contiguous();
    const auto* bytes = static_cast<const unsigned char*>(host.data_ptr());
    for (std::size_t i = 0; i < host.nbytes(); ++i) {
      hash ^= bytes[i];
      hash *= 1099511628211ULL;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

double SupervisedWorkload::evaluate() {
  torch::NoGradGuard no_grad;
  const Tf32Scope tf32(spec_.precision == Precision::kTf32);
  const AutocastScope autocast(spec_.precision == Precision::kBf16, device_.type());
  model_.ptr()->eval();
  const std::int64_t rows = x_test_.size(0);
  double squared_error = 0.0;
  std::int64_t correct = 0;
  for (std::int64_t start = 0; start < rows; start += kEvaluationBatch) {
    const std::int64_t end = std::min(start + kEvaluationBatch, rows);
    torch::Tensor input = x_test_.slice(0, start, end);
    if (channels_last_) input = input.contiguous(torch::MemoryFormat::ChannelsLast);
    const torch::Tensor output = model_.forward(input);
    const torch::Tensor target = y_test_.slice(0, start, end);
    if (spec_.task == Task::kRegression) {
      squared_error += torch::mse_loss(output, target, torch::Reduction::Sum).item<double>();
    } else {
      correct += output.argmax(1).eq(target).sum().item<std::int64_t>();
    }
  }
  if (spec_.task == Task::kRegression) return std::sqrt(squared_error / static_cast<double>(rows));
  return static_cast<double>(correct) / static_cast<double>(rows);
}

}  // namespace crossover
