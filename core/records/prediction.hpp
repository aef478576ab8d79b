#pragma once
// A cell's result as the cost model accounts for it (core/costmodel/cost_model.hpp): the model's
// terms in its prediction part (core/records/result_parts.hpp), its band, and the one function that
// makes a predicted result. No LibTorch.

#include <nlohmann/json.hpp>
#include <optional>

#include "core/costmodel/cost_model.hpp"
#include "core/records/results.hpp"
#include "core/text/problem.hpp"

namespace crossover {

/// The cost model's account of `result`'s step on the machine `target` describes, into its bound
/// and predicted_* fields; left as they are for a result without anatomy, or a CUDA cell and a
/// profile without a GPU. Nothing measured on the machine that took the anatomy enters the
/// prediction: only its operators, FLOPs and bytes.
void apply_prediction(Result& result, const MachineProfile& target);

/// `anatomised` (a result with its step's anatomy) as the machine `target` describes would run
/// it: apply_prediction's fields, its band in prediction_error, and its epoch, step and rates the
/// predicted ones; status, reason and the rest as they were. The one place a predicted result is
/// made (`run --predict`, `predict --check`). std::nullopt where the model has nothing to say (no
/// anatomy; a CUDA cell and a profile without a GPU).
std::optional<Result> predicted_result(const Result& anatomised, const MachineProfile& target);

/// Why the predicted result `predicted` cannot be shown: its epoch beyond the ceiling of a
/// result's own (a day; unit_ceiling), which only an anatomy no real step has (a file at its
/// fields' ceilings) gives.
Found predicted_past_ceiling(const Result& predicted);

/// A predicted result's band (its prediction_error): the factor - 1 of the profile's band for the
/// result's device kind and bound; 0 where the profile has none.
double band_error(const Result& result, const MachineProfile& target);

}  // namespace crossover
