#include <gtest/gtest.h>

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
  EXPECT_FALSE(valid_utf8("\xc0\xaf"));   // an overlong '/'
  EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));  // a surrogate
  EXPECT_FALSE(valid_utf8("\xe2\x82"));   // cut short
  EXPECT_EQ(terminal_text("x\xffy"), "x?y");
  EXPECT_EQ(terminal_text("::error title=x::y"), " ::error title=x::y");
  EXPECT_EQ(terminal_text("a\n::add-mask::vm\nb::c"), "a\n ::add-mask::vm\nb::c");
  EXPECT_EQ(terminal_text("\x1b[31mred"), "[31mred");
}

}  // namespace
}  // namespace crossover
