#pragma once
// Logging for code that includes LibTorch. spdlog cannot be included there: LibTorch 2.x ships
// its own fmt in its include folder, and Debian's spdlog does not compile against it. These go to
// the same spdlog logger as the command line's messages, at the level it set.

#include <string>

namespace crossover {

/// Logs one line at warning level.
void log_warning(const std::string& message);

/// Logs one line at error level.
void log_error(const std::string& message);

}  // namespace crossover
