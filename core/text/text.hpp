#pragma once
// Small text helpers shared by the validator, the CLI and the report writers.

#include <map>
#include <string>
#include <vector>

namespace crossover {

/// Edit distance between two strings (insertions, deletions, substitutions).
std::size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate closest to `word`, or "" when none is close enough to be a likely typo.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// The `count` candidates closest to `word` by edit distance, closest first (ties in the
/// candidates' order): what an error lists instead of every name there is.
std::vector<std::string> nearest(const std::string& word,
                                 const std::vector<std::string>& candidates, std::size_t count = 3);

/// "a, b, c".
std::string join(const std::vector<std::string>& parts, const std::string& separator = ", ");

/// Seconds in a year (365.25 days): from here on durations print in seconds, scientific.
inline constexpr double kSecondsPerYear = 31557600.0;

/// A duration for people: "850 us", "12.3 ms", "4.56 s", "2 min 05 s"; from a year on in
/// seconds ("3.16e+07 s", "1e+308 s"); "-" when not finite.
std::string format_seconds(double seconds);

/// An axis value as the crossover statements write it: a whole number from 1,000 up with thousands
/// separators ("19,098"), anything else as format_number.
std::string format_axis_value(double value);

/// A number with three significant digits and thousands kept readable: "0.0123", "1.23e+05".
std::string format_number(double value);

/// A unit of time for a column of durations, its name ("ms") and how many of it make a second.
struct TimeUnit {
  const char* name = "s";
  double per_second = 1.0;
};

/// Of s, ms, us and ns, the unit in which the widest of `seconds` reads shortest with three
/// significant digits (the larger unit on a tie): one unit for a column, said in its header.
TimeUnit time_unit_for(const std::vector<double>& seconds);

/// `value` with three (or `digits`) significant digits, without an exponent: "0.304", "66.6",
/// "121", "1,210"; "-" when not finite.
std::string format_significant(double value, int digits = 3);

/// A fraction as a percentage with one decimal: "+12.3 %" (with `sign`) or "12.3 %".
std::string format_percent(double fraction, bool sign = true);

/// Local time as 20261122-193000, for default directory names.
std::string timestamp();

/// Seconds as h:mm:ss (format_seconds' text from a year on, or for a negative or NaN time).
std::string clock_text(double seconds);

/// `text` with each character that `replacements` names replaced by its text: the one loop of
/// every escaper (Markdown, HTML).
std::string replaced(const std::string& text, const std::map<char, std::string>& replacements);

/// `text` without control characters: C0 controls but tab and line feed (escape sequences
/// begin with ESC), DEL, and C1 controls written in UTF-8. What reaches a terminal or a report
/// from a file or a user's argument passes through it.
std::string printable_text(const std::string& text);

/// What reaches a terminal, a log or a CI runner from a file or a user: printable_text, invalid
/// UTF-8 replaced by "?", and a line that would open with "::" (a workflow command of GitHub
/// Actions: "::error", "::add-mask::") opened with a space. Every report format escapes for
/// itself; this is the terminal's.
std::string terminal_text(const std::string& text);

/// How many columns `text` takes on a screen: its UTF-8 code points ("±" is one), not its bytes.
std::size_t display_width(const std::string& text);

/// `text` for a reader's screen `width` columns wide: each line longer than that is broken at
/// spaces, its continuation indented as the line was and two more (a footnote's "[3] " hangs its
/// own width). A line with two spaces after its indent is a table's row (render_text_table
/// separates columns by two) and stays whole, as does a word longer than the width. 0: no
/// breaking.
std::string wrap_prose(const std::string& text, std::size_t width);

/// Whether `text` is well-formed UTF-8 (what JSON may hold).
bool valid_utf8(const std::string& text);

}  // namespace crossover
