#include <gtest/gtest.h>

#include <sstream>

#include "core/text/text.hpp"

namespace crossover {
namespace {

TEST(Text, EditDistance) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(Text, DidYouMeanSuggestsOnlyLikelyTypos) {
  const std::vector<std::string> keys = {"batch_size", "dataset_size", "device"};
  EXPECT_EQ(did_you_mean("batchsize", keys), "batch_size");
  EXPECT_EQ(did_you_mean("devise", keys), "device");
  EXPECT_EQ(did_you_mean("learning_rate", keys), "");
}

TEST(Text, FormatSecondsPicksAUnit) {
  EXPECT_EQ(format_seconds(0.000657), "657 us");
  EXPECT_EQ(format_seconds(1.42e-8), "14.2 ns");  // never "0 us" for a time that is not 0
  EXPECT_EQ(format_seconds(0.0), "0 us");
  EXPECT_EQ(format_seconds(0.0123), "12.3 ms");
  EXPECT_EQ(format_seconds(4.56), "4.56 s");
  EXPECT_EQ(format_seconds(125.0), "2 min 05 s");
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// What reaches a terminal or a CI log: UTF-8 whole, controls gone, no line opening a workflow
// command.
TEST(Text, TerminalTextIsUtf8WithoutControlsOrWorkflowCommands) {
  EXPECT_TRUE(valid_utf8("plain, naïve, 東京"));
  EXPECT_FALSE(valid_utf8("x\xffy"));
  EXPECT_FALSE(valid_utf8("\xc0\xaf"));      // an overlong '/'
  EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));  // a surrogate
  EXPECT_FALSE(valid_utf8("\xe2\x82"));      // cut short
  EXPECT_EQ(terminal_text("x\xffy"), "x?y");
  EXPECT_EQ(terminal_text("::error title=x::y"), " ::error title=x::y");
  EXPECT_EQ(terminal_text("a\n::add-mask::vm\nb::c"), "a\n ::add-mask::vm\nb::c");
  EXPECT_EQ(terminal_text("\x1b[31mred"), "[31mred");
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// Sentences wrap at the screen's width (issue 84: verdicts and reasons reached 427 columns);
// tables, words longer than the width, and a width of 0 stay as they are.
TEST(Text, WrapProseBreaksSentencesAtSpacesAndLeavesTablesWhole) {
  const std::string why =
      "    why: the cuda cells pay a launch and a copy per step that the cpu cells do not, and "
      "below batch 64 those fixed costs are most of the step";
  const std::string wrapped = wrap_prose(why, 60);
  std::istringstream lines(wrapped);
  std::vector<std::string> got;
  for (std::string line; std::getline(lines, line);) got.push_back(line);
  ASSERT_GE(got.size(), 3u) << wrapped;
  for (const auto& line : got) EXPECT_LE(display_width(line), 60u) << line;
  // Nothing lost or added but the breaks and the continuation's indent (the line's and two).
  std::string joined;
  for (const auto& line : got)
    joined += (joined.empty() ? "" : " ") + line.substr(line.find_first_not_of(' '));
  EXPECT_EQ("    " + joined, why);
  EXPECT_EQ(got[1].find_first_not_of(' '), 6u) << got[1];
  // A footnote hangs after its mark.
  const std::string note = wrap_prose("[12] 3 rows (4-6): " + std::string(50, 'a') + " b c d", 40);
  EXPECT_EQ(note.substr(note.rfind('\n') + 1).find_first_not_of(' '), 5u) << note;
  // A table row (columns two spaces apart) and a word longer than the width stay whole.
  const std::string row = "regression  mnist_mlp device=cpu  43.5 ms (n=8, 2 runs)  103 ms (n=8)";
  EXPECT_EQ(wrap_prose(row, 30), row);
  const std::string path = "Written: " + std::string(80, 'p');
  EXPECT_EQ(wrap_prose(path, 40), "Written:\n  " + std::string(80, 'p'));
  // A percent sign stays with its number.
  EXPECT_EQ(wrap_prose("peak 173 -> 77.07 (-55.4 %): busy", 24),
            "peak 173 -> 77.07\n  (-55.4 %): busy");
  // Widths are counted in characters, not bytes: "±" is one column.
  EXPECT_EQ(wrap_prose("±±±± ±±±±", 9), "±±±± ±±±±");
  EXPECT_EQ(wrap_prose(why + "\n" + row + "\n", 0), why + "\n" + row + "\n");
  EXPECT_EQ(wrap_prose("a\n\nb\n", 10), "a\n\nb\n");
}

}  // namespace
}  // namespace crossover
