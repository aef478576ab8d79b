#include "runner/cli/terminal.hpp"

#include <spdlog/details/log_msg_buffer.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <streambuf>

#include "core/text/text.hpp"

namespace crossover {
namespace {

// std::cout's buffer behind terminal_text, the one filter of text for a terminal or a CI log:
// control characters dropped, invalid UTF-8 shown as "?", and a line that would open with "::" —
// a CI runner's workflow command (GitHub Actions' "::error", "::add-mask::") a name from a run's
// files could smuggle in — opened with a space. Text is passed on a line at a time; a flush
// passes on what is held but for a UTF-8 character or a "::" not yet whole.
class PrintableBuffer : public std::streambuf {
 public:
  explicit PrintableBuffer(std::streambuf* out) : out_(out) {}

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    const char byte = static_cast<char>(c);
    return xsputn(&byte, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) {
      held_ += s[i];
      const bool pass = s[i] == '\n' || held_.size() >= kMostHeld;
      if (pass && !pass_on(s[i] == '\n' ? held_.size() : whole_part())) return i;
    }
    return n;
  }
  int sync() override {
    if (!pass_on(whole_part())) return -1;
    return out_->pubsync();
  }

 private:
  static constexpr std::size_t kMostHeld = 1 << 16;

  // How much of what is held can be passed on now: not a last UTF-8 character still missing
  // bytes, nor a lone ':' opening a line (its second ':' may follow).
  std::size_t whole_part() const {
    if (line_start_ && held_ == ":") return 0;
    for (std::size_t k = 1; k <= 3 && k <= held_.size(); ++k) {
      const auto lead = static_cast<unsigned char>(held_[held_.size() - k]);
      if (lead < 0xC0) continue;
      const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
      return length > k ? held_.size() - k : held_.size();
    }
    return held_.size();
  }

  bool pass_on(std::size_t count) {
    if (count == 0) return true;
    const std::string part = held_.substr(0, count);
    held_.erase(0, count);
    // Mid-line, the part does not open a line: an ASCII letter before it keeps terminal_text
    // from taking its "::" for a line's.
    const std::string text =
        line_start_ ? terminal_text(part) : terminal_text("x" + part).substr(1);
    line_start_ = part.back() == '\n';
    return out_->sputn(text.data(), static_cast<std::streamsize>(text.size())) ==
           static_cast<std::streamsize>(text.size());
  }

  std::streambuf* out_;
  std::string held_;
  bool line_start_ = true;
};

// A sink that hands each message, made printable, to the colour sink on standard error.
class PrintableSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  PrintableSink() : inner_(std::make_shared<spdlog::sinks::stderr_color_sink_mt>()) {
    inner_->set_pattern("%^%l%$: %v");
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& message) override {
    // What was written to standard output before this message goes out first, whole: with
    // 2>&1 or both streams on one pipe, a warning never lands inside a line of the summary.
    std::cout.flush();
    const std::string text =
        terminal_text(std::string(message.payload.data(), message.payload.size()));
    spdlog::details::log_msg copy = message;
    copy.payload = text;
    inner_->log(copy);
  }
  void flush_() override { inner_->flush(); }

 private:
  std::shared_ptr<spdlog::sinks::sink> inner_;
};

// Every message, kept whole (its text copied) until it is said or dropped.
class HoldingSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<spdlog::details::log_msg_buffer> held;

 protected:
  void sink_it_(const spdlog::details::log_msg& message) override { held.emplace_back(message); }
  void flush_() override {}
};

}  // namespace

void keep_standard_output_printable() {
  // Never destroyed: std::cout is flushed at exit, after the function-local statics are gone.
  static auto* const buffer = new PrintableBuffer(std::cout.rdbuf());
  std::cout.rdbuf(buffer);
}

std::size_t output_columns() {
  constexpr std::size_t kPiped = 100, kNarrowest = 40;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    const unsigned long value = std::strtoul(columns, &end, 10);
    if (*end == '\0' && *columns != '-' && value < 100000)
      return value == 0 ? 0 : std::max<std::size_t>(value, kNarrowest);
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return std::max<std::size_t>(size.ws_col, kNarrowest);
  return kPiped;
}

std::shared_ptr<spdlog::logger> printable_logger(const std::string& name) {
  auto logger = std::make_shared<spdlog::logger>(name, std::make_shared<PrintableSink>());
  spdlog::register_logger(logger);
  return logger;
}

namespace {
HeldLog* innermost_held_log = nullptr;
}  // namespace

HeldLog::HeldLog()
    : sinks_(spdlog::default_logger()->sinks()),
      held_(std::make_shared<HoldingSink>()),
      outer_(innermost_held_log) {
  spdlog::default_logger()->sinks() = {held_};
  innermost_held_log = this;
}

HeldLog::~HeldLog() {
  innermost_held_log = outer_;
  spdlog::default_logger()->sinks() = sinks_;
  if (dropped_) return;
  for (const auto& message : static_cast<HoldingSink&>(*held_).held)
    for (const auto& sink : sinks_)
      if (sink->should_log(message.level)) sink->log(message);
}

void HeldLog::drop_held() {
  if (innermost_held_log != nullptr) innermost_held_log->dropped_ = true;
}

}  // namespace crossover
