#pragma once
// The typed parts of a cell's result (core/records/results.hpp): the energy its timed epochs took
// and the clocks they ran at, its step's anatomy, and the cost model's account of that step. Each
// part's fields are a list, X(P, type, name, unit), that results.hpp splices into the result's one
// list under the part's name (P: `energy.`, `anatomy.`, `prediction.`), so that results.jsonl keeps
// its flat names and a part is copied, passed and read as one value. A member has its results.jsonl
// name, so a search for a column finds every use; a field the part holds in a type of its own (the
// prediction's terms, the cost model's StepTerms) is X_AT(P, type, name, member, unit), its member
// a path beside its name.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/cells/modes.hpp"
#include "core/costmodel/cost_model.hpp"
#include "core/costmodel/step_anatomy.hpp"
#include "core/records/energy_source.hpp"

namespace crossover {

/// A part's members from its list: X(P, type, name, unit) declares `type name{};`. A field held
/// at a path (X_AT) is declared by its part, as the type the path is in.
#define CROSSOVER_DECLARE_PART_FIELD(P, type, name, unit) type name{};
#define CROSSOVER_DECLARE_PART_FIELD_AT(P, type, name, member, unit)

/// The energy the timed epochs took and the clocks they ran at (runner/hardware/energy).
#define CROSSOVER_ENERGY_FIELDS(X, P)                                                             \
  X(P, EnergySource, energy_source, kNone) /* rapl, nvml, nvml-power or unavailable */            \
  X(P, std::string, energy_note, kNone)    /* why unavailable, or what else the counter covers */ \
  X(P, double, joules_per_epoch, kJoules)  /* mean_watts * epoch_seconds; 0 when unavailable */   \
  X(P, double, mean_watts, kWatts)         /* energy / time over the timed epochs */              \
  X(P, bool, throttled, kNone) /* the SM clock fell below 75 % of its maximum, or throttled */    \
  X(P, std::string, throttle_reasons, kNone) /* NVML's, seen */                                   \
  X(P, double, sm_clock_min_mhz, kMegahertz) /* GPU: timed epochs' lowest */                      \
  X(P, double, sm_clock_max_mhz, kMegahertz) /* GPU: its maximum */                               \
  X(P, double, cpu_mhz_start, kMegahertz)    /* the CPU's clock before, after */                  \
  X(P, double, cpu_mhz_end, kMegahertz)

struct Energy {
  CROSSOVER_ENERGY_FIELDS(CROSSOVER_DECLARE_PART_FIELD, )
  /// Whether the cell's energy was measured: a source that read something, and a power.
  bool measured() const { return energy_source != EnergySource::kUnavailable && mean_watts > 0.0; }
};

/// What a counted cell's timed epochs executed (the `count` key; runner/hardware/counter): the
/// counter, the instruction set it saw, and per epoch the instructions and, with Callgrind's cache
/// simulation, the estimated cycles (L1 hits + 5 x LL hits + 35 x memory accesses, as iai-callgrind
/// estimates them); each with its median, its spread over the epochs ((max - min) / median) and
/// every epoch's count. Empty (counter "") for a cell that was not counted.
#define CROSSOVER_COUNT_FIELDS(X, P)                                                             \
  X(P, std::string, counter, kNone)         /* "callgrind" or "perf"; "" when not counted */     \
  X(P, std::string, counter_version, kNone) /* "valgrind-3.19.0", "linux perf_event" */          \
  X(P, std::string, counted_isa, kNone)     /* the vector instructions the code could use */     \
  X(P, double, instructions_per_epoch, kInstructions) /* median over the timed epochs */         \
  X(P, double, instructions_per_step, kInstructions)  /* per epoch / steps_per_epoch */          \
  X(P, double, instructions_spread, kFraction)        /* (max - min) / median over the epochs */ \
  X(P, std::vector<double>, instructions_samples, kCountSamples) /* every timed epoch's */       \
  X(P, double, estimated_cycles_per_epoch, kInstructions)        /* count "cycles" alone */      \
  X(P, double, estimated_cycles_per_step, kInstructions)                                         \
  X(P, double, estimated_cycles_spread, kFraction)                                               \
  X(P, std::vector<double>, estimated_cycles_samples, kCountSamples)

struct Counts {
  CROSSOVER_COUNT_FIELDS(CROSSOVER_DECLARE_PART_FIELD, )
  /// Whether the cell's timed epochs were counted.
  bool counted() const { return !counter.empty() && !instructions_samples.empty(); }
  /// Every counted epoch's instructions (and estimated cycles, or none) with the statistics of
  /// each: median, per step (`steps_per_epoch`), spread. The one place the executor and the merge
  /// of a cell's processes compute them.
  void set_samples(std::vector<double> instructions, std::vector<double> cycles,
                   double steps_per_epoch);
};

/// The step's anatomy as a result records it: one probed step after the timed epochs
/// (runner/execution/anatomy; core/costmodel/step_anatomy.hpp).
#define CROSSOVER_ANATOMY_FIELDS(X, P)                                                             \
  X(P, std::int64_t, step_ops_data, kCount) /* operators dispatched in the data and copy phases */ \
  X(P, std::int64_t, step_ops_forward, kCount)   /* in the forward pass and the loss */            \
  X(P, std::int64_t, step_ops_backward, kCount)  /* in the backward pass */                        \
  X(P, std::int64_t, step_ops_optimizer, kCount) /* in the optimiser's update */                   \
  X(P, double, step_flops, kFlops) /* matrix products, convolutions, optimiser updates, a step */  \
  X(P, std::int64_t, step_flops_rule, kCount) /* how they were counted: kFlopsRule, 0 before */    \
  X(P, double, step_bytes, kBytes)     /* tensors read and written by the operators, per step */   \
  X(P, double, step_h2d_bytes, kBytes) /* copied from the host to the device, per step */          \
  X(P, double, step_loader_seconds, kSeconds) /* the probed step's data wait */                    \
  X(P, double, step_loader_share, kFraction)  /* that wait's share of the probed step */           \
  X(P, double, step_batch_seconds, kSeconds)  /* a batch, none ready ahead */                      \
  X(P, double, anatomy_seconds, kSeconds) /* what probing the step cost (not in timed epochs) */   \
  X(P, std::vector<std::vector<double>>, step_op_groups, kOpGroups)

struct Anatomy {
  CROSSOVER_ANATOMY_FIELDS(CROSSOVER_DECLARE_PART_FIELD, )

  /// The record of a probed step `step` that took `seconds` to probe (anatomy_seconds).
  static Anatomy of(const StepAnatomy& step, double seconds);
  /// The step as the cost model reads it; empty for a result without one. Throws
  /// std::runtime_error for op groups that are not [phase, count, FLOPs, bytes] rows.
  StepAnatomy step() const;
  /// Whether there is a step to predict from: its operators grouped (a result recorded before
  /// the groups were kept has only the counts).
  bool empty() const { return step_op_groups.empty(); }
  /// Whether its FLOPs were counted by the rule of today (kFlopsRule): an older anatomy misses
  /// the backward convolutions.
  bool current() const { return !empty() && step_flops_rule >= kFlopsRule; }
  /// Operators dispatched in the whole step.
  std::int64_t ops() const {
    return step_ops_data + step_ops_forward + step_ops_backward + step_ops_optimizer;
  }
};

/// The cost model's account of the step (core/costmodel/cost_model.hpp), from a machine profile:
/// its terms at the cost model's StepTerms (X_AT; token pasting names each consumer's X_AT).
// clang-format off
#define CROSSOVER_PREDICTION_FIELDS(X, P)                                                      \
  X(P, Bound, bound, kNone) /* the cost model's largest term */                                \
  X(P, double, predicted_step_seconds, kSeconds)                                               \
  X(P, double, predicted_epoch_seconds, kSeconds)                                              \
  X##_AT(P, double, predicted_dispatch_seconds, terms.dispatch, kSeconds) /* the step's terms */ \
  X##_AT(P, double, predicted_compute_seconds, terms.compute, kSeconds)                        \
  X##_AT(P, double, predicted_memory_seconds, terms.memory, kSeconds)                          \
  X##_AT(P, double, predicted_transfer_seconds, terms.transfer, kSeconds)                      \
  X##_AT(P, double, predicted_loader_seconds, terms.loader, kSeconds)                          \
  X(P, std::string, prediction_profile, kNone) /* the machine profile the prediction used */   \
  X(P, double, prediction_error, kFraction)    /* a predicted cell's band (0.3: 30 %) */
// clang-format on

struct Prediction {
  CROSSOVER_PREDICTION_FIELDS(CROSSOVER_DECLARE_PART_FIELD, )
  /// The predicted step's terms, as results.jsonl records them (predicted_dispatch_seconds, ...);
  /// the rest of the model's StepPrediction (what each term counted, what a GPU hides) is not
  /// recorded: step() gives the step as the reports read it.
  StepTerms terms;

  /// The model's step `predicted`: its terms, bound and step time, its epoch of `steps_per_epoch`
  /// on `device`, and the name of the profile; the band (prediction_error) is left as it is.
  void set(const StepPrediction& predicted, double steps_per_epoch, const DeviceProfile& device,
           const std::string& profile);
  /// The predicted step as the model gives it from what is recorded: its terms, with the operators
  /// the dispatch term counts (`ops`: the anatomy's) and the arithmetic the compute term is.
  StepPrediction step(double ops) const;
  /// The terms under results.jsonl's own names (`predicted_dispatch_seconds`, ...): the one JSON
  /// form of them, in summary.json's `bounds` and in `predict --check`'s cells.
  nlohmann::ordered_json terms_json() const;
};

}  // namespace crossover
