// crossover keys: every grid key, its role, the values it takes and its default, from the one
// declaration of each (core/cells/keys.cpp).
#include <algorithm>
#include <iostream>
#include <memory>

#include "core/cells/keys.hpp"
#include "reports/render/table_writer.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"

namespace crossover {
namespace {

int keys_command(bool markdown) {
  if (markdown) {
    std::cout << key_table_markdown();
    return kExitOk;
  }
  TextTable table;
  table.header = {"key", "role", "values", "default"};
  for (const auto& key : grid_keys()) {
    if (!key.settable) continue;
    std::string fallback = default_text(key);
    fallback.erase(std::remove(fallback.begin(), fallback.end(), '`'), fallback.end());
    table.rows.push_back({key.name, text_of(key.role), key.expected, fallback});
  }
  std::cout << render_text_table(table)
            << "Roles: identity keys change what is measured, and pairs, tables and compare match "
               "cells on them; protection keys guard a cell; policy keys say how long and how "
               "often it is measured.\n";
  return kExitOk;
}

}  // namespace

Command add_keys_command(CLI::App& subcommand) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* keys = &subcommand;
  keys->add_flag("--markdown", *markdown, "Print the key table of docs/grids.md (Markdown)");
  return {keys, [markdown] { return keys_command(*markdown); }};
}

}  // namespace crossover
