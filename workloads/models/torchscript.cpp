#include "workloads/models/torchscript.hpp"

#include <ATen/record_function.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "core/files/user_files.hpp"
#include "workloads/anatomy/op_cost.hpp"

namespace crossover {
namespace {

constexpr std::uint64_t kMaxModelBytes = 64ULL << 30;  // a model file larger is no model to time

// "layer1.0.conv1.weight" -> "layer1_0_conv1_weight": the C++ frontend forbids dots in names.
std::string flat_name(std::string name) {
  for (char& c : name)
    if (c == '.') c = '_';
  return name;
}

// The names of a zip archive's entries, read from the central directory records in its last
// 4 MiB (where the directory is, for any model's handful of entries); empty when `path` is no zip
// archive. Enough to tell a scripted module from a state_dict without loading either.
std::vector<std::string> zip_entries(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  std::string head(4, '\0');
  in.seekg(0);
  if (size < 4 || !in.read(head.data(), 4) || head != std::string("PK\x03\x04", 4)) return {};
  const std::streamoff tail = std::min<std::streamoff>(size, 4 << 20);
  std::string bytes(static_cast<std::size_t>(tail), '\0');
  in.seekg(size - tail);
  in.read(bytes.data(), tail);
  std::vector<std::string> names;
  const std::string central("PK\x01\x02", 4);
  for (auto at = bytes.find(central); at != std::string::npos && at + 46 <= bytes.size();
       at = bytes.find(central, at + 4)) {
    const auto u16 = [&](std::size_t offset) {
      return static_cast<std::size_t>(static_cast<unsigned char>(bytes[at + offset])) |
             static_cast<std::size_t>(static_cast<unsigned char>(bytes[at + offset + 1])) << 8;
    };
    const std::size_t length = u16(28);
    if (at + 46 + length > bytes.size()) break;
    names.push_back(bytes.substr(at + 46, length));
  }
  return names;
}

bool has_entry(const std::vector<std::string>& names, const std::string& part) {
  for (const auto& name : names)
    if (name.find(part) != std::string::npos) return true;
  return false;
}

// What one forward pass runs, counted by an operator callback: only the outermost counted
// operator of a nest (linear calls addmm or matmul, convolution calls _convolution).
thread_local double counted_flops = 0.0;
thread_local int counting_depth = 0;

bool counted(const char* name) {
  const std::string op = name;
  return op == "aten::mm" || op == "aten::addmm" || op == "aten::bmm" || op == "aten::matmul" ||
         op == "aten::linear" || op == "aten::convolution" || op == "aten::_convolution" ||
         op == "aten::conv1d" || op == "aten::conv2d" || op == "aten::conv3d";
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (!counted(fn.name())) return nullptr;
  if (counting_depth++ > 0) return nullptr;
  counted_flops += operator_flops(fn.name(), fn.inputs());
  return nullptr;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext*) {
  if (counted(fn.name())) --counting_depth;
}

}  // namespace

ScriptedModelImpl::ScriptedModelImpl(torch::jit::Module module) : module_(std::move(module)) {
  bool trainable = false;
  for (const auto& p : module_.named_parameters(/*recurse=*/true)) {
    register_parameter(flat_name(p.name), p.value, p.value.requires_grad());
    trainable = trainable || p.value.requires_grad();
  }
  if (!trainable) {
    throw std::runtime_error(
        "the model has no trainable parameters (none with requires_grad): nothing to train; "
        "was it saved after torch.jit.freeze, or with its parameters frozen?");
  }
  for (const auto& b : module_.named_buffers(/*recurse=*/true))
    register_buffer(flat_name(b.name), b.value);
}

torch::Tensor ScriptedModelImpl::forward(torch::Tensor x) {
  const c10::IValue out = module_.forward({std::move(x)});
  TORCH_CHECK(out.isTensor(), "the model's forward returned ", out.tagKind(),
              ", not one tensor: crossover trains models whose forward returns the logits or "
              "predictions");
  return out.toTensor();
}

void ScriptedModelImpl::train(bool on) {
  torch::nn::Module::train(on);
  // Every nn.Module's script has `training`; a module made in C++ may not.
  if (module_.hasattr("training")) module_.train(on);
}

// The script moves its own tensors in place (set_data), so the registered ones, the same
// tensors, move with them.
void ScriptedModelImpl::to(torch::Device device, torch::Dtype dtype, bool non_blocking) {
  module_.to(device, dtype, non_blocking);
}
void ScriptedModelImpl::to(torch::Dtype dtype, bool non_blocking) {
  module_.to(dtype, non_blocking);
}
void ScriptedModelImpl::to(torch::Device device, bool non_blocking) {
  module_.to(device, non_blocking);
}

torch::jit::Module load_scripted_model(const std::string& path) {
  if (access(path.c_str(), R_OK) != 0)
    throw std::runtime_error("model file " + path +
                             " does not exist or cannot be read (`crossover example-model " + path +
                             "` writes a small one to try)");
  try {
    // A regular file: a FIFO or a device given as the model must not block or stream forever.
    check_regular_file(path, kMaxModelBytes, "the model file");
  } catch (const UserFileError& e) {
    throw std::runtime_error(e.what());
  }
  const std::vector<std::string> entries = zip_entries(path);
  if (entries.empty()) {
    throw std::runtime_error("model file " + path +
                             " is not a TorchScript archive (not a zip file); save the model "
                             "with torch.jit.script(model).save(path)");
  }
  if (!has_entry(entries, "/code/") && !has_entry(entries, "/constants.pkl") &&
      !has_entry(entries, "/data.pkl")) {
    throw std::runtime_error("model file " + path +
                             " is a zip archive, but neither a TorchScript module (no code/) nor "
                             "anything torch.save writes (no data.pkl); save the model with "
                             "torch.jit.script(model).save(path)");
  }
  if (!has_entry(entries, "/code/") && !has_entry(entries, "/constants.pkl")) {
    throw std::runtime_error(
        "model file " + path +
        " holds tensors saved with torch.save (a state_dict or a pickled module), not a "
        "TorchScript module; in Python, build the model, load the weights, then "
        "torch.jit.script(model).save(path) (or torch.jit.trace(model.train(), example).save)");
  }
  try {
    return torch::jit::load(path, torch::kCPU);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    if (what.find("version") != std::string::npos) {
      throw std::runtime_error("model file " + path +
                               " was written by a newer PyTorch than this LibTorch (" +
                               TORCH_VERSION +
                               ") reads: save it with a PyTorch of the same "
                               "release, or build crossover against a newer LibTorch (" +
                               what.substr(0, what.find('\n')) + ")");
    }
    throw std::runtime_error("model file " + path +
                             " could not be loaded: " + what.substr(0, what.find('\n')));
  }
}

double estimate_training_flops(torch::jit::Module& module,
                               const std::vector<std::int64_t>& input_shape) {
  std::vector<std::int64_t> shape = {1};
  shape.insert(shape.end(), input_shape.begin(), input_shape.end());
  const bool was_training = module.is_training();
  module.eval();
  counted_flops = 0.0;
  counting_depth = 0;
  const at::CallbackHandle handle =
      at::addThreadLocalCallback(at::RecordFunctionCallback(on_start, on_end).needsInputs(true));
  try {
    torch::NoGradGuard no_grad;
    module.forward({torch::zeros(shape)});
  } catch (...) {
    at::removeCallback(handle);
    module.train(was_training);
    throw;
  }
  at::removeCallback(handle);
  module.train(was_training);
  return 3.0 * counted_flops;
}

}  // namespace crossover
