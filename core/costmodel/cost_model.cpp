#include "core/costmodel/cost_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/text/text.hpp"

namespace crossover {
namespace {

// "1.4 GFLOP", "12 MFLOP", "3.2 kFLOP".
std::string flop_text(double flops) {
  const char* units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP"};
  int u = 0;
  while (flops >= 1000.0 && u < 4) {
    flops /= 1000.0;
    ++u;
  }
  return format_number(flops) + " " + units[u];
}

// "12 MB", "640 kB", "96 B".
std::string byte_text(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 4) {
    bytes /= 1000.0;
    ++u;
  }
  return format_number(bytes) + " " + units[u];
}

}  // namespace

Bound StepPrediction::bound() const {
  if (loader_exposed) return Bound::kLoader;
  const std::array<std::pair<double, Bound>, 5> terms = {{{dispatch, Bound::kDispatch},
                                                          {compute, Bound::kCompute},
                                                          {memory, Bound::kMemory},
                                                          {transfer, Bound::kTransfer},
                                                          {loader, Bound::kLoader}}};
  const auto largest = std::max_element(
      terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return largest->first > 0.0 ? largest->second : Bound::kNone;
}

namespace {

// One operator of a batch made on the host: its fixed cost there (no autograd), or its bytes.
double host_op_seconds(const OpGroup& g, const DeviceProfile& host) {
  const double fixed = host.batch_op_seconds > 0.0 ? host.batch_op_seconds : host.dispatch_seconds;
  const double memory =
      host.memory_bytes_per_second > 0.0 ? g.bytes / host.memory_bytes_per_second : 0.0;
  return std::max(fixed, memory);
}

// A CPU runs each operator in turn: the larger of its fixed cost, its FLOPs and its bytes.
void add_synchronous(StepPrediction& p, const OpGroup& g, const DeviceProfile& device,
                     double compute, double memory) {
  const double fixed = device.dispatch_seconds;
  if (fixed >= compute && fixed >= memory) {
    p.dispatch += g.count * fixed;
    p.dispatched_ops += g.count;
  } else if (compute >= memory) {
    p.compute += g.count * compute;
  } else {
    p.memory += g.count * memory;
  }
}

// A GPU: the host pays each operator's dispatch (none in a graph replay); the device runs its
// kernel, no shorter than the profile's cost of a kernel run back to back.
void add_queued(StepPrediction& p, const OpGroup& g, const DeviceProfile& device,
                const StepContext& context, double compute, double memory) {
  if (!context.graph) {
    p.dispatch += g.count * device.dispatch_seconds;
    p.dispatched_ops += g.count;
  }
  const double kernel = std::max({device.graph_op_seconds, compute, memory});
  (compute >= memory ? p.compute : p.memory) += g.count * kernel;
}

}  // namespace

StepPrediction predict_step(const StepAnatomy& anatomy, const DeviceProfile& device,
                            const StepContext& context) {
  StepPrediction p;
  for (const OpGroup& g : anatomy.groups) {
    // A batch made on the host is the host CPU's operators; one cut on the device, the device's.
    if (g.phase == Phase::kData && !context.batch_on_device) {
      if (context.host != nullptr) p.batch += g.count * host_op_seconds(g, *context.host);
      continue;
    }
    // An element-wise update's FLOPs are counted, but its bytes bound it.
    const double rate =
        g.flops > 0.0 && g.math != Math::kElementwise
            ? device.flops_per_second_at(g.flops, math_top_rate(g.math, device, context))
            : 0.0;
    const double compute = rate > 0.0 ? g.flops / rate : 0.0;
    // A CPU step's tensors are allocated afresh; a GPU's caching allocator reuses its blocks.
    const double bandwidth = !context.cuda && device.fresh_memory_bytes_per_second > 0.0
                                 ? device.fresh_memory_bytes_per_second
                                 : device.memory_bytes_per_second;
    const double memory = bandwidth > 0.0 ? g.bytes / bandwidth : 0.0;
    p.arithmetic += g.count * compute;
    p.traffic += g.count * memory;
    if (context.cuda)
      add_queued(p, g, device, context, compute, memory);
    else
      add_synchronous(p, g, device, compute, memory);
  }
  if (context.graph) {
    p.dispatch += device.dispatch_seconds;  // the replay itself
    p.dispatched_ops += 1.0;
  }
  if (context.cuda && anatomy.h2d_bytes > 0.0) {
    const double rate =
        context.pinned ? device.h2d_pinned_bytes_per_second : device.h2d_pageable_bytes_per_second;
    if (rate > 0.0) p.transfer = anatomy.h2d_bytes / rate;
  }
  // The training thread makes its own batch, before it dispatches the step.
  if (context.loader_workers == 0) p.loader = p.batch;
  if (context.cuda) {
    // The device's queue: the shorter side runs beside the longer.
    const double host = p.dispatch + p.loader, gpu = p.compute + p.memory + p.transfer;
    p.hidden = std::min(host, gpu);
  }
  if (context.loader_workers > 0 && context.cores_busy) {
    // The step's intra-op threads hold every core: the workers' batches take their time from it.
    p.loader = p.batch;
  } else if (context.loader_workers > 0) {
    // Workers make the next batches while the step runs: the step takes the longer of the two.
    const double per_step = p.batch / context.loader_workers;
    const double rest = p.step();
    p.loader_exposed = per_step > rest;
    p.loader = std::max(per_step - rest, 0.0);
  }
  return p;
}

double predict_epoch(const StepPrediction& step, double steps, const DeviceProfile& device) {
  return steps * step.step() + device.sync_seconds;
}

double math_top_rate(Math math, const DeviceProfile& device, const StepContext& context) {
  if (!context.cuda) return 0.0;
  const bool bf16 = context.precision == Precision::kBf16;
  if (math == Math::kConvolution) {
    // cuDNN: BF16 under autocast, else TF32 where the card has it, else FP32.
    for (const double rate :
         {bf16 ? device.convolution_bf16_flops_per_second : 0.0,
          device.convolution_tf32_flops_per_second, device.convolution_fp32_flops_per_second})
      if (rate > 0.0) return rate;
  }
  if (math != Math::kMatmul && math != Math::kConvolution) return 0.0;
  if (bf16 && device.bf16_flops_per_second > 0.0) return device.bf16_flops_per_second;
  const bool tf32 = math == Math::kConvolution || context.precision == Precision::kTf32;
  return tf32 ? device.tf32_flops_per_second : 0.0;
}

StepContext context_of(const Cell& cell, const MachineProfile& profile) {
  StepContext c = context_of(cell);
  c.host = &profile.cpu(cell.threads);
  return c;
}

StepContext context_of(const Cell& cell) {
  StepContext c;
  c.cuda = cell.device.is_cuda();
  c.pinned = cell.pin_memory;
  c.graph = cell.execution == Execution::kGraph;
  c.batch_on_device =
      cell.loader == Loader::kTensor && (!c.cuda || cell.data_placement == Placement::kDevice);
  c.loader_workers = cell.loader == Loader::kDataLoader ? std::max(cell.num_workers, 0) : 0;
  c.cores_busy = !c.cuda && cell.threads != 1;
  c.precision = cell.precision;
  return c;
}

const DeviceProfile* device_of(const MachineProfile& profile, const Cell& cell) {
  if (cell.device.is_cuda()) return profile.cuda ? &*profile.cuda : nullptr;
  return &profile.cpu(cell.threads);
}

double band_factor(double error) { return error > 0.0 && error < 1e6 ? 1.0 + error : 1.0; }

std::string predicted_interval_text(double seconds, double error) {
  const double factor = band_factor(error);
  if (factor == 1.0) return format_seconds(seconds) + ", predicted (no validated band)";
  return format_seconds(seconds / factor) + "-" + format_seconds(seconds * factor) +
         ", predicted, " + std::to_string(static_cast<int>(std::lround(100.0 * kBandCoverage))) +
         " %";
}

std::string bound_text(const StepPrediction& p, const StepAnatomy& anatomy) {
  switch (p.bound()) {
    case Bound::kDispatch:
      // The arithmetic beside it, where it is worth a word (not "against 0 us").
      return "dispatch-bound (" + format_number(p.dispatched_ops) + " operators x " +
             format_seconds(p.dispatch / std::max(p.dispatched_ops, 1.0)) + " ~ " +
             format_seconds(p.dispatch) +
             (p.arithmetic >= 0.01 * p.dispatch
                  ? ", against " + format_seconds(p.arithmetic) + " of arithmetic)"
                  : ")");
    case Bound::kCompute:
      return "compute-bound (" + flop_text(anatomy.flops()) + " ~ " + format_seconds(p.compute) +
             ")";
    case Bound::kMemory:
      return "memory-bound (" + byte_text(anatomy.bytes()) + " read and written ~ " +
             format_seconds(p.memory) + ")";
    case Bound::kTransfer:
      return "transfer-bound (" + byte_text(anatomy.h2d_bytes) + " copied from the host ~ " +
             format_seconds(p.transfer) + ")";
    case Bound::kLoader:
      return p.loader_exposed
                 ? "loader-bound (the workers make a batch " + format_seconds(p.loader) +
                       " slower than the step uses it)"
                 : "loader-bound (" + format_seconds(p.loader) + " waiting for each batch)";
    case Bound::kNone:
      break;
  }
  return "not predicted";
}

}  // namespace crossover
