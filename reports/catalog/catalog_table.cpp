#include "reports/catalog/catalog_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <sstream>

#include "core/cells/cell.hpp"
#include "core/text/text.hpp"
#include "reports/render/table_writer.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// Three significant digits: what a predicted figure with a band of x1.9 carries ("0.0521", "412").
std::string three(double value) {
  if (!std::isfinite(value)) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, value >= 999.5 && value < 1e7 ? "%.0f" : "%.3g", value);
  return buffer;
}

// Two: a band's ends.
std::string two(double value) {
  if (!std::isfinite(value)) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, value >= 99.5 ? "%.0f" : "%.2g", value);
  return buffer;
}

// A cost per 1,000 epochs for people: "0.0521", "1.23", "412".
std::string money(double amount) { return amount > 0.0 ? three(amount) : "-"; }

// What 1,000 epochs cost at `price` per hour: the unit every cost is printed in.
double thousand_epochs(double price, double epoch_seconds) {
  return price * epoch_seconds * 1000.0 / 3600.0;
}

// A predicted epoch's band as a factor (1: none).
double band_of(const Row& row) { return 1.0 + std::max(row.gpu.prediction.prediction_error, 0.0); }

// The GPUs of one cell that tie with the best on `figure` (epoch or cost): tied_with_lowest.
std::vector<const Row*> tied_best(const std::vector<const Row*>& rows,
                                  double (*figure)(const Row&)) {
  std::vector<double> values, bands;
  for (const Row* r : rows) {
    values.push_back(figure(*r));
    bands.push_back(band_of(*r));
  }
  std::vector<const Row*> out;
  for (const std::size_t i : tied_with_lowest(values, bands)) out.push_back(rows[i]);
  return out;
}

double epoch_of(const Row& r) { return r.gpu.epoch_seconds; }
double cost_of(const Row& r) {
  return r.price > 0.0 ? thousand_epochs(r.price, r.gpu.epoch_seconds) : 0.0;
}

// What sets a row's CUDA cell apart from its CPU twin, in its label's words ("graph", "bf16",
// "pinned"): eager and graph rows of one GPU are told apart by it.
std::string cuda_settings(const Row& r) {
  std::istringstream cpu_words(cell_label(r.cpu.cell)), gpu_words(cell_label(r.gpu.cell));
  std::vector<std::string> cpu{std::istream_iterator<std::string>(cpu_words), {}};
  std::vector<std::string> extra;
  for (std::istream_iterator<std::string> w(gpu_words), end; w != end; ++w)
    if (parse_word<DeviceKind>(*w) != DeviceKind::kCuda &&
        std::find(cpu.begin(), cpu.end(), *w) == cpu.end())
      extra.push_back(*w);
  return join(extra, " ");
}

std::string names_of(const std::vector<const Row*>& rows) {
  std::vector<std::string> names;
  for (const Row* r : rows) names.push_back(r->card->name);
  return join(names);
}

// "86.2x [46.4-159]": a speedup and its interval, three digits each.
std::string short_speedup(const Pair& p) {
  return three(p.speedup) + "x [" + two(p.ci.low) + "-" + two(p.ci.high) + "]";
}

// "23.2-69.9 ms", "835 us-2.52 ms": a band's ends, the unit said once where they share it.
std::string range_text(double low, double high) {
  const std::string a = format_seconds(low), b = format_seconds(high);
  const auto unit = [](const std::string& t) { return t.substr(t.find_last_of(' ') + 1); };
  if (a.find(' ') != std::string::npos && b.find(' ') != std::string::npos && unit(a) == unit(b))
    return a.substr(0, a.find_last_of(' ')) + "-" + b;
  return a + "-" + b;
}

// The cell's verdict among the GPUs: the fastest, or every GPU that ties with it; with prices the
// cheapest likewise, and against this CPU's cost. Each decided only where the bands exclude a tie.
std::string gpus_verdict(const std::vector<const Row*>& rows, double cpu_price) {
  const std::vector<const Row*> fastest = tied_best(rows, epoch_of);
  std::string text =
      fastest.size() == 1
          ? "fastest GPU: " + fastest.front()->card->name + " (predicted)"
          : "fastest GPU: a tie between " + names_of(fastest) + " (their bands overlap)";
  const std::vector<const Row*> cheapest = tied_best(rows, cost_of);
  if (cheapest.empty()) return text;
  text += cheapest.size() == 1 ? "; cheapest: " + cheapest.front()->card->name
                               : "; cheapest: a tie between " + names_of(cheapest);
  if (cpu_price > 0.0) {
    // Against this CPU's cost, measured: decided only where the cheapest GPU's band is clear of it.
    const Row& best = *cheapest.front();
    const double cpu_cost = thousand_epochs(cpu_price, best.cpu.epoch_seconds);
    const int side = banded_order(cost_of(best), band_of(best), cpu_cost, 1.0);
    text += side < 0   ? "; cheaper than this CPU (" + money(cpu_cost) + ", measured)"
            : side > 0 ? "; dearer than this CPU (" + money(cpu_cost) + ", measured)"
                       : "; a tie on cost with this CPU (" + money(cpu_cost) + ", measured)";
  }
  return text;
}

// The GPUs of a cell tie on a dispatch-bound step: what bounds it is the host's, alike for all.
bool host_bound(const std::vector<const Row*>& rows) {
  return !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const Row* r) {
    return r->gpu.prediction.bound == Bound::kDispatch || r->gpu.prediction.bound == Bound::kLoader;
  });
}

// A table within 100 columns, whatever its figures: past it, the band's column goes (each GPU's
// band is the same factor, said once under the tables), then the bound's.
void fit_columns(TextTable& table) {
  constexpr std::size_t kColumns = 100;
  const auto widest = [&] {
    std::size_t most = 0;
    std::istringstream lines(render_text_table(table));
    for (std::string line; std::getline(lines, line);) most = std::max(most, line.size());
    return most;
  };
  for (const char* column : {"80 % band", "bound"}) {
    if (widest() <= kColumns) return;
    const auto at = std::find(table.header.begin(), table.header.end(), column);
    if (at == table.header.end()) continue;
    const auto i = static_cast<std::size_t>(at - table.header.begin());
    table.header.erase(at);
    for (auto& row : table.rows) row.erase(row.begin() + static_cast<std::ptrdiff_t>(i));
    if (i < table.right_aligned.size())
      table.right_aligned.erase(table.right_aligned.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace

Json row_json(const Row& row, double cpu_price, std::size_t order) {
  const double band = band_of(row);
  Json j = {{"gpu", row.card->name},
            {"gpu_name", row.card->gpu},
            {"cuda_settings", cuda_settings(row)},
            {"status", "predicted"},
            {"source", "datasheet"},
            {"profile", row.gpu.prediction.prediction_profile},
            {"cell", row.cpu.cell.index + 1},
            {"cell_label", cell_label(row.cpu.cell)},
            {"catalog_order", order},
            {"cpu_epoch_seconds", row.cpu.epoch_seconds},
            {"cpu_status", "ok"},
            {"gpu_epoch_seconds", row.gpu.epoch_seconds},
            {"gpu_epoch_seconds_low", row.gpu.epoch_seconds / band},
            {"gpu_epoch_seconds_high", row.gpu.epoch_seconds * band},
            {"band_factor", band},
            {"bound", text_of(row.gpu.prediction.bound)},
            {"speedup", row.pair.speedup},
            {"speedup_low", row.pair.ci.low},
            {"speedup_high", row.pair.ci.high},
            {"winner", winner_text(row.pair, CompareSpec{})}};
  if (row.price > 0.0) {
    const double cost = thousand_epochs(row.price, row.gpu.epoch_seconds);
    j["price_per_hour"] = row.price;
    j["gpu_cost_per_1000_epochs"] = cost;
    j["gpu_cost_per_1000_epochs_low"] = cost / band;
    j["gpu_cost_per_1000_epochs_high"] = cost * band;
  } else {
    j["price_per_hour"] = nullptr;
    j["gpu_cost_per_1000_epochs"] = nullptr;
  }
  j["cpu_cost_per_1000_epochs"] =
      cpu_price > 0.0 ? Json(thousand_epochs(cpu_price, row.cpu.epoch_seconds)) : Json(nullptr);
  return j;
}

std::vector<CellTable> catalog_tables(std::vector<Row>& rows,
                                      const std::map<std::string, double>& prices,
                                      const std::vector<const Datasheet*>& order) {
  const auto rank = [&](const Row& r) {
    return std::find(order.begin(), order.end(), r.card) - order.begin();
  };
  // A cell's rows by its CUDA twins' settings (eager, then graph ...), each in the catalog's order.
  std::vector<std::string> settings_order;
  for (const Row& r : rows)
    if (std::find(settings_order.begin(), settings_order.end(), cuda_settings(r)) ==
        settings_order.end())
      settings_order.push_back(cuda_settings(r));
  const auto variant = [&](const Row& r) {
    return std::find(settings_order.begin(), settings_order.end(), cuda_settings(r)) -
           settings_order.begin();
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (a.cpu.cell.index != b.cpu.cell.index) return a.cpu.cell.index < b.cpu.cell.index;
    if (variant(a) != variant(b)) return variant(a) < variant(b);
    return rank(a) < rank(b);
  });
  const auto same_table = [&](const Row& a, const Row& b) {
    return a.cpu.cell.index == b.cpu.cell.index && variant(a) == variant(b);
  };
  const double cpu_price = prices.count("cpu") ? prices.at("cpu") : 0.0;
  std::vector<CellTable> out;
  for (std::size_t i = 0; i < rows.size();) {
    std::vector<const Row*> cell;
    for (std::size_t j = i; j < rows.size() && same_table(rows[j], rows[i]); ++j)
      cell.push_back(&rows[j]);
    i += cell.size();
    CellTable t;
    const Result& cpu = cell.front()->cpu;
    const std::string settings = cuda_settings(*cell.front());
    t.heading = "Cell " + std::to_string(cpu.cell.index) + ": " + cell_label(cpu.cell) + "; CPU " +
                format_seconds(cpu.epoch_seconds) + " an epoch (measured here)" +
                (settings.empty() ? "" : "; its CUDA twins " + settings);
    t.table.header = {"GPU", "epoch", "80 % band", "bound", "speedup vs CPU", "winner"};
    t.table.right_aligned = {false, true, true, false, true, false, true};
    if (!prices.empty()) t.table.header.push_back("cost/1k epochs");
    for (const Row* r : cell) {
      const double band = band_of(*r);
      std::vector<std::string> line = {
          r->card->name,
          format_seconds(r->gpu.epoch_seconds),
          band > 1.0 ? range_text(r->gpu.epoch_seconds / band, r->gpu.epoch_seconds * band)
                     : "none",
          text_of(r->gpu.prediction.bound),
          short_speedup(r->pair),
          r->pair.winner == Winner::kContender  ? "GPU"
          : r->pair.winner == Winner::kBaseline ? "CPU"
                                                : "undecided"};
      if (!prices.empty())
        line.push_back(r->price > 0.0 ? two(cost_of(*r)) + " (" + two(cost_of(*r) / band) + "-" +
                                            two(cost_of(*r) * band) + ")"
                                      : "no price");
      t.table.rows.push_back(line);
    }
    fit_columns(t.table);
    t.verdict = gpus_verdict(cell, cpu_price);
    if (host_bound(cell))
      t.verdict +=
          ". The step is the host's (dispatch or loader bound on every card): the same "
          "host CPU runs it whichever GPU is under it, so the GPUs tie";
    out.push_back(std::move(t));
  }
  return out;
}

// The bands, each said once with the GPUs it covers; the architectures no measured card has,
// once with theirs.
std::vector<std::string> band_lines(
    const std::vector<std::pair<const Datasheet*, Validation>>& bands) {
  constexpr const char* kUnchecked = "; this card's architecture (";
  std::vector<std::pair<std::string, std::vector<std::string>>> grouped, unchecked;
  const auto add = [](auto& groups, const std::string& key, const std::string& card) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end())
      groups.push_back({key, {card}});
    else
      it->second.push_back(card);
  };
  for (const auto& [card, v] : bands) {
    Validation common = v;
    if (const auto at = common.note.find(kUnchecked); at != std::string::npos) {
      common.note.erase(at);
      add(unchecked, card->architecture, card->name);
    }
    const std::string factor =
        common.band.factor > 1.0 ? "x" + three(common.band.factor) + " each way: " : "";
    add(grouped, factor + band_validation_text(common), card->name);
  }
  std::vector<std::string> out;
  for (const auto& [text, cards] : grouped) out.push_back(join(cards) + ": " + text);
  std::vector<std::string> never;
  for (const auto& [architecture, cards] : unchecked)
    never.push_back(architecture + " (" + join(cards) + ")");
  if (!never.empty())
    out.push_back("never checked on " + join(never) + ": no card of theirs was measured");
  return out;
}

// The prices used, with their unit and what they are.
std::string prices_line(const std::map<std::string, double>& prices, bool examples,
                        const std::vector<std::string>& given, const std::string& about) {
  if (prices.empty()) return "";
  std::vector<std::string> each;
  for (const auto& [name, price] : prices) each.push_back(name + " " + format_number(price));
  const std::string unit = examples && given.empty() ? "US dollars per hour" : "per hour";
  std::string text = "Prices used (" + unit + "): " + join(each) +
                     ". Costs are per 1,000 epochs, " +
                     "in the prices' currency, and predicted with the epoch's band";
  if (examples) text += ". Example prices, not quotes: " + about;
  return text;
}

// The terminal's text, or --markdown's (every text from data through markdown_text).
std::string catalog_text(const std::vector<CellTable>& tables, const std::string& intro,
                         const std::vector<std::string>& bands, const std::string& prices_note,
                         bool markdown) {
  const auto line = [markdown](const std::string& text) {
    return (markdown ? "- " + markdown_text(text) : "  " + text) + "\n";
  };
  std::string out =
      markdown ? "## Which GPU: predicted from datasheets\n\n" + markdown_text(intro) + "\n"
               : intro + "\n";
  // A verdict several cells share is said once, after their tables, with the cells it covers.
  std::vector<std::pair<std::string, std::vector<std::string>>> shared;
  for (const CellTable& t : tables) {
    auto it = std::find_if(shared.begin(), shared.end(),
                           [&](const auto& v) { return v.first == t.verdict; });
    if (it == shared.end()) it = shared.insert(shared.end(), {t.verdict, {}});
    it->second.push_back(t.heading.substr(5, t.heading.find(':') - 5));  // "Cell 3: ..." -> "3"
  }
  const auto once = [&](const std::string& verdict) {
    return std::find_if(shared.begin(), shared.end(), [&](const auto& v) {
             return v.first == verdict;
           })->second.size() == 1;
  };
  for (const CellTable& t : tables) {
    const std::string verdict = once(t.verdict) ? t.verdict + ".\n" : "";
    out += markdown
               ? "\n### " + markdown_text(t.heading) + "\n\n" + render_markdown_table(t.table) +
                     (verdict.empty() ? "" : "\n" + markdown_text(verdict))
               : "\n" + t.heading + "\n" + render_text_table(t.table) + verdict;
  }
  for (const auto& [verdict, cells] : shared) {
    if (cells.size() == 1) continue;
    const std::string text = "Cells " +
                             join(std::vector<std::string>(cells.begin(), cells.end() - 1)) +
                             " and " + cells.back() + ": " + verdict + ".";
    out += "\n" + (markdown ? markdown_text(text) : text) + "\n";
  }
  out += std::string("\nBands (80 %, predicted):\n") + (markdown ? "\n" : "");
  for (const std::string& text : bands) out += line(text);
  if (!prices_note.empty())
    out += "\n" + (markdown ? markdown_text(prices_note) : prices_note) + ".\n";
  return out;
}

}  // namespace crossover
