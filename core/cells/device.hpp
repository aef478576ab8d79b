#pragma once
// The device a cell runs on, as a type: its kind and, on CUDA, the index the grid named. Its words
// ("cpu", "cuda", "cuda:N") are read and written here alone; code compares values.

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "core/cells/modes.hpp"

namespace crossover {

struct Device {
  DeviceKind kind = DeviceKind::kCpu;
  /// CUDA: the index the grid named ("cuda:1" is 1), -1 for "cuda" without one (the current
  /// device, 0). Always -1 on the CPU. "cuda" and "cuda:0" stay two values, as the grid wrote them.
  int index = -1;

  static Device cpu() { return {}; }
  static Device cuda(int index = -1) { return {DeviceKind::kCuda, index}; }

  bool is_cuda() const { return kind == DeviceKind::kCuda; }
  /// The CUDA device the cell uses: `index`, 0 for "cuda"; -1 on the CPU.
  int cuda_index() const { return is_cuda() ? (index < 0 ? 0 : index) : -1; }
  /// "cpu", "cuda" or "cuda:N", as grids and results.jsonl write it.
  std::string text() const;

  friend bool operator==(const Device& a, const Device& b) {
    return a.kind == b.kind && a.index == b.index;
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }
  /// The CPU first, then "cuda", then "cuda:0", "cuda:1", ... (a table's column order).
  friend bool operator<(const Device& a, const Device& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.index < b.index;
  }
};

/// The device a text names ("cpu", "cuda", "cuda:N", N of at most three digits); nothing for
/// any other text.
std::optional<Device> parse_device(std::string_view text);

/// The kind of a device's words, for a text read from a table's column ("cuda" for "cuda" and
/// "cuda:N", otherwise the CPU).
DeviceKind device_kind(std::string_view device);

inline std::ostream& operator<<(std::ostream& out, const Device& device) {
  return out << device.text();
}

// JSON: the words; a text that names no device throws std::runtime_error naming it.
template <typename J>
void to_json(J& j, const Device& device) {
  j = device.text();
}
template <typename J>
void from_json(const J& j, Device& device) {
  const auto found =
      j.is_string() ? parse_device(j.template get<std::string>()) : std::optional<Device>();
  if (!found)
    throw std::runtime_error("unknown device " + j.dump() +
                             "; expected \"cpu\", \"cuda\" or \"cuda:N\"");
  device = *found;
}

}  // namespace crossover
