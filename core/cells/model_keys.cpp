// The model keys: the generic `mlp` workload's input features, classes, hidden width and depth,
// so that a grid can sweep how much work one step does; and the `torchscript` workload's model
// file, one sample's shape and its task (classes or outputs). Every other workload's model is
// fixed by its seed: the keys are 0 or empty there, and setting one is a grid problem.
#include <string>
#include <vector>

#include "core/cells/key_builder.hpp"
#include "core/text/text.hpp"

namespace crossover::key_builder {
namespace {

bool uses(const Cell& c, const std::vector<std::string>& workloads) {
  for (const auto& w : workloads)
    if (c.workload == w) return true;
  return false;
}

std::string names(const std::vector<std::string>& workloads) {
  std::string text;
  for (const auto& w : workloads) text += (text.empty() ? "\"" : " and \"") + w + "\"";
  return text;
}

// "width sizes the workload "mlp" alone; iris_mlp's model is its seed's (crossover list)"
std::string not_here(const std::string& key, const Cell& c,
                     const std::vector<std::string>& workloads) {
  return key + " sizes the workload" + (workloads.size() > 1 ? "s " : " ") + names(workloads) +
         " alone; " + c.workload + "'s model is its seed's (crossover list)";
}

// The generic mlp's sizes: integer keys with a default for mlp and 0 elsewhere.
void declare_mlp_sizes(Keys& keys) {
  struct SizeKey {
    const char* name;
    int Cell::*field;
    int fallback;  ///< the mlp workload's default
    double min;
    bool numeric_axis;
    std::vector<std::string> workloads;
    const char* means;
    const char* why_min = "";  ///< why the least value is what it is, where it is not plain
  };
  const SizeKey size_keys[] = {
      {"features",
       &Cell::features,
       32,
       1,
       true,
       {kSizedMlpWorkload},
       "input features of the synthetic rows"},
      {"classes",
       &Cell::classes,
       10,
       2,
       false,
       {kSizedMlpWorkload, kUserModelWorkload},
       "classes of the synthetic samples (the output width; cross entropy, accuracy)",
       " (with one class there is nothing to learn: its cross entropy is always 0; for "
       "regression give \"outputs\")"},
      {"width", &Cell::width, 256, 1, true, {kSizedMlpWorkload}, "units in each hidden layer"},
      {"depth", &Cell::depth, 2, 0, true, {kSizedMlpWorkload}, "hidden layers (0: a linear model)"},
  };
  for (const SizeKey& k : size_keys) {
    const std::string name = k.name;
    const auto field = k.field;
    const int fallback = k.fallback;
    const std::vector<std::string> workloads = k.workloads;
    Declare key(name, kInteger, field);
    key.normalise([field, fallback](Cell& c) {
         if (c.workload == kSizedMlpWorkload && c.*field == 0) c.*field = fallback;
       })
        .problem([name, field, workloads](const Cell& c) -> Found {
          if (uses(c, workloads) || c.*field == 0) return std::nullopt;
          return Problem(not_here(name, c, workloads));
        })
        .range(k.min, 1e6)
        .added_later()
        .expects("a whole number from " + std::to_string(static_cast<int>(k.min)) + " to 1000000" +
                 k.why_min)
        .means("workload" + std::string(workloads.size() > 1 ? "s " : " ") + "`" +
               workloads.front() + (workloads.size() > 1 ? "` and `" + workloads.back() : "") +
               "`: " + k.means + "; 0 for every other workload")
        .defaults_to("`" + std::to_string(fallback) + "` for `mlp`");
    if (k.numeric_axis) key.numeric_axis();
    keys.push_back(key);
  }
}

// One sample of a user's model: dimensions and values at most.
constexpr std::size_t kMaxInputDims = 8;
constexpr double kMaxInputValues = 1e8;

// The torchscript workload: its file, one sample's shape, and regression outputs.
void declare_torchscript_keys(Keys& keys) {
  const std::vector<std::string> only = {kUserModelWorkload};
  keys.push_back(
      Declare("model", kText, &Cell::model)
          .pattern(".+")
          .problem([only](const Cell& c) -> Found {
            if (c.workload != kUserModelWorkload)
              return c.model.empty() ? Found() : Problem(not_here("model", c, only));
            if (c.model.empty())
              return Problem(
                  "workload \"torchscript\" needs \"model\": the file torch.jit.save wrote "
                  "(relative to the grid's folder)");
            for (const char ch : c.model) {
              if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
                return Problem(
                    "model holds a control character (byte " +
                    std::to_string(static_cast<unsigned char>(ch)) +
                    "), which no file name the tool opens may: give the file's plain path");
            }
            if (c.input_shape.empty())
              return Problem(
                  "workload \"torchscript\" needs \"input_shape\": one sample's shape, such as "
                  "[3, 224, 224] or [20]");
            if ((c.classes == 0) == (c.outputs == 0))
              return Problem(
                  "workload \"torchscript\" needs one of \"classes\" (integer labels, cross "
                  "entropy, accuracy) and \"outputs\" (regression targets, MSE, RMSE)");
            return std::nullopt;
          })
          .skip_when([](const Cell& c) -> Found {
            if (c.workload == kUserModelWorkload && c.parallel == Parallel::kDp)
              return Problem(
                  "parallel \"dp\" clones a C++ module onto each GPU, and a TorchScript model "
                  "is none; use parallel \"ddp\"");
            return std::nullopt;
          })
          .added_later()
          .expects("the path of a TorchScript file")
          .means("workload `torchscript`: the file `torch.jit.save` wrote, relative to the grid's "
                 "folder (results record it absolute)")
          .defaults_to("`\"\"`"));
  keys.push_back(Declare("input_shape", KeyKind::kShape, &Cell::input_shape)
                     .problem([only](const Cell& c) -> Found {
                       if (c.workload != kUserModelWorkload && !c.input_shape.empty())
                         return Problem(not_here("input_shape", c, only));
                       double values = 1.0;
                       for (const std::int64_t size : c.input_shape)
                         values *= static_cast<double>(size);
                       if (c.input_shape.size() > kMaxInputDims)
                         return Problem("input_shape has " + std::to_string(c.input_shape.size()) +
                                        " dimensions; at most " + std::to_string(kMaxInputDims) +
                                        " (one sample, without the batch)");
                       if (values > kMaxInputValues)
                         return Problem(
                             "input_shape holds " + format_number(values) +
                             " values per sample, over the limit of 100000000 (a batch of "
                             "them would not fit any memory)");
                       return std::nullopt;
                     })
                     .range(1, 1e6)
                     .added_later()
                     .expects("a list of whole numbers from 1 to 1000000, such as [3, 224, 224] "
                              "(at most 8 dimensions and 100000000 values per sample)")
                     .means("workload `torchscript`: one sample's shape, without the batch")
                     .defaults_to("`[]`"));
  keys.push_back(Declare("outputs", kInteger, &Cell::outputs)
                     .problem([only](const Cell& c) -> Found {
                       if (c.workload == kUserModelWorkload || c.outputs == 0) return std::nullopt;
                       return Problem(not_here("outputs", c, only));
                     })
                     .range(1, 1e6)
                     .added_later()
                     .expects("a positive whole number")
                     .means("workload `torchscript`: regression targets per sample (MSE, RMSE), "
                            "instead of `classes`")
                     .defaults_to("`0`"));
}

}  // namespace

void declare_model_keys(Keys& keys) {
  declare_mlp_sizes(keys);
  declare_torchscript_keys(keys);
}

}  // namespace crossover::key_builder
