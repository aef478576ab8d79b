#include "core/cells/device.hpp"

#include <cctype>

namespace crossover {

std::string Device::text() const {
  if (!is_cuda()) return text_of(DeviceKind::kCpu);
  return index < 0 ? text_of(DeviceKind::kCuda)
                   : text_of(DeviceKind::kCuda) + ":" + std::to_string(index);
}

std::optional<Device> parse_device(std::string_view text) {
  if (const auto kind = parse_word<DeviceKind>(text)) return Device{*kind, -1};
  const std::string_view cuda = "cuda:";
  if (text.substr(0, cuda.size()) != cuda) return std::nullopt;
  const std::string_view digits = text.substr(cuda.size());
  if (digits.empty() || digits.size() > 3) return std::nullopt;
  int index = 0;
  for (const char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    index = index * 10 + (c - '0');
  }
  return Device::cuda(index);
}

DeviceKind device_kind(std::string_view device) {
  const std::string cuda = text_of(DeviceKind::kCuda);
  return device.substr(0, cuda.size()) == cuda ? DeviceKind::kCuda : DeviceKind::kCpu;
}

}  // namespace crossover
