#pragma once
// Text as the charts and pages write it: a coordinate's digits, and any text made safe inside
// HTML and SVG. Shared by the charts (svg_charts.hpp, svg_plot.hpp) and every HTML page.

#include <string>

namespace crossover {

/// A coordinate as the charts write it: one decimal, "12.5".
std::string svg_number(double value);

/// Text made safe inside HTML and SVG.
std::string html_escape(const std::string& text);

}  // namespace crossover
