// The shape of the house, read from the sources: every #include points down the layers (the core,
// workloads, reports, execution, the command line), and no source file outgrows about 500 lines.
// The README's "How the code is laid out" names the same folders.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

// The layers from the bottom; a file may include its own layer and those below it.
struct Layer {
  std::string folder;  // relative to the source root, ending in '/'
  std::string name;
};
const std::vector<Layer>& layers() {
  // clang-format off
  static const std::vector<Layer> all = {
      {"core/", "core"},
      {"workloads/", "workloads"},
      {"reports/", "reports"},
      {"runner/", "execution"},
      // The command line: what the commands share, then the commands (runner/README.md).
      {"runner/cli/", "command line"},
      {"runner/commands/", "commands"},
      {"runner/main/", "programs"},
      {"bench/", "micro-benchmarks"},
      {"tests/", "tests"},
  };
  // clang-format on
  return all;
}

// The layer of a path: the one with the longest folder that starts it.
std::optional<std::size_t> layer_of(const std::string& path) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < layers().size(); ++i) {
    const std::string& folder = layers()[i].folder;
    if (path.rfind(folder, 0) == 0 && (!best || folder.size() > layers()[*best].folder.size()))
      best = i;
  }
  return best;
}

std::vector<std::string> sources() {
  const fs::path root(CROSSOVER_SOURCE_DIR);
  std::vector<std::string> out;
  for (const char* top : {"core", "runner", "workloads", "reports", "bench", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() && (ext == ".cpp" || ext == ".hpp" || ext == ".h"))
        out.push_back(fs::relative(entry.path(), root).string());
    }
  }
  return out;
}

TEST(Layers, EveryFolderHasALayer) {
  EXPECT_EQ(layer_of("core/cells/cell.hpp"), 0u);
  EXPECT_EQ(layer_of("reports/analysis/analysis.cpp"), 2u);
  EXPECT_EQ(layer_of("runner/execution/executor.cpp"), 3u);
  EXPECT_EQ(layer_of("runner/cli/command_line.cpp"), 4u);
  EXPECT_EQ(layer_of("runner/commands/run_command.cpp"), 5u);
  EXPECT_EQ(layer_of("runner/main/main.cpp"), 6u);
  for (const auto& file : sources()) EXPECT_TRUE(layer_of(file).has_value()) << file;
}

// Every folder of the layers says in a README.md what it holds, for whoever opens it first.
TEST(Layers, EveryFolderOfTheLayersHasAReadme) {
  const fs::path root(CROSSOVER_SOURCE_DIR);
  std::size_t folders = 0;
  for (const char* top : {"core", "workloads", "reports", "runner"}) {
    std::vector<fs::path> all = {root / top};
    for (const auto& entry : fs::recursive_directory_iterator(root / top))
      if (entry.is_directory()) all.push_back(entry.path());
    for (const fs::path& folder : all) {
      ++folders;
      EXPECT_TRUE(fs::is_regular_file(folder / "README.md"))
          << fs::relative(folder, root).string() << "/ has no README.md";
    }
  }
  EXPECT_GE(folders, 13u);
}

// The includes of `text` (the file `file`) that point to a higher layer, as messages.
std::vector<std::string> upward_includes(const std::string& file, const std::string& text,
                                         std::size_t* project_includes = nullptr) {
  static const std::regex include_line("^\\s*#\\s*include\\s+\"([^\"]+)\"");
  const std::size_t from = *layer_of(file);
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    if (!std::regex_search(line, m, include_line)) continue;
    const auto to = layer_of(m[1]);
    if (!to) continue;  // a file of the build tree or beside the includer
    if (project_includes != nullptr) ++*project_includes;
    if (*to > from)
      out.push_back(file + ":" + std::to_string(number) + " (" + layers()[from].name +
                    ") includes " + m[1].str() + " (" + layers()[*to].name + "), a higher layer");
  }
  return out;
}

TEST(Layers, IncludesPointDown) {
  std::size_t includes = 0;
  for (const auto& file : sources()) {
    const std::string text = testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/" + file);
    for (const auto& problem : upward_includes(file, text, &includes)) ADD_FAILURE() << problem;
  }
  EXPECT_GT(includes, 200u);  // the walk really read the sources
}

TEST(Layers, TheCheckCatchesAnIncludeThatPointsUp) {
  const std::string text =
      "#include \"core/stats/stats.hpp\"\n#include <vector>\n  #include "
      "\"reports/analysis/analysis.hpp\"\n";
  const auto problems = upward_includes("core/records/results.cpp", text);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "core/records/results.cpp:3 (core) includes reports/analysis/analysis.hpp (reports), a "
            "higher layer");
  EXPECT_TRUE(upward_includes("runner/main/main.cpp", text).empty());
  EXPECT_EQ(
      upward_includes("workloads/registry.cpp", "#include \"runner/hardware/devices.hpp\"").size(),
      1u);
  // At folder level too: the reports read results, never the execution that made them.
  EXPECT_EQ(
      upward_includes("reports/analysis/analysis.cpp", "#include \"runner/grid/grid.hpp\"").size(),
      1u);
  EXPECT_TRUE(upward_includes("runner/execution/executor.cpp",
                              "#include \"reports/render/table_writer.hpp\"")
                  .empty());
}

// The room of a source: its folder ("reports/analysis"), or "" outside the layers' code.
std::string room_of(const std::string& path) {
  for (const char* top : {"core/", "workloads/", "reports/", "runner/"})
    if (path.rfind(top, 0) == 0) return fs::path(path).parent_path().string();
  return "";
}

// Each room's includes of other rooms, with the first file and line that makes each one.
using RoomEdges = std::map<std::string, std::map<std::string, std::string>>;
RoomEdges room_edges(const std::map<std::string, std::string>& texts) {
  static const std::regex include_line("^\\s*#\\s*include\\s+\"([^\"]+)\"");
  RoomEdges edges;
  for (const auto& [file, text] : texts) {
    const std::string from = room_of(file);
    if (from.empty()) continue;
    std::istringstream in(text);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      std::smatch m;
      if (!std::regex_search(line, m, include_line)) continue;
      const std::string to = room_of(m[1]);
      if (!to.empty() && to != from) edges[from].emplace(to, file + ":" + std::to_string(number));
    }
  }
  return edges;
}

// A loop of rooms, each including the next ("a -> b (a/x.cpp:3) -> a (b/y.cpp:7)"), or "".
std::string room_loop(const RoomEdges& edges) {
  std::map<std::string, int> state;  // 1: on the walk's path, 2: done
  std::vector<std::string> path;
  std::string found;
  std::function<void(const std::string&)> walk = [&](const std::string& room) {
    state[room] = 1;
    path.push_back(room);
    const auto out = edges.find(room);
    for (const auto& [to, where] :
         out == edges.end() ? std::map<std::string, std::string>{} : out->second) {
      if (!found.empty()) break;
      if (state[to] == 1) {
        const auto start = std::find(path.begin(), path.end(), to);
        found = *start;
        for (auto it = start; it != path.end(); ++it) {
          const std::string& next = it + 1 == path.end() ? to : *(it + 1);
          found += " -> " + next + " (" + edges.at(*it).at(next) + ")";
        }
      } else if (state[to] == 0) {
        walk(to);
      }
    }
    path.pop_back();
    state[room] = 2;
  };
  for (const auto& [room, out] : edges)
    if (found.empty() && state[room] == 0) walk(room);
  return found;
}

// Rooms include each other one way only, never around a loop: each concept reads from the
// rooms below it (the READMEs of core/, workloads/, reports/ and runner/ give their order).
TEST(Layers, NoRoomsIncludeEachOtherAroundALoop) {
  std::map<std::string, std::string> texts;
  for (const auto& file : sources())
    texts[file] = testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/" + file);
  const RoomEdges edges = room_edges(texts);
  EXPECT_GE(edges.size(), 8u);  // the walk really found the rooms
  EXPECT_EQ(room_loop(edges), "");
}

TEST(Layers, TheLoopCheckCatchesRoomsThatIncludeEachOther) {
  const RoomEdges edges = room_edges({
      {"reports/analysis/a.cpp", "#include \"reports/render/table_writer.hpp\"\n"},
      {"reports/render/t.cpp", "#include <vector>\n#include \"reports/gate/g.hpp\"\n"},
      {"reports/gate/g.cpp",
       "#include \"reports/analysis/a.hpp\"\n#include \"core/cells/cell.hpp\"\n"},
  });
  EXPECT_EQ(room_loop(edges),
            "reports/analysis -> reports/render (reports/analysis/a.cpp:1) -> reports/gate "
            "(reports/render/t.cpp:2) -> reports/analysis (reports/gate/g.cpp:1)");
  EXPECT_EQ(
      room_loop(room_edges({{"reports/gate/g.cpp", "#include \"reports/analysis/a.hpp\"\n"}})), "");
}

// The pairs of files of the layers' code (a header and its source are one file) that include each
// other, "a <-> b", in order.
std::vector<std::string> file_pairs(const std::map<std::string, std::string>& texts) {
  static const std::regex include_line("^\\s*#\\s*include\\s+\"([^\"]+)\\.hpp\"");
  const auto stem = [](const std::string& path) { return path.substr(0, path.rfind('.')); };
  std::map<std::string, std::set<std::string>> reads;
  for (const auto& [file, text] : texts) {
    if (room_of(file).empty()) continue;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, include_line) && m[1] != stem(file))
        reads[stem(file)].insert(m[1]);
    }
  }
  std::vector<std::string> pairs;
  for (const auto& [a, read] : reads)
    for (const std::string& b : read)
      if (a < b && reads.count(b) != 0 && reads.at(b).count(a) != 0)
        pairs.push_back(a + " <-> " + b);
  return pairs;
}

// No two files include each other: where both need something, it is a third file's (the types in
// a header of their own, the calls in the one that makes them), so every file reads one way.
TEST(Layers, NoTwoFilesIncludeEachOther) {
  std::map<std::string, std::string> texts;
  for (const auto& file : sources())
    texts[file] = testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/" + file);
  EXPECT_GE(texts.size(), 100u);  // the walk really found the files
  EXPECT_EQ(file_pairs(texts), std::vector<std::string>{});
}

TEST(Layers, ThePairCheckCatchesTwoFilesThatIncludeEachOther) {
  // A header that needs the other's types, and a source that calls the other's functions.
  EXPECT_EQ(file_pairs({{"core/stats/x.hpp", "#include \"core/stats/y.hpp\"\n"},
                        {"core/stats/y.cpp",
                         "#include \"core/stats/y.hpp\"\n#include \"core/stats/x.hpp\"\n"},
                        {"core/stats/z.cpp", "#include \"core/stats/x.hpp\"\n"}}),
            std::vector<std::string>{"core/stats/x <-> core/stats/y"});
  // A file's own header, and a one-way include, are no pair.
  EXPECT_EQ(file_pairs({{"core/stats/x.cpp", "#include \"core/stats/x.hpp\"\n"},
                        {"core/stats/x.hpp", "#include \"core/stats/y.hpp\"\n"}}),
            std::vector<std::string>{});
}

// Where a source opens a file itself, by the calls that open one.
std::vector<std::string> file_opens(const std::string& file, const std::string& text) {
  static const std::regex open_call(
      R"((std::ifstream\s+\w+\s*\(|\bfopen\(|\bgzopen\(|[^_\w.>]open\())");
  std::vector<std::string> out;
  std::istringstream lines(text);
  std::size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const auto comment = line.find("//");
    if (std::regex_search(comment == std::string::npos ? line : line.substr(0, comment), open_call))
      out.push_back(file + ":" + std::to_string(number));
  }
  return out;
}

// Every input a user or another run hands in is opened by core/files/user_files (no link, a bounded
// regular file, the file named in every error); every output by core/files/file_writer. The sources
// below open files themselves, each for its reason.
TEST(Layers, OnlyTheGuardedReaderAndTheOwningWriterOpenFiles) {
  const std::map<std::string, std::string> allowed = {
      {"core/files/user_files.cpp", "the one reader"},
      {"core/files/file_writer.cpp", "the one writer"},
      {"runner/sweep/output_dir.cpp", "a run folder's lock, never followed (O_NOFOLLOW)"},
      {"core/process/child.cpp", "a child's standard streams, O_NOFOLLOW"},
      {"runner/cli/command_line.cpp", "/dev/null for a closed standard stream"},
      {"runner/machine/env.cpp", "the machine's own /proc, /sys and /etc/os-release"},
      {"runner/hardware/energy.cpp", "the machine's own /sys/class/powercap counters"},
      {"runner/execution/busy_load.cpp", "the machine's own /proc/stat"},
      {"runner/hardware/memory.cpp", "the machine's own /proc/self/status"},
      {"runner/execution/launch.cpp", "a cell's log, written by this run into its own folder"},
      {"workloads/data/idx.cpp", "zlib's gzopen, after check_regular_file (a data set)"},
      {"workloads/models/torchscript.cpp", "the model's zip directory, after check_regular_file"},
  };
  std::size_t scanned = 0;
  for (const auto& file : sources()) {
    if (file.rfind("tests/", 0) == 0 || file.rfind("bench/", 0) == 0) continue;
    ++scanned;
    if (allowed.count(file) != 0) continue;
    const std::string text = testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/" + file);
    for (const auto& where : file_opens(file, text))
      ADD_FAILURE() << where << " opens a file itself; read inputs with core/files/user_files.hpp "
                    << "(read_user_file, read_json_text) and write with core/files/file_writer.hpp";
  }
  EXPECT_GT(scanned, 100u);
}

// The lines of `text` that start a process themselves (fork, vfork, posix_spawn, system, popen).
std::vector<std::string> process_starts(const std::string& file, const std::string& text) {
  static const std::regex start("(^|[^_A-Za-z0-9.>])(v?fork|posix_spawnp?|system|popen)\\s*\\(");
  std::vector<std::string> found;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::string code = line.substr(0, line.find("//"));
    if (std::regex_search(code, start)) found.push_back(file + ":" + std::to_string(number));
  }
  return found;
}

// Every child process is started by core/process/child (its group, its signals, its death with
// the parent, nothing allocated between fork and exec): no source starts one itself.
TEST(Layers, OnlyTheChildStarterStartsProcesses) {
  std::size_t scanned = 0;
  for (const auto& file : sources()) {
    if (file.rfind("tests/", 0) == 0 || file.rfind("bench/", 0) == 0) continue;
    if (file == "core/process/child.cpp") continue;
    ++scanned;
    const std::string text = testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/" + file);
    for (const auto& where : process_starts(file, text))
      ADD_FAILURE() << where << " starts a process itself; start it with core/process/child.hpp "
                    << "(start_child, fork_child)";
  }
  EXPECT_GT(scanned, 100u);
  EXPECT_EQ(process_starts("a.cpp", "  const pid_t pid = fork();\n").size(), 1u);
  EXPECT_EQ(process_starts("a.cpp", "posix_spawn(&pid, p, nullptr, nullptr, a, e);\n").size(), 1u);
  EXPECT_EQ(process_starts("a.cpp", "std::system(\"ls\");\n").size(), 1u);
  EXPECT_TRUE(
      process_starts("a.cpp", "// fork() here\nfork_child(f, true); x.system();\n").empty());
}

// A command's errors become exit codes in one place: the command files (runner/commands and
// runner/cli) catch only in run_one and CLI11's parse error (command_line.cpp) and in or_exit, the
// one translation of a layer's error (commands.hpp). A check returns Found; a failure with more
// than words is an attempt<E> value (core/text/problem.hpp).
TEST(Layers, CommandFilesCatchOnlyWhereAnErrorBecomesAnExitCode) {
  const std::map<std::string, std::size_t> allowed = {{"runner/cli/command_line.cpp", 2},
                                                      {"runner/cli/commands.hpp", 2}};
  static const std::regex handler("(^|[^_A-Za-z0-9])catch\\s*\\(");
  std::size_t scanned = 0;
  for (const auto& file : sources()) {
    if (file.rfind("runner/commands/", 0) != 0 && file.rfind("runner/cli/", 0) != 0) continue;
    ++scanned;
    std::istringstream lines(testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/" + file));
    std::size_t handlers = 0;
    for (std::string line; std::getline(lines, line);)
      handlers += std::regex_search(line.substr(0, line.find("//")), handler) ? 1 : 0;
    const auto it = allowed.find(file);
    EXPECT_EQ(handlers, it == allowed.end() ? 0u : it->second)
        << file << ": throw CommandError (or use or_exit, problem_of, attempt) instead of catching";
  }
  EXPECT_GT(scanned, 30u);
  EXPECT_TRUE(std::regex_search("  } catch (const std::exception& e) {", handler));
  EXPECT_FALSE(std::regex_search("catch_interrupts();", handler));
}

TEST(Layers, TheOpenCheckCatchesEachWayOfOpening) {
  EXPECT_EQ(file_opens("a.cpp", "  std::ifstream in(path);\n").size(), 1u);
  EXPECT_EQ(file_opens("a.cpp", "FILE* f = fopen(p, \"r\");\n").size(), 1u);
  EXPECT_EQ(file_opens("a.cpp", "const int fd = open(p.c_str(), O_RDONLY);\n").size(), 1u);
  EXPECT_EQ(file_opens("a.cpp", "  gzFile g = gzopen(p, \"rb\");\n").size(), 1u);
  EXPECT_TRUE(
      file_opens("a.cpp", "// open(path) is not called here\nreopen(x); f.open_x();\n").empty());
}

TEST(Layers, NoSourceFileOverAbout500Lines) {
  constexpr std::size_t kMaxLines = 500;
  for (const auto& file : sources()) {
    std::ifstream in(std::string(CROSSOVER_SOURCE_DIR) + "/" + file);
    std::size_t lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    EXPECT_LE(lines, kMaxLines) << file << " has " << lines << " lines; split it by what it does";
  }
}

TEST(Layers, DevelopmentMdNamesEveryLayersFolder) {
  const std::string readme =
      testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/docs/development.md");
  const auto section = readme.find("## How the code is laid out");
  ASSERT_NE(section, std::string::npos);
  const std::string text = readme.substr(section, readme.find("\n## ", section + 1) - section);
  for (const auto& layer : layers())
    EXPECT_NE(text.find("`" + layer.folder + "`"), std::string::npos) << layer.folder;
}

}  // namespace
}  // namespace crossover
