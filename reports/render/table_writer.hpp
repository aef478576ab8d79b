#pragma once
// A table of text cells (reports/analysis/text_table.hpp), rendered as GitHub Markdown or as
// aligned terminal text, and the one writer of data as Markdown text.

#include <string>
#include <vector>

#include "reports/analysis/text_table.hpp"

namespace crossover {

/// Text from data (a label, a reason, a field of env.json, a grid's name) as Markdown that shows
/// it as it is: the one Markdown text writer of every report. Control characters are dropped,
/// line breaks and tabs become spaces, `&`, `<` and `>` become entities (no HTML gets through),
/// and `|` (a table's column), backticks (code), backslashes, `*` and `~` (emphasis), a first `#`
/// that opens a heading ("# x", not "#3"), `_` at a word's edge, a `]` before `(`, `[` or `:` and a
/// `[` after `!` (links and images) are escaped: a label like `![x](http://evil.example/p.png)`
/// shows as those characters, never as an image or a link, and an interval `[1.1, 1.3]` as it is.
std::string markdown_text(const std::string& text);

/// markdown_text, but each `code span` of `text` (a backtick and the next one) stays a code span:
/// its words as they are, so that a command to copy reads as one ("`crossover compare A B`"). A
/// backtick with none after it is escaped as markdown_text escapes it.
std::string markdown_with_code(const std::string& text);

/// GitHub-flavoured Markdown, every header and cell through markdown_text.
std::string render_markdown_table(const TextTable& table);

/// Space-aligned text for a terminal, its notes under it.
std::string render_text_table(const TextTable& table);

/// Says a column's long or shared texts once: a text longer than `longest` characters, or one
/// longer than 12 that several rows share, becomes a mark in its rows ("[1]") and a note under
/// the table ("[1] 12 rows (6-11, 18-23): the text"), in the order first met. `ids` are the rows'
/// cell numbers, said in the notes as ranges (none where a row has no number).
void footnote_column(TextTable& table, std::size_t column, const std::vector<std::string>& ids,
                     std::size_t longest = 60);

}  // namespace crossover
