// A user's TorchScript model checked against its cell, and the synthetic samples it trains on.
#include "workloads/models/user_model.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/files/file_writer.hpp"
#include "workloads/data/catalog.hpp"
#include "workloads/models/torchscript.hpp"

namespace crossover {
namespace {

std::string shape_text(c10::IntArrayRef shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace

std::string script_error_summary(const std::string& text) {
  const auto ends_with = [](const std::string& word, const std::string& end) {
    return word.size() >= end.size() &&
           word.compare(word.size() - end.size(), end.size(), end) == 0;
  };
  std::size_t end = text.size();
  while (end > 0) {
    const auto start = text.rfind('\n', end - 1);
    std::string line = text.substr(start == std::string::npos ? 0 : start + 1,
                                   end - (start == std::string::npos ? 0 : start + 1));
    line.erase(0, line.find_first_not_of(" \t"));
    const auto colon = line.find(": ");
    const std::string name = line.substr(0, colon);
    if (colon != std::string::npos && name.find(' ') == std::string::npos &&
        (ends_with(name, "Error") || ends_with(name, "Exception")))
      return line;
    if (start == std::string::npos) break;
    end = start;
  }
  return text.substr(0, text.find('\n'));
}

torch::jit::Module load_checked_model(const Cell& cell) {
  torch::jit::Module module = load_scripted_model(cell.model);
  ScriptedModel{module};  // throws when nothing is trainable
  std::vector<std::int64_t> batch = {2};
  batch.insert(batch.end(), cell.input_shape.begin(), cell.input_shape.end());
  torch::Tensor out;
  try {
    torch::NoGradGuard no_grad;
    const bool has_mode = module.hasattr("training");  // every nn.Module's script has it
    if (has_mode) module.eval();
    const c10::IValue value = module.forward({torch::zeros(batch)});
    if (has_mode) module.train();
    if (!value.isTensor()) {
      throw std::runtime_error(std::string("returned ") + value.tagKind().c_str() +
                               ", not one tensor");
    }
    out = value.toTensor();
  } catch (const std::exception& e) {
    const std::string what = dynamic_cast<const c10::Error*>(&e) != nullptr
                                 ? static_cast<const c10::Error&>(e).what_without_backtrace()
                                 : e.what();
    throw std::runtime_error("model " + cell.model + ": its forward rejects input_shape " +
                             shape_text(cell.input_shape) + " (a batch " + shape_text(batch) +
                             "): " + script_error_summary(what));
  }
  if (!out.is_floating_point()) {
    throw std::runtime_error("model " + cell.model + ": its forward returns a tensor of " +
                             std::string(c10::toString(out.scalar_type())) +
                             ", which no loss can be trained through; return floating-point "
                             "scores (logits) or values");
  }
  const std::int64_t width = cell.outputs > 0 ? cell.outputs : cell.classes;
  if (out.dim() != 2 || out.size(0) != 2 || out.size(1) != width) {
    throw std::runtime_error("model " + cell.model + ": a batch " + shape_text(batch) +
                             " gives an output of " + shape_text(out.sizes()) + ", where " +
                             (cell.outputs > 0 ? "outputs " : "classes ") + std::to_string(width) +
                             " expects [2, " + std::to_string(width) + "]");
  }
  if (!torch::isfinite(out).all().item<bool>()) {
    throw std::runtime_error("model " + cell.model + ": a batch " + shape_text(batch) +
                             " of zeros gives NaN or infinite outputs; a model that does cannot "
                             "be trained (a division by zero, a log of 0?)");
  }
  return module;
}

Found user_model_problem(const Cell& cell) {
  try {
    load_checked_model(cell);
  } catch (const c10::Error& e) {
    return Problem("model " + cell.model + ": " + script_error_summary(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return Problem(e.what());
  }
  return std::nullopt;
}

void write_example_model(const std::string& path) {
  torch::manual_seed(0);
  torch::jit::Module m("ExampleMlp");
  m.register_attribute("training", c10::BoolType::get(), true);  // as every nn.Module has
  // nn.Linear's initialisation: uniform in +-1/sqrt(fan_in); trainable, as nn.Parameter.
  const auto linear = [&m](const std::string& name, std::int64_t in, std::int64_t out) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    m.register_parameter(name + "_weight",
                         torch::empty({out, in}).uniform_(-bound, bound).requires_grad_(), false);
    m.register_parameter(name + "_bias",
                         torch::empty({out}).uniform_(-bound, bound).requires_grad_(), false);
  };
  linear("fc1", 20, 64);
  linear("fc2", 64, 64);
  linear("out", 64, 4);
  m.define(R"(
    def forward(self, x):
        x = torch.relu(torch.matmul(x, self.fc1_weight.t()) + self.fc1_bias)
        x = torch.relu(torch.matmul(x, self.fc2_weight.t()) + self.fc2_bias)
        return torch.matmul(x, self.out_weight.t()) + self.out_bias
  )");
  // Through the project's one writer: a temporary file renamed into place, no link followed.
  std::ostringstream bytes;
  m.save(bytes);
  write_text_file(path, bytes.str());
}

TensorData synthetic_samples(const std::vector<std::int64_t>& input_shape, int classes, int outputs,
                             std::int64_t dataset_size, std::int64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(static_cast<std::uint64_t>(seed));
  const WorkloadInfo& declared = *find_workload(kUserModelWorkload);
  const std::int64_t train = dataset_size == kFull ? declared.made_train_rows : dataset_size;
  const std::int64_t test = declared.made_test_rows;
  std::vector<std::int64_t> shape = {train + test};
  shape.insert(shape.end(), input_shape.begin(), input_shape.end());
  const torch::Tensor noise = at::randn(shape, generator);
  torch::Tensor x, y;
  if (outputs > 0) {
    // A fixed linear function of the sample, scaled so the targets have unit variance, plus noise.
    const std::int64_t features = noise[0].numel();
    const torch::Tensor weights =
        at::randn({features, outputs}, generator) / std::sqrt(static_cast<double>(features));
    x = noise;
    y = x.flatten(1).matmul(weights) + 0.1 * at::randn({train + test, outputs}, generator);
  } else {
    // One centre per class, a standard deviation apart on average in each value.
    std::vector<std::int64_t> centre_shape = {classes};
    centre_shape.insert(centre_shape.end(), input_shape.begin(), input_shape.end());
    const torch::Tensor centres = at::randn(centre_shape, generator);
    y = at::randint(classes, {train + test}, generator, torch::kLong);
    x = centres.index_select(0, y) + noise;
  }
  TensorData data;
  data.x_train = x.slice(0, 0, train);
  data.y_train = y.slice(0, 0, train);
  data.x_test = x.slice(0, train);
  data.y_test = y.slice(0, train);
  data.data_source = DataSource::kGenerated;  // made in memory by design: no real data set to fetch
  return data;
}

}  // namespace crossover
