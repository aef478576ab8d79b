#pragma once
// What is wrong with a `torchscript` cell's model, asked without LibTorch's headers: `validate` and
// `run` ask it in a child process (runner/grid/model_check.cpp), so a file that crashes LibTorch's
// loader costs no more than its message.

#include <string>

#include "core/cells/cell.hpp"
#include "core/text/problem.hpp"

namespace crossover {

/// Nothing when the cell's model loads, has trainable parameters, takes a batch of its
/// `input_shape` and returns [N, classes] or [N, outputs]; otherwise what is wrong, naming the file
/// and what to do. Loads the model in this process.
Found user_model_problem(const Cell& cell);

/// The line of a TorchScript interpreter's report that says what failed, the model's own message
/// kept ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x21 and 20x64)",
/// "builtins.ValueError: bad input", "Exception: the batch must be even"): its last line that
/// names an error or an exception, else its first line.
std::string script_error_summary(const std::string& text);

/// What write_example_model writes, in words.
inline constexpr const char* kExampleModelText =
    "a scripted MLP 20-64-64-4 (ReLU), input_shape [20], classes 4";

/// Writes a small TorchScript model to `path` (kExampleModelText), as torch.jit.script(model)
/// .save(path) would. Throws std::runtime_error when it cannot be written.
void write_example_model(const std::string& path);

}  // namespace crossover
