#include "workloads/anatomy/op_cost.hpp"

#include <ATen/record_function.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace crossover {
namespace {

double matmul_flops(const at::Tensor& a, const at::Tensor& b) {
  // [..., m, k] x [..., k, n]: 2 m k n per batch; a vector b has n = 1.
  const double n = b.dim() >= 2 ? static_cast<double>(b.size(-1)) : 1.0;
  return 2.0 * static_cast<double>(a.numel()) * n;
}

// A convolution's multiply-adds, twice: each output position (each input position, transposed)
// meets the whole kernel of every output channel, weight.numel() = out x in/groups x kernel.
// `stride`, `padding` and `dilation` are the operator's int lists (one value for every
// dimension, or one each).
double convolution_flops(const at::Tensor& input, const at::Tensor& weight,
                         const c10::IValue& stride, const c10::IValue& padding,
                         const c10::IValue& dilation, bool transposed) {
  const auto at = [](const c10::IValue& v, std::size_t i, std::int64_t fallback) {
    if (!v.isIntList()) return fallback;
    const auto values = v.toIntVector();
    return values.empty() ? fallback : values[std::min(i, values.size() - 1)];
  };
  double positions = static_cast<double>(input.size(0));
  for (std::int64_t d = 2; d < input.dim(); ++d) {
    const auto i = static_cast<std::size_t>(d - 2);
    const std::int64_t k = weight.size(d), s = at(stride, i, 1), p = at(padding, i, 0),
                       dil = at(dilation, i, 1);
    positions *= static_cast<double>(
        transposed ? input.size(d) : (input.size(d) + 2 * p - dil * (k - 1) - 1) / s + 1);
  }
  return 2.0 * positions * static_cast<double>(weight.numel());
}

// Inputs 0-5 of conv1d/2d/3d, convolution and _convolution alike: input, weight, bias, stride,
// padding, dilation; convolution and _convolution have `transposed` at 6.
double forward_convolution_flops(c10::ArrayRef<const c10::IValue> inputs) {
  const bool transposed = inputs.size() > 6 && inputs[6].isBool() && inputs[6].toBool();
  return convolution_flops(inputs[0].toTensor(), inputs[1].toTensor(), inputs[3], inputs[4],
                           inputs[5], transposed);
}

// convolution_backward: grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask. The input's gradient and the weight's each
// cost what the forward convolution does (the same multiply-adds, transposed); the bias's is a
// sum. Only those output_mask asks for are computed (none for the first layer's input).
double backward_convolution_flops(c10::ArrayRef<const c10::IValue> inputs) {
  const at::Tensor input = inputs[1].toTensor(), weight = inputs[2].toTensor();
  const bool transposed = inputs[7].isBool() && inputs[7].toBool();
  const double once = convolution_flops(input, weight, inputs[4], inputs[5], inputs[6], transposed);
  if (inputs.size() < 11 || !inputs[10].isBoolList()) return 2.0 * once;
  const auto mask = inputs[10].toBoolList();
  double gradients = 0.0;
  for (std::size_t i = 0; i < 2 && i < mask.size(); ++i) gradients += mask.get(i) ? 1.0 : 0.0;
  return gradients * once;
}

// The elements an element-wise update writes: its first input's (a tensor, or a list of them
// for the _foreach_ operators).
double elements(const c10::IValue& self) {
  if (self.isTensor()) return static_cast<double>(self.toTensor().numel());
  double n = 0.0;
  if (self.isTensorList())
    for (const at::Tensor& t : self.toTensorVector()) n += static_cast<double>(t.numel());
  return n;
}

// An optimiser's arithmetic per element of operator `name` ("aten::add_",
// "aten::_foreach_addcmul_"): 1 for add, sub, mul, div, sqrt; 2 for add and sub with a scale
// (alpha) and lerp; 3 for addcmul and addcdiv. 0 for an operator that computes nothing.
double update_flops_per_element(std::string name, c10::ArrayRef<const c10::IValue> inputs) {
  if (name.rfind("aten::", 0) == 0) name = name.substr(6);
  if (name.rfind("_foreach_", 0) == 0) name = name.substr(9);
  if (!name.empty() && name.back() == '_') name.pop_back();
  if (name == "addcmul" || name == "addcdiv") return 3.0;
  if (name == "lerp") return 2.0;
  if (name == "add" || name == "sub") {
    const bool scaled =
        inputs.size() > 2 && inputs[2].isScalar() && inputs[2].toScalar().toDouble() != 1.0;
    return scaled ? 2.0 : 1.0;
  }
  if (name == "mul" || name == "div" || name == "sqrt" || name == "rsqrt" || name == "neg" ||
      name == "reciprocal" || name == "maximum" || name == "sign")
    return 1.0;
  return 0.0;
}

// The bytes of the tensors (and lists of tensors) among `values`; whether one is on the CPU and
// whether one is on another device.
struct TensorBytes {
  double bytes = 0.0;
  bool host = false;
  bool device = false;
};
void add_tensor(const at::Tensor& t, TensorBytes& out) {
  if (!t.defined()) return;
  out.bytes += static_cast<double>(t.numel()) * static_cast<double>(t.element_size());
  (t.device().is_cpu() ? out.host : out.device) = true;
}
TensorBytes tensor_bytes(c10::ArrayRef<const c10::IValue> values) {
  TensorBytes out;
  for (const c10::IValue& v : values) {
    if (v.isTensor()) {
      add_tensor(v.toTensor(), out);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) add_tensor(t, out);
    }
  }
  return out;
}

// The recorder's state: one recorder at a time, its callback global. Never freed: an operator
// another thread started while the callback was installed may end after the recorder has gone.
struct Recording {
  std::mutex mutex;
  StepAnatomy anatomy;
  std::atomic<int> phase{static_cast<int>(Phase::kData)};
  std::atomic<bool> on{false};
  std::atomic<bool> installed{false};
  std::thread::id owner;
};
Recording& state() {
  static auto* const recording = new Recording();
  return *recording;
}
thread_local int depth = 0;  // FUNCTION-scope operators open on this thread

// What an operator's start hands its end.
struct Started : at::ObserverContext {
  Phase phase = Phase::kData;
  OperatorCost cost;
  TensorBytes inputs;
};

// An operator that picks part of its input (a row, a slice, the rows of an index) reads what it
// writes, not the whole input: a batch cut from a data set of 60,000 rows reads the batch's rows.
bool reads_what_it_writes(const char* name) {
  static const char* const picking[] = {
      "aten::select",     "aten::slice",     "aten::narrow",  "aten::index",  "aten::index_select",
      "aten::as_strided", "aten::view",      "aten::reshape", "aten::expand", "aten::alias",
      "aten::detach",     "aten::unsqueeze", "aten::squeeze", "aten::t",      "aten::transpose",
      "aten::permute",    "aten::take",      "aten::gather"};
  for (const char* op : picking)
    if (std::strcmp(name, op) == 0) return true;
  return false;
}

// The autograd engine's record of a node ("autograd::engine::evaluate_function: AddmmBackward0")
// is no operator: the operators it runs are, as the dispatcher sees them.
bool engine_wrapper(const char* name) { return std::strncmp(name, "autograd::engine::", 18) == 0; }

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (engine_wrapper(fn.name())) return nullptr;
  Recording& recording = state();
  if (depth++ > 0 || !recording.on) return nullptr;
  const auto phase = static_cast<Phase>(recording.phase.load());
  if (std::this_thread::get_id() != recording.owner && phase != Phase::kBackward) return nullptr;
  auto started = std::make_unique<Started>();
  started->phase = phase;
  try {
    started->cost = operator_cost(fn.name(), fn.inputs(), phase);
    started->inputs = tensor_bytes(fn.inputs());
  } catch (const std::exception&) {
    // An operator whose inputs do not read as expected counts as dispatched, with no cost.
  }
  return started;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext* context) {
  if (engine_wrapper(fn.name())) return;
  --depth;
  auto* started = static_cast<Started*>(context);
  if (started == nullptr) return;
  TensorBytes outputs;
  try {
    const auto& out = fn.outputs();
    outputs = tensor_bytes(c10::ArrayRef<const c10::IValue>(out.data(), out.size()));
  } catch (const std::exception&) {
  }
  Recording& recording = state();
  const std::lock_guard<std::mutex> lock(recording.mutex);
  const double bytes =
      reads_what_it_writes(fn.name()) ? 2.0 * outputs.bytes : started->inputs.bytes + outputs.bytes;
  recording.anatomy.add(started->phase, started->cost.flops, bytes, started->cost.math);
  // A copy from the host onto a device: its output is the copied batch.
  if (started->inputs.host && outputs.device && !started->inputs.device)
    recording.anatomy.h2d_bytes += outputs.bytes;
}

}  // namespace

OperatorCost operator_cost(const std::string& op, c10::ArrayRef<const c10::IValue> inputs,
                           Phase phase) {
  const auto tensor = [&](std::size_t i) {
    return i < inputs.size() && inputs[i].isTensor() ? inputs[i].toTensor() : at::Tensor();
  };
  const auto both = [&](std::size_t a, std::size_t b) {
    return tensor(a).defined() && tensor(b).defined();
  };
  if (op == "aten::addmm")
    return {both(1, 2) ? matmul_flops(tensor(1), tensor(2)) : 0.0, Math::kMatmul};
  if (op == "aten::linear") {  // weight [n, k]: input [..., k] x weight^T
    return {both(0, 1) ? 2.0 * static_cast<double>(tensor(0).numel()) *
                             static_cast<double>(tensor(1).size(0))
                       : 0.0,
            Math::kMatmul};
  }
  if (op == "aten::convolution" || op == "aten::_convolution" || op == "aten::conv1d" ||
      op == "aten::conv2d" || op == "aten::conv3d") {
    return {both(0, 1) && inputs.size() >= 6 ? forward_convolution_flops(inputs) : 0.0,
            Math::kConvolution};
  }
  if (op == "aten::convolution_backward") {
    return {both(1, 2) && inputs.size() >= 8 ? backward_convolution_flops(inputs) : 0.0,
            Math::kConvolution};
  }
  if (op == "aten::mm" || op == "aten::bmm" || op == "aten::matmul")
    return {both(0, 1) ? matmul_flops(tensor(0), tensor(1)) : 0.0, Math::kMatmul};
  if (phase == Phase::kOptimizer && !inputs.empty()) {
    const double per_element = update_flops_per_element(op, inputs);
    if (per_element > 0.0) return {per_element * elements(inputs[0]), Math::kElementwise};
  }
  return {};
}

double operator_flops(const std::string& op, c10::ArrayRef<const c10::IValue> inputs) {
  return operator_cost(op, inputs, Phase::kForward).flops;
}

OperatorRecorder::OperatorRecorder() {
  Recording& recording = state();
  if (recording.installed.exchange(true)) throw std::logic_error("one OperatorRecorder at a time");
  {
    const std::lock_guard<std::mutex> lock(recording.mutex);
    recording.anatomy = StepAnatomy{};
  }
  recording.on = false;
  recording.phase = static_cast<int>(Phase::kData);
  recording.owner = std::this_thread::get_id();
  handle_ = at::addGlobalCallback(at::RecordFunctionCallback(on_start, on_end)
                                      .needsInputs(true)
                                      .needsOutputs(true)
                                      .scopes({at::RecordScope::FUNCTION}));
}

OperatorRecorder::~OperatorRecorder() {
  state().on = false;
  at::removeCallback(handle_);
  state().installed = false;
}

void OperatorRecorder::set_phase(Phase phase) { state().phase = static_cast<int>(phase); }

void OperatorRecorder::enable(bool on) { state().on = on; }

StepAnatomy OperatorRecorder::anatomy() const {
  Recording& recording = state();
  const std::lock_guard<std::mutex> lock(recording.mutex);
  return recording.anatomy;
}

}  // namespace crossover
