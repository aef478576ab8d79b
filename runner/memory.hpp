#pragma once
// Peak resident memory of this process, resettable per cell (Linux: /proc/self/clear_refs
// resets the high-water mark that /proc/self/status reports as VmHWM).

#include <cstdint>

namespace crossover {

/// Starts a new peak: afterwards peak_rss_bytes() reports the peak from now on. Returns false
/// where the kernel does not allow it (the peak then covers the whole process).
bool reset_peak_rss();

/// The peak resident set size in bytes, or 0 when it cannot be read.
std::int64_t peak_rss_bytes();

}  // namespace crossover
