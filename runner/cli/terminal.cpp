#include "runner/cli/terminal.hpp"

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

// std::cout's buffer behind a filter that drops control characters as they are written: C0 but
// tab and line feed, DEL, and C1 in UTF-8 (a 0xC2 is held until the byte after it is seen); and
// a line that would open with "::" — a CI runner's workflow command (GitHub Actions' "::error",
// "::add-mask::") a name from a run's files could smuggle in — opens with a space instead.
class PrintableBuffer : public std::streambuf {
 public:
  explicit PrintableBuffer(std::streambuf* out) : out_(out) {}

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    return put(static_cast<unsigned char>(c)) ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i)
      if (!put(static_cast<unsigned char>(s[i]))) return i;
    return n;
  }
  int sync() override {
    if (colon_ && out_->sputc(':') == traits_type::eof()) return -1;
    colon_ = false;
    if (held_ && out_->sputc(static_cast<char>(0xc2)) == traits_type::eof()) return -1;
    held_ = false;
    return out_->pubsync();
  }

 private:
  bool put(unsigned char c) {
    if (colon_) {  // a line opened with ':': a second one makes a workflow command
      colon_ = false;
      if (out_->sputn(c == ':' ? " :" : ":", c == ':' ? 2 : 1) <= 0) return false;
    } else if (line_start_ && c == ':') {
      colon_ = true;
      return true;
    }
    line_start_ = c == '\n';
    return printable(c);
  }

  bool printable(unsigned char c) {
    if (held_) {
      held_ = false;
      if (c >= 0x80 && c <= 0x9f) return true;  // a C1 control: both bytes dropped
      if (out_->sputc(static_cast<char>(0xc2)) == traits_type::eof()) return false;
    }
    if (c == 0xc2) {
      held_ = true;
      return true;
    }
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) return true;
    return out_->sputc(static_cast<char>(c)) != traits_type::eof();
  }

  std::streambuf* out_;
  bool held_ = false;
  bool line_start_ = true;
  bool colon_ = false;
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

}  // namespace crossover
