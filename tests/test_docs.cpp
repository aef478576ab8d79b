// The documentation against the program: each command's options against its section of
// docs/commands.md, every link into docs/ against the page and heading it names, every results
// column against docs/outputs.md, and the README against its length and its links.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/cells/keys.hpp"
#include "core/files/run_files.hpp"
#include "core/records/results.hpp"
#include "reports/render/run_outputs.hpp"
#include "runner/grid/grid.hpp"
#include "tests/cli_support.hpp"

namespace crossover {
namespace {

using testing::slurp;

std::string source(const std::string& relative) {
  return std::string(CROSSOVER_SOURCE_DIR) + "/" + relative;
}

std::set<std::string> matches(const std::string& text, const std::regex& pattern, int group = 0) {
  std::set<std::string> found;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it)
    found.insert((*it)[group].str());
  return found;
}

// The long options `crossover COMMAND --help` lists: the lines that begin with two spaces and an
// option (descriptions, which may name other options, are indented further).
std::set<std::string> declared_options(const std::string& command) {
  testing::ScratchDir dir;
  const testing::Outcome o = testing::crossover(dir, command + " --help");
  EXPECT_EQ(o.code, 0) << command << ": " << o.err;
  std::set<std::string> options =
      matches(o.out, std::regex("(^|\n)  (-[a-zA-Z],)?(--[a-z][a-z0-9-]*)"), 3);
  options.erase("--help");
  return options;
}

// The options the synopsis of "## crossover COMMAND" in docs/commands.md names: its first fenced
// block.
std::set<std::string> documented_options(const std::string& command) {
  const std::string page = slurp(source("docs/commands.md"));
  const std::string heading = "\n## crossover" + (command.empty() ? "" : " " + command) + "\n";
  const auto at = page.find(heading);
  if (at == std::string::npos) {
    ADD_FAILURE() << "docs/commands.md has no section \"" << heading.substr(1, heading.size() - 2)
                  << "\"";
    return {};
  }
  const auto open = page.find("```\n", at);
  const auto close = page.find("```", open + 4);
  return matches(page.substr(open, close - open), std::regex("--[a-z][a-z0-9-]*"));
}

TEST(Docs, EachCommandsOptionsAreTheOnesItsSectionOfCommandsMdLists) {
  for (const std::string command :
       {"", "run", "report", "compare", "calibrate", "validate", "keys", "list", "env", "bench",
        "worker", "profile", "predict", "catalog", "history"}) {
    const auto declared = declared_options(command);
    EXPECT_FALSE(declared.empty() && command != "validate") << command;
    EXPECT_EQ(declared, documented_options(command))
        << "crossover " << command << " --help and docs/commands.md disagree";
  }
}

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
std::string anchor_of(const std::string& heading) {
  std::string anchor;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80)
      anchor += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      anchor += '-';
  }
  return anchor;
}

std::set<std::string> anchors_of(const std::string& page) {
  std::set<std::string> anchors;
  for (const auto& heading : matches(slurp(page), std::regex("(^|\n)#+ ([^\n]+)"), 2))
    anchors.insert(anchor_of(heading));
  return anchors;
}

// Every "docs/PAGE.md#ANCHOR" (or, inside docs/, "](PAGE.md#ANCHOR)") in `text` names a page
// that exists and a heading it has.
void expect_links_hold(const std::string& where, const std::string& text, bool inside_docs) {
  const std::regex link(inside_docs ? "\\]\\(([a-z-]+\\.md)(#([a-z0-9_-]+))?\\)"
                                    : "docs/([a-z-]+\\.md)(#([a-z0-9_-]+))?");
  for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
    const std::string page = source("docs/" + (*it)[1].str());
    ASSERT_TRUE(std::filesystem::exists(page)) << where << " links to " << (*it)[0];
    if ((*it)[3].matched) {
      EXPECT_EQ(anchors_of(page).count((*it)[3].str()), 1u)
          << where << " links to " << (*it)[0] << ", a heading the page does not have";
    }
  }
}

TEST(Docs, EveryLinkIntoDocsNamesAPageAndAHeadingThatExist) {
  namespace fs = std::filesystem;
  expect_links_hold("README.md", slurp(source("README.md")), false);
  for (const auto& entry : fs::directory_iterator(source("docs")))
    if (entry.path().extension() == ".md")
      expect_links_hold(entry.path().filename().string(), slurp(entry.path().string()), true);
  // Messages that send the user to a page: skip reasons, errors, --help.
  for (const std::string folder : {"core", "workloads", "reports", "runner"})
    for (const auto& entry : fs::recursive_directory_iterator(source(folder)))
      if (entry.path().extension() == ".cpp" || entry.path().extension() == ".hpp")
        expect_links_hold(entry.path().string(), slurp(entry.path().string()), false);
}

TEST(Docs, EveryDocsPageIsLinkedFromTheReadme) {
  const std::string readme = slurp(source("README.md"));
  for (const auto& entry : std::filesystem::directory_iterator(source("docs")))
    if (entry.path().extension() == ".md") {
      EXPECT_NE(readme.find("(docs/" + entry.path().filename().string() + ")"), std::string::npos)
          << entry.path().filename() << " is not linked from the README";
    }
}

TEST(Docs, TheReadmeIsShort) {
  EXPECT_LE(testing::lines_in(slurp(source("README.md"))), 250u)
      << "the README is for a newcomer; move the details into docs/";
}

TEST(Docs, TheGridsTheReadmeAndGridsMdShowAreValid) {
  for (const std::string page : {"README.md", "docs/grids.md"}) {
    const std::string text = slurp(source(page));
    std::size_t grids = 0;
    for (std::size_t at = text.find("```json\n"); at != std::string::npos;
         at = text.find("```json\n", at + 1)) {
      const std::size_t open = at + 8;
      const std::string block = text.substr(open, text.find("```", open) - open);
      if (block.find("\"experiments\"") == std::string::npos) continue;
      testing::ScratchDir dir;
      // A grid of your own model names mynet.pt: the example model has its shape ([20], 4 classes).
      if (block.find("\"mynet.pt\"") != std::string::npos) {
        ASSERT_EQ(testing::crossover(dir, "example-model " + dir.file("mynet.pt")).code, 0);
      }
      const testing::Outcome o = testing::crossover(dir, "validate " + dir.write("g.json", block));
      EXPECT_EQ(o.code, 0) << page << ": a grid it shows is not valid:\n" << block << o.err;
      ++grids;
    }
    EXPECT_GT(grids, 0u) << page;
  }
}

// A command's standard output, or "" when it fails.
std::string output_of(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  return pclose(pipe) == 0 ? out : "";
}

// A grid's cells with every key (what they measure and how long they run), in order; a search's
// lines as their two templates.
std::vector<std::string> cell_identities(const Grid& grid) {
  const Expansion e = expand_grid(grid);
  std::vector<std::string> cells;
  for (const Cell& c : e.cells) cells.push_back(cell_config_json(c).dump());
  for (const SearchLine& line : e.searches)
    cells.push_back(cell_config_json(line.baseline).dump() + " " +
                    cell_config_json(line.contender).dump() + " " +
                    std::to_string(line.spec.max_probes));
  return cells;
}

// Each config states its cells in its description, and docs/results.md times it with the commit
// that measured it; a config whose cells changed since then has a stale figure (issue 50: the docs
// quoted ci.json at 19 s after its cells moved to 5 processes each and it took 1 min 41 s).
TEST(Docs, EachConfigStatesItsCellsAndItsTimeIsNoOlderThanThem) {
  const std::string results = slurp(source("docs/results.md"));
  const auto start = results.find("### Configs on the VM");
  const std::string table = results.substr(start, results.find("\n### ", start + 1) - start);
  std::map<std::string, std::string> timed;  // config -> the commit that timed it
  const std::regex row("\n\\| `([a-z0-9-]+\\.json)` \\| [^|\n]+ \\| ([0-9a-f]{7,40}) \\|");
  for (std::sregex_iterator m(table.begin(), table.end(), row), end; m != end; ++m)
    timed[(*m)[1]] = (*m)[2];
  ASSERT_GE(timed.size(), 10u);
  const std::set<std::string> untimed = {"seed-002-cifar-dataparallel.json", "gpu-smoke.json"};
  // The history is there in a clone; a shallow or exported copy checks the cells alone.
  const std::string git = "git -C " + source("") + " ";
  const bool history =
      output_of(git + "rev-parse --is-shallow-repository 2>/dev/null") == "false\n";
  std::size_t configs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source("configs"))) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json") continue;
    ++configs;
    SCOPED_TRACE(name);
    const Grid grid = load_grid(entry.path().string());
    const Expansion e = expand_grid(grid);
    const std::size_t cells = e.cells.size() + 2 * most_probes(e.searches);
    std::smatch stated;
    ASSERT_TRUE(std::regex_search(grid.description, stated, std::regex("([0-9][0-9,]*) cells")))
        << "its description does not say how many cells it has (" << cells << ")";
    std::string digits = stated[1];
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    EXPECT_EQ(std::stoul(digits), cells) << grid.description;
    const auto at = timed.find(name);
    if (at == timed.end()) {
      EXPECT_TRUE(untimed.count(name)) << "docs/results.md does not time it";
      continue;
    }
    if (!history) continue;
    const std::string then = output_of(git + "show " + at->second + ":configs/" + name);
    ASSERT_FALSE(then.empty()) << "configs/" << name << " is not in commit " << at->second;
    std::vector<std::string> cells_then;
    try {
      cells_then = cell_identities(parse_grid(then, entry.path().string()));
    } catch (const std::exception& error) {
      ADD_FAILURE() << "at " << at->second << " it does not read as a grid today (" << error.what()
                    << "): time it again";
    }
    EXPECT_EQ(cells_then, cell_identities(grid))
        << "its cells changed since " << at->second << " timed it: time it again and update "
        << "docs/results.md's figure and commit";
  }
  std::string listed;
  for (const auto& [name, commit] : timed) listed += " " + name;
  EXPECT_EQ(configs, timed.size() + untimed.size()) << "docs/results.md times" << listed;
}

// The Files table of docs/outputs.md lists the run folder's files as reports/render/run_outputs.hpp
// declares them, no more and no fewer.
TEST(Docs, OutputsMdListsTheRunFolderSFilesAsDeclared) {
  const std::string page = slurp(source("docs/outputs.md"));
  const auto start = page.find("## Files"), end = page.find("\n## ", start + 1);
  ASSERT_NE(start, std::string::npos);
  const auto table =
      matches(page.substr(start, end - start), std::regex("\n\\| `([a-z_.-]+)` \\|"), 1);
  const auto names = run_file_names();
  EXPECT_EQ(table, std::set<std::string>(names.begin(), names.end()));
  // `report --help` names each file it writes with what the declaration says it holds.
  testing::ScratchDir dir;
  const testing::Outcome help = testing::crossover(dir, "report --help");
  for (const RunFile& file : run_folder_files()) {
    const bool listed =
        help.out.find("\n  " + file.name + ": " + file.holds + "\n") != std::string::npos;
    EXPECT_EQ(listed, file.writer() == RunFileWriter::kReports) << file.name << "\n" << help.out;
  }
}

TEST(Docs, OutputsMdDescribesEveryResultsColumnAndNoOther) {
  const std::string page = slurp(source("docs/outputs.md"));
  const auto table = matches(page, std::regex("\n\\| `([a-z_0-9]+)` \\|"), 1);
  // The measurements: every column after the cell's configuration (its grid keys).
  const auto config = cell_config_json(Cell{});
  std::set<std::string> measured;
  const auto columns = result_to_json(Result{});  // items() refers to it: keep it alive
  for (const auto& item : columns.items())
    if (!config.contains(item.key()) || item.key() == "cell") measured.insert(item.key());
  EXPECT_EQ(measured, table) << "docs/outputs.md's column table differs from results.jsonl's "
                                "columns (every grid key is a column too, described in "
                                "docs/grids.md)";
  // Each with the unit core/records/results.hpp declares for it.
  for (const FieldUnit& field : result_field_units()) {
    const std::string row = "\n| `" + std::string(field.name) + "` | " + text_of(field.unit) +
                            (field.unit == Unit::kNone ? "| " : " | ");
    EXPECT_NE(page.find(row), std::string::npos)
        << field.name << ": docs/outputs.md does not give its unit as \"" << text_of(field.unit)
        << "\"";
  }
}

// docs/development.md's recipes, counted where a test can count them: every file a recipe names
// exists, and adding a command touches three files, as its recipe says: its file in
// runner/commands/ (which the build takes by a glob), its row in runner/main/command_list.hpp and
// its section in docs/commands.md.
TEST(Docs, TheRecipesNameFilesThatExistAndACommandTouchesThree) {
  namespace fs = std::filesystem;
  const std::string development = slurp(source("docs/development.md"));
  const auto begin = development.find("Each recipe below names every file it touches");
  ASSERT_NE(begin, std::string::npos);
  const std::string recipes =
      development.substr(begin, development.find("**A result field**", begin) - begin);
  std::size_t named = 0;
  for (
      const std::string& path : matches(
          recipes,
          std::regex(
              R"(`((?:core|reports|workloads|runner|scripts|profiles|docs)/[A-Za-z0-9_./-]+\.(?:cpp|hpp|md|sh|json))`)"),
          1)) {
    if (path.find("X_") != std::string::npos || path.find("_X.") != std::string::npos)
      continue;  // a placeholder: report_X.hpp, X_command.cpp
    ++named;
    EXPECT_TRUE(fs::exists(source(path)))
        << "docs/development.md's recipes name " << path << ", which does not exist";
  }
  EXPECT_GE(named, 10u);
  EXPECT_NE(recipes.find("**Adding a command** touches three"), std::string::npos);
  // The build takes every file of runner/commands/: no list of them to add to.
  EXPECT_NE(slurp(source("CMakeLists.txt")).find("${PROJECT_SOURCE_DIR}/runner/commands/*.cpp"),
            std::string::npos);
  const std::string list = slurp(source("runner/main/command_list.hpp"));
  const std::string commands_md = slurp(source("docs/commands.md"));
  std::set<std::string> defined;  // the add functions runner/commands/ defines
  for (const auto& entry : fs::directory_iterator(source("runner/commands")))
    for (const std::string& f :
         matches(slurp(entry.path()), std::regex(R"(\nCommand (add_\w+)\()"), 1))
      defined.insert(f);
  const std::regex row(
      R"re(CROSSOVER_COMMAND\("([a-z-]+)",[\s\S]*?(add_\w+|kStartTorch), (add_\w+)\))re");
  std::size_t rows = 0;
  for (std::sregex_iterator it(list.begin(), list.end(), row), end; it != end; ++it, ++rows) {
    const std::string name = (*it)[1];
    for (const int f : {2, 3}) {
      if ((*it)[f] == "kStartTorch") continue;
      EXPECT_EQ(defined.count((*it)[f]), 1u)
          << name << ": " << (*it)[f] << " is not defined in a file of runner/commands/";
    }
    EXPECT_NE(commands_md.find("\n## crossover " + name + "\n"), std::string::npos)
        << name << " has no section in docs/commands.md";
  }
  EXPECT_GE(rows, 15u);
}

}  // namespace
}  // namespace crossover
