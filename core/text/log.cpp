#include "core/text/log.hpp"

#include <spdlog/spdlog.h>

namespace crossover {

void log_warning(const std::string& message) { spdlog::warn("{}", message); }

void log_error(const std::string& message) { spdlog::error("{}", message); }

}  // namespace crossover
