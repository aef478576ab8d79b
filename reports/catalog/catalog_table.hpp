#pragma once
// crossover catalog's tables (runner/commands/catalog_command.cpp): per CPU cell measured here
// and kind of CUDA twin, each GPU's predicted epoch with its band, its bound, the speedup against
// this CPU and the winner, and with prices the cost per 1,000 epochs; under each, the verdict among
// the GPUs, decided only where the bands exclude a tie (banded_order,
// reports/analysis/pairing.hpp); then the bands and the prices, each said once. Every GPU figure is
// a prediction and says so.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/costmodel/datasheet.hpp"
#include "core/records/results.hpp"
#include "reports/analysis/pairing.hpp"
#include "reports/analysis/text_table.hpp"

namespace crossover {

// One GPU's prediction of one CPU cell's pair.
struct Row {
  const Datasheet* card = nullptr;
  Result cpu, gpu;
  Pair pair;  ///< its speedup, interval and winner (its cell pointers cleared: `cpu`, `gpu`)
  double price = 0.0;  ///< the GPU's per hour; 0: none
};

/// A row as --json writes it; `order` is its GPU's place in the catalog.
nlohmann::ordered_json row_json(const Row& row, double cpu_price, std::size_t order);

/// One table a cell and kind of CUDA twin.
struct CellTable {
  std::string heading;  ///< "Cell 3: cifar_resnet18 ...; CPU 12.3 s an epoch (measured here)"
  TextTable table;
  std::string verdict;  ///< the fastest GPU or every one tied with it; the cheapest likewise
};

/// The tables of `rows` (sorted here: by cell, kind of CUDA twin, then the GPUs in `order`), with
/// `prices` per hour by GPU name and "cpu".
std::vector<CellTable> catalog_tables(std::vector<Row>& rows,
                                      const std::map<std::string, double>& prices,
                                      const std::vector<const Datasheet*>& order);

/// The bands, each said once with the GPUs it covers, and the architectures never measured.
std::vector<std::string> band_lines(
    const std::vector<std::pair<const Datasheet*, Validation>>& bands);

/// "Prices used (US dollars per hour): ...": the prices, their unit and what they are; "" for none.
std::string prices_line(const std::map<std::string, double>& prices, bool examples,
                        const std::vector<std::string>& given, const std::string& about);

/// The terminal's text, or --markdown's (every text from data through markdown_text).
std::string catalog_text(const std::vector<CellTable>& tables, const std::string& intro,
                         const std::vector<std::string>& bands, const std::string& prices_note,
                         bool markdown);

}  // namespace crossover
