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

// Inputs 0-5 of conv1d/2d/3d, convolution and _convolution alike: input, weight, bias, stride,
// padding, dilation; convolution and _convolution have `transposed` at 6.
double convolution_flops(c10::ArrayRef<const c10::IValue> inputs) {
  const at::Tensor input = inputs[0].toTensor(), weight = inputs[1].toTensor();
  const auto list = [&](std::size_t which, std::size_t i, std::int64_t fallback) {
    if (!inputs[which].isIntList()) return fallback;
    const auto values = inputs[which].toIntVector();
    return values.empty() ? fallback : values[std::min(i, values.size() - 1)];
  };
  const bool transposed = inputs.size() > 6 && inputs[6].isBool() && inputs[6].toBool();
  // Each output position (each input position, transposed) meets the whole kernel of every
  // output channel: weight.numel() = out x in/groups x kernel multiply-adds.
  double positions = static_cast<double>(input.size(0));
  for (std::int64_t d = 2; d < input.dim(); ++d) {
    const auto i = static_cast<std::size_t>(d - 2);
    const std::int64_t k = weight.size(d), s = list(3, i, 1), p = list(4, i, 0),
                       dil = list(5, i, 1);
    positions *= static_cast<double>(
        transposed ? input.size(d) : (input.size(d) + 2 * p - dil * (k - 1) - 1) / s + 1);
  }
  return 2.0 * positions * static_cast<double>(weight.numel());
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
  double flops = 0.0;
  TensorBytes inputs;
};

// An operator that picks part of its input (a row, a slice, the rows of an index) reads what it
// writes, not the whole input: a batch cut from a data set of 60,000 rows reads the batch's rows.
bool reads_what_it_writes(const char* name) {
  static const char* const picking[] = {"aten::select",  "aten::slice",      "aten::narrow",
                                        "aten::index",   "aten::index_select", "aten::as_strided",
                                        "aten::view",    "aten::reshape",    "aten::expand",
                                        "aten::alias",   "aten::detach",     "aten::unsqueeze",
                                        "aten::squeeze", "aten::t",          "aten::transpose",
                                        "aten::permute", "aten::take",       "aten::gather"};
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
    started->flops = operator_flops(fn.name(), fn.inputs());
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
  const double bytes = reads_what_it_writes(fn.name()) ? 2.0 * outputs.bytes
                                                      : started->inputs.bytes + outputs.bytes;
  recording.anatomy.add(started->phase, started->flops, bytes);
  // A copy from the host onto a device: its output is the copied batch.
  if (started->inputs.host && outputs.device && !started->inputs.device)
    recording.anatomy.h2d_bytes += outputs.bytes;
}

}  // namespace

double operator_flops(const std::string& op, c10::ArrayRef<const c10::IValue> inputs) {
  const auto tensor = [&](std::size_t i) {
    return i < inputs.size() && inputs[i].isTensor() ? inputs[i].toTensor() : at::Tensor();
  };
  if (op == "aten::addmm") {
    return tensor(1).defined() && tensor(2).defined() ? matmul_flops(tensor(1), tensor(2)) : 0.0;
  }
  if (op == "aten::linear") {  // weight [n, k]: input [..., k] x weight^T
    return tensor(0).defined() && tensor(1).defined()
               ? 2.0 * static_cast<double>(tensor(0).numel()) *
                     static_cast<double>(tensor(1).size(0))
               : 0.0;
  }
  if (op == "aten::convolution" || op == "aten::_convolution" || op == "aten::conv1d" ||
      op == "aten::conv2d" || op == "aten::conv3d") {
    return tensor(0).defined() && tensor(1).defined() && inputs.size() >= 6
               ? convolution_flops(inputs)
               : 0.0;
  }
  if (op == "aten::mm" || op == "aten::bmm" || op == "aten::matmul") {
    return tensor(0).defined() && tensor(1).defined() ? matmul_flops(tensor(0), tensor(1)) : 0.0;
  }
  return 0.0;
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
