#pragma once
// Peak resident memory of this process, resettable per cell (Linux: /proc/self/clear_refs
// resets the high-water mark that /proc/self/status reports as VmHWM), and the allocator's
// thresholds every crossover process fixes.

#include <cstdint>
#include <string>

namespace crossover {

/// Starts a new peak: afterwards peak_rss_bytes() reports the peak from now on. Returns false
/// where the kernel does not allow it (the peak then covers the whole process).
bool reset_peak_rss();

/// The peak resident set size in bytes, or 0 when it cannot be read.
std::int64_t peak_rss_bytes();

/// Fixes glibc malloc's thresholds for this process (mmap above 32 MiB, give memory back to the
/// kernel above 256 MiB free), as every crossover process does first. glibc's defaults move with
/// what the process freed before, so the same step measured 4-5x slower in a fresh process than
/// after another cell: fixed, the run's own process, a warm worker and a fresh one measure alike.
void fix_allocator_thresholds();

/// What fix_allocator_thresholds set, for env.json ("" when it could not).
std::string allocator_settings();

}  // namespace crossover
