// The searches of a run in report.md: each line's statement, then its probes in the order
// measured with the bracket after each.
#include <optional>

#include "core/stats/crossing.hpp"
#include "core/text/text.hpp"
#include "reports/render/report_markdown.hpp"
#include "reports/render/table_writer.hpp"

namespace crossover {

std::string render_searches_markdown(const nlohmann::ordered_json& searches) {
  if (searches.empty()) return "";
  std::string out =
      "## Searches\n\n"
      "Each search probed pairs of cells along one axis, where the winner changes, until the "
      "bracket was within its precision (docs/grids.md, \"Searching for the crossover\"). The "
      "probes are ordinary cells: they appear in the tables below too.\n\n";
  for (const auto& search : searches) {
    const std::string fixed = search.value("fixed", "");
    out += "### " +
           markdown_text(search.value("workload", "") + ": " + search.value("compare", "") +
                         " along " + search.value("key", "") +
                         (fixed.empty() ? "" : " (" + fixed + ")")) +
           "\n\n";
    out += "**" + markdown_text(search.value("statement", "")) + "** (" +
           markdown_text(search.value("outcome", "")) + ")\n\n";
    TextTable table;
    table.header = {"probe",  search.value("key", ""), "speedup [95 % CI]",
                    "winner", "bracket after",         "cells"};
    std::size_t n = 0;
    for (const auto& p : search.at("probes")) {
      const std::optional<Winner> winner = parse_word<Winner>(p.value("winner", ""));
      std::string bracket = "-";
      if (p.contains("bracket_after")) {
        bracket = format_axis_value(p["bracket_after"][0]) + " - " +
                  format_axis_value(p["bracket_after"][1]);
      }
      std::string cells;
      for (const auto& c : p.at("cells")) cells += (cells.empty() ? "" : ", ") + c.dump();
      table.rows.push_back({std::to_string(++n), format_axis_value(p.value("value", 0.0)),
                            format_number(p.value("speedup", 0.0)) + "x [" +
                                format_number(p.value("low", 0.0)) + ", " +
                                format_number(p.value("high", 0.0)) + "]",
                            winner == Winner::kBaseline    ? search.value("baseline", "")
                            : winner == Winner::kContender ? search.value("contender", "")
                                                           : "tie",
                            bracket, cells});
    }
    out += render_markdown_table(table) + "\n";
  }
  return out;
}

}  // namespace crossover
