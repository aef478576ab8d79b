#pragma once
// What reaches the terminal is text, never a command to it: labels, reasons, file names and the
// fields of a user's files are printed through filters that drop control characters (an escape
// sequence in a results file must not clear a screen or retitle a window).

#include <spdlog/logger.h>

#include <memory>
#include <vector>

namespace crossover {

/// Puts terminal_text between std::cout and its buffer for the rest of the process: controls
/// dropped, invalid UTF-8 shown as "?", no line opening with "::". Write errors still reach
/// std::cout's state.
void keep_standard_output_printable();

/// How wide the sentences on standard output are wrapped (wrap_prose): COLUMNS where it holds a
/// number (0: never wrapped, one sentence a line for grep), else the terminal's width, else 100
/// where standard output is a pipe or a file. At least 40.
std::size_t output_columns();

/// The command line's logger on standard error ("error: ..." in colour where it is a terminal),
/// each message passed through printable_text.
std::shared_ptr<spdlog::logger> printable_logger(const std::string& name);

/// Holds what the default logger says from its making to its end, then gives the logger its
/// sinks back and says what it held, in order, as they would have said it (an exception's
/// unwinding included), unless drop_held() was called meanwhile. `crossover` checks a run under
/// one and hands the run on unsaid when it passes (runner/commands/run_checks.cpp).
class HeldLog {
 public:
  HeldLog();
  ~HeldLog();
  HeldLog(const HeldLog&) = delete;
  HeldLog& operator=(const HeldLog&) = delete;
  /// What the innermost HeldLog holds, and all it is given later, is never said.
  static void drop_held();

 private:
  std::vector<spdlog::sink_ptr> sinks_;
  std::shared_ptr<spdlog::sinks::sink> held_;
  HeldLog* outer_;
  bool dropped_ = false;
};

}  // namespace crossover
