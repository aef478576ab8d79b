#pragma once
// Small text helpers shared by the validator, the CLI and the report writers.

#include <string>
#include <vector>

namespace crossover {

/// Edit distance between two strings (insertions, deletions, substitutions).
std::size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate closest to `word`, or "" when none is close enough to be a likely typo.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// "a, b, c".
std::string join(const std::vector<std::string>& parts, const std::string& separator = ", ");

/// A duration for people: "850 us", "12.3 ms", "4.56 s", "2 min 05 s".
std::string format_seconds(double seconds);

/// An axis value as the crossover statements write it: a whole number from 1,000 up with thousands
/// separators ("19,098"), anything else as format_number.
std::string format_axis_value(double value);

/// A number with three significant digits and thousands kept readable: "0.0123", "1.23e+05".
std::string format_number(double value);

/// A fraction as a percentage with one decimal: "+12.3 %" (with `sign`) or "12.3 %".
std::string format_percent(double fraction, bool sign = true);

/// Local time as 20261122-193000, for default directory names.
std::string timestamp();

/// Seconds as h:mm:ss.
std::string clock_text(double seconds);

}  // namespace crossover
