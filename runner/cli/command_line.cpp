#include "runner/cli/command_line.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <regex>
#include <set>
#include <sstream>

#include "core/cells/keys.hpp"
#include "core/text/text.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/hardware/memory.hpp"
#include "runner/sweep/output_dir.hpp"
#include "runner/sweep/sweep_options.hpp"

namespace {

// Descriptors 0, 1 and 2 open before anything else: a process started with one closed would
// hand that number to the next file it opens, and log lines meant for stderr would land in
// results.jsonl.
void open_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null >= 0 && null != fd) {
      dup2(null, fd);
      close(null);
    }
  }
}

// The command the command line names, when it is none of `app`'s: "" otherwise.
std::string unknown_command(int argc, char** argv, const CLI::App& app) {
  const std::string name = crossover::named_command(argc, argv);
  for (const CLI::App* command : app.get_subcommands({})) {
    if (command->get_name() == name) return "";
  }
  return name;
}

// What crossover prints for a command line that names no command it has; exit code 2.
int refuse_unknown_command(const std::string& name, const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({})) names.push_back(command->get_name());
  std::string message = "unknown command \"" + crossover::printable_text(name) + "\"";
  const std::string guess = crossover::did_you_mean(name, names);
  if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
  std::cerr << message << "; the commands are " << crossover::join(names)
            << " (crossover --help says what each does)\n";
  return 2;
}

// For an option the command does not have (`run --outdir`): the one it most likely meant, by
// spelling or by a shared start ("--out"), or "" when none is near.
std::string suggest_option(const std::string& given, const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back(name);
  }
  const std::string word = given.substr(0, given.find('='));
  if (std::find(names.begin(), names.end(), word) != names.end()) return "";
  std::string guess = crossover::did_you_mean(word, names);
  for (const std::string& name : names) {
    if (guess.empty() && name.size() >= 3 && (word.rfind(name, 0) == 0 || name.rfind(word, 0) == 0))
      guess = name;
  }
  return guess;
}

// What crossover adds to CLI11's "not expected" for each --option the command lacks; the
// arguments it explained (an option and the value taken with it).
std::set<std::string> explain_unknown_options(int argc, char** argv, const CLI::App& app) {
  std::set<std::string> explained;
  for (const CLI::App* command : app.get_subcommands()) {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg.rfind("--", 0) != 0 || arg.size() <= 2) continue;
      if (app.get_option_no_throw(arg.substr(0, arg.find('='))) != nullptr) continue;  // global
      // A grid key given as an option ("--epochs 3"): run's --set changes it.
      const std::string key =
          arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
      if (command->get_option_no_throw("--set") != nullptr &&
          crossover::find_grid_key(key) != nullptr) {
        const std::string value = arg.find('=') != std::string::npos ? arg.substr(arg.find('=') + 1)
                                  : i + 1 < argc && argv[i + 1][0] != '-' ? argv[i + 1]
                                                                          : "VALUE";
        std::cerr << crossover::printable_text(arg) << ": crossover " << command->get_name()
                  << " has no such option; did you mean --set "
                  << crossover::printable_text(key + "=" + value) << "?\n";
        explained.insert(arg);
        if (arg.find('=') == std::string::npos && value != "VALUE") explained.insert(value);
        continue;
      }
      if (const std::string guess = suggest_option(arg.substr(2), *command); !guess.empty()) {
        std::cerr << crossover::printable_text(arg) << ": crossover " << command->get_name()
                  << " has no such option; did you mean --" << guess << "?\n";
        explained.insert(arg);
        // The value it would have taken ("--outdir x").
        const CLI::Option* meant = command->get_option_no_throw("--" + guess);
        if (meant != nullptr && meant->get_items_expected_min() > 0 &&
            arg.find('=') == std::string::npos && i + 1 < argc && argv[i + 1][0] != '-')
          explained.insert(argv[i + 1]);
      }
    }
  }
  return explained;
}

// Whether every argument CLI11's "The following arguments were not expected: 3 --epochs" lists
// was explained above: then its line only repeats them.
bool all_explained(const std::string& message, const std::set<std::string>& explained) {
  const std::size_t colon = message.find(": ");
  if (explained.empty() || colon == std::string::npos) return false;
  std::istringstream extras(message.substr(colon + 2));
  bool any = false;
  for (std::string extra; extras >> extra; any = true)
    if (explained.count(extra) == 0) return false;
  return any;
}

// One line of help folded at word boundaries to `width` columns: an option's or command's
// description goes on under itself (its column: after the name's run of spaces), a paragraph
// under its start.
std::string fold_help_line(const std::string& line, std::size_t width, std::size_t column) {
  if (line.size() <= width) return line;
  std::size_t indent = line.find_first_not_of(' ');
  if (indent == std::string::npos) return line;
  if (indent > 0) {  // "  --out TEXT      Where ..." goes on under "Where"; a name too long
                     // for its column ("  --into TEXT Needs: ... Where") under the column
    const std::size_t gap = line.find("  ", indent);
    const std::size_t text = gap == std::string::npos ? gap : line.find_first_not_of(' ', gap);
    indent = text != std::string::npos && text < width / 2 ? text : column;
  }
  std::string out, rest = line;
  while (rest.size() > width) {
    std::size_t cut = rest.rfind(' ', width);
    if (cut == std::string::npos || cut <= indent) cut = rest.find(' ', width);
    if (cut == std::string::npos) break;
    out += rest.substr(0, cut) + "\n";
    const std::size_t next = rest.find_first_not_of(' ', cut);
    rest = std::string(indent, ' ') + (next == std::string::npos ? "" : rest.substr(next));
  }
  return out + rest;
}

// CLI11's help, every line folded to 100 columns (one description was 604 wide).
class FoldingFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    std::istringstream lines(CLI::Formatter::make_help(app, std::move(name), mode));
    std::string out;
    for (std::string line; std::getline(lines, line);)
      out += fold_help_line(line, 100, get_column_width()) + "\n";
    return out;
  }
};

// Every number on a command line is read one way: decimal digits, as prices and grids are
// (CLI11 alone reads "0x10" as 16 and "010" as 8).
CLI::Validator decimal_number() {
  return CLI::Validator(
      [](std::string& value) {
        static const std::regex number("[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?");
        if (value == "inf" || value == "nan") return std::string();  // refused by finite_range
        if (!std::regex_match(value, number))
          return "'" + value + "' is not a decimal number; write it in digits (3, 0.05, 1e-3)";
        // Leading zeros are decimal too: "010" is ten, where CLI11 alone reads eight.
        const std::size_t sign = value.find_first_not_of("+-");
        std::size_t zeros = value.find_first_not_of('0', sign);
        if (zeros == std::string::npos) zeros = value.size();
        zeros -= sign;
        // One zero stays before a point, an exponent or the end ("0.5", "0e0", "0").
        const bool digit_next = sign + zeros < value.size() &&
                                std::isdigit(static_cast<unsigned char>(value[sign + zeros]));
        if (zeros > 0) value.erase(sign, digit_next ? zeros : zeros - 1);
        return std::string();
      },
      "");
}

// Every option that names a file or folder refuses an empty value: `--out ''` is a slip (an unset
// variable), never a request for the default; every number option reads decimal_number.
void check_option_texts(CLI::App& app) {
  static const std::set<std::string> paths = {"--out",  "--data-dir", "--resume", "--markdown",
                                              "--json", "--rerun",    "--order",  "--calibration",
                                              "--cell", "--into",     "--append"};
  const CLI::Validator non_empty(
      [](std::string& value) {
        return value.empty() ? std::string(
                                   "an empty path; give one, or leave the option out "
                                   "for its default")
                             : std::string();
      },
      "");
  for (CLI::App* command : app.get_subcommands({})) {
    for (CLI::Option* option : command->get_options()) {
      if (paths.count(option->get_name()) != 0) option->check(non_empty);
      const std::string type = option->get_type_name();
      if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0 || type.rfind("FLOAT", 0) == 0 ||
          type.rfind("NUMBER", 0) == 0)
        option->transform(decimal_number());  // first, and it may rewrite "010" as "10"
    }
  }
}

// Standard output is where a command's answer goes: if it could not be written (a full disk, a
// closed pipe), the command did not do its job, whatever it returned.
int check_standard_output(int code) {
  errno = 0;
  std::cout.flush();  // through stdio: the stream writes into stdout's buffer
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && std::cout.good() && !std::ferror(stdout)) return code;
  std::cerr << "crossover: cannot write to standard output ("
            << (error != 0 ? std::strerror(error) : "write error")
            << "); what the command printed is lost, its files are not\n";
  return code == 0 ? 1 : code;
}

// A command's error, said, as its exit code; called where it is caught, any other passes on.
// A CommandError says its own; a refused sweep was said where it was found, before anything ran;
// a path the command could not examine (a loop of links, a folder it may not read) is bad input,
// said with the path, never an abort; out of memory keeps what was measured (results are written
// cell by cell).
int said_exit_code(const std::exception& error) {
  if (const auto* command = dynamic_cast<const crossover::CommandError*>(&error)) {
    spdlog::error("{}", command->what());
    return command->exit_code();
  }
  if (dynamic_cast<const crossover::SweepRefused*>(&error) != nullptr)
    return crossover::kExitBadInput;
  if (dynamic_cast<const std::filesystem::filesystem_error*>(&error) != nullptr) {
    spdlog::error("{}; nothing more was done (what was written so far is kept)", error.what());
    return crossover::kExitBadInput;
  }
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) {
    spdlog::error(
        "out of memory: this machine cannot hold what the command was asked to do (a grid "
        "of too many cells, a file too large); the results written so far are kept");
    return crossover::kExitBadInput;
  }
  throw;  // the one being handled, not a command's: it passes on
}

// Runs the command given: its exit code, or its error's. The one place a command's errors become
// exit codes.
int run_one(const crossover::Command& command) {
  try {
    return check_standard_output(command.run());
  } catch (const std::exception& error) {
    return check_standard_output(said_exit_code(error));
  }
}

}  // namespace

namespace crossover {

std::string named_command(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') return argv[i];  // the global options are all flags
  }
  return "";
}

int run_command_line(int argc, char** argv, const std::vector<CommandDeclaration>& declared) {
  open_standard_descriptors();
  // A file-size limit (ulimit -f) then fails a write with EFBIG, which is reported, instead of
  // killing the process in the middle of one.
  signal(SIGXFSZ, SIG_IGN);
  // Before anything allocates: the same step in every process, whatever ran before it.
  fix_allocator_thresholds();

  CLI::App app{
      "crossover: measures when the GPU beats the CPU for training workloads, from a JSON grid."};
  app.formatter(std::make_shared<FoldingFormatter>());  // before the commands, which share it
  app.set_version_flag("--version", std::string("crossover ") + CROSSOVER_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // -v and -q work after the subcommand too
  bool verbose = false;
  bool quiet = false;
  bool brief = false;
  app.add_flag("-v,--verbose", verbose,
               "Say everything: each crossover statement with its \"why\" line, every note, and "
               "debug detail on stderr");
  app.add_flag("-b,--brief", brief, "Print only the verdict, one line per workload");
  app.add_flag("-q,--quiet", quiet, "Log only warnings and errors on stderr");

  std::vector<Command> commands;
  for (const CommandDeclaration& command : declared)
    commands.push_back(command.add(*app.add_subcommand(command.name, command.help)));

  check_option_texts(app);
  if (const std::string name = unknown_command(argc, argv, app); !name.empty())
    return refuse_unknown_command(name, app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::set<std::string> explained;
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr)
      explained = explain_unknown_options(argc, argv, app);
    // CLI11's messages quote the command line: printed as plain text (an escape sequence in an
    // argument must not reach the terminal).
    std::ostringstream out, err;
    const int code = app.exit(e, out, err);
    std::cout << out.str();
    std::string said = err.str();
    if (all_explained(e.what(), explained))  // its "not expected" line says nothing more
      said = said.substr(std::min(said.size(), said.find('\n') + 1));
    std::cerr << crossover::terminal_text(said);
    // A bare `crossover`: what it can do, not only that a command is missing.
    if (argc == 1) std::cerr << "\n" << crossover::terminal_text(app.help());
    return check_standard_output(code == 0 ? 0 : 2);
  }

  if (brief && verbose) {
    std::cerr << "error: --brief and --verbose ask for less and more at once: give one\n";
    return check_standard_output(2);
  }
  set_terminal_detail(brief ? Detail::kBrief : verbose ? Detail::kVerbose : Detail::kDefault);
  keep_standard_output_printable();
  auto logger = printable_logger("crossover");
  logger->set_level(verbose ? spdlog::level::debug
                    : quiet ? spdlog::level::warn
                            : spdlog::level::info);
  spdlog::set_default_logger(logger);

  for (const auto& command : commands)
    if (*command.app) return run_one(command);
  return 2;  // require_subcommand(1) makes this unreachable
}

CLI::Option* add_output_option(CLI::App& command, const std::string& name, std::string& target,
                               const std::string& help, OutputKind kind) {
  const CLI::Validator writable(
      [kind](std::string& path) -> std::string {
        // CLI11's validators answer "" for a value they take.
        if (path.empty()) return "";  // refused as an empty path by check_option_texts
        const Found problem =
            kind == OutputKind::kFile ? output_file_problem(path, {}) : output_folder_problem(path);
        if (!problem) return "";
        return (kind == OutputKind::kFile ? "" : path + " ") + problem->text +
               "; nothing was written";
      },
      "");
  // A positional's help is listed apart from the groups: it says it is written.
  const bool positional = name.rfind('-', 0) != 0;
  return command.add_option(name, target, positional ? help + " (never through a link)" : help)
      ->group(kOutputsGroup)
      ->check(writable);
}

CLI::Validator finite_range(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(value))
          return "Value " + text + " is not a finite number";
        if (value < low || value > high)
          return "Value " + text + " not in range [" + format_number(low) + " - " +
                 format_number(high) + "]";
        return "";
      },
      "FLOAT in [" + format_number(low) + " - " + format_number(high) + "]");
}

}  // namespace crossover
