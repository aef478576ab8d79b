// crossover catalog: "which GPU should I rent for this grid?" A grid's CPU cells run here
// (crossover run --predict, a child that stops with this command), then every catalogued GPU
// predicts its CUDA cells from its datasheet (core/costmodel/datasheet.hpp); the tables, verdicts
// and prices are reports/catalog/catalog_table's. Every GPU number is a prediction and says so.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "core/files/file_writer.hpp"
#include "core/files/run_files.hpp"
#include "core/records/prediction.hpp"
#include "core/records/prices.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/catalog/catalog_table.hpp"
#include "reports/render/table_writer.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/named_profiles.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/execution/launch.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

struct CatalogArgs {
  std::string input;                ///< a grid, or the folder of a run of one
  std::string out_dir;              ///< --out: where the grid's run goes
  std::vector<std::string> cards;   ///< --gpus: the catalog's GPUs to predict (default: all)
  std::vector<std::string> prices;  ///< --price NAME=PRICE_PER_HOUR
  bool example_prices = false;      ///< --example-prices
  std::string json;                 ///< --json FILE
  std::string markdown;             ///< --markdown FILE
};

// The run to read: the input folder, or the grid run into --out (its CUDA cells predicted with
// the first GPU; each GPU predicts them again below). "" (logged) when there is none, `failed`
// then the exit code: bad input (a grid that cannot run, or has no CUDA cell) or a failed run.
std::string run_of(const CatalogArgs& args, const std::string& first_card, int& failed) {
  failed = kExitBadInput;
  std::error_code error;
  if (fs::is_directory(args.input, error)) {
    // A run still running has not measured every cell yet: its table would be partial.
    or_exit<std::runtime_error>(
        kExitBadInput, [&] { const ReadingLock running(args.input); }, "",
        ": give it to catalog when it ends");
    return args.input;
  }
  // A grid without a CUDA cell has nothing to predict: said before anything runs.
  const auto loaded = load_and_expand(args.input);
  if (!loaded) return "";
  const auto& cells = loaded->second.cells;
  if (std::none_of(cells.begin(), cells.end(),
                   [](const Cell& c) { return c.device.kind == DeviceKind::kCuda; })) {
    spdlog::error(
        "{}: no CUDA cell to predict on the catalog's GPUs; give the experiments "
        "\"device\": [\"cpu\", \"cuda\"]",
        args.input);
    return "";
  }
  const std::string out = args.out_dir.empty()
                              ? "runs/" + fs::path(args.input).stem().string() + "-catalog"
                              : args.out_dir;
  if (holds_run(out)) {
    spdlog::error("{} already holds a run; `crossover catalog {}` reads it, or give another --out",
                  out, out);
    return "";
  }
  const int code = run_program(
      {self_executable(), "run", args.input, "--predict", "cuda=" + first_card, "--out", out}, "",
      {});
  if (const int sig = interrupted.load(); sig > 0) {
    failed = 128 + sig;
    spdlog::error(
        "stopped by {}: the run in {} kept the cells it finished; `crossover run {} "
        "--predict cuda={} --out {} --resume` measures the rest, then `crossover "
        "catalog {}` reads it",
        sig == SIGTERM ? "SIGTERM" : "SIGINT", out, args.input, first_card, out, out);
    return "";
  }
  if (code != kExitOk) {
    failed = code == kExitBadInput ? kExitBadInput : kExitRunFailed;
    spdlog::error(
        "the run of {} ended with exit status {}: nothing to predict from (its folder: "
        "{}; a folder that already holds a run of the grid can be given in its place)",
        args.input, code, out);
    return "";
  }
  return out;
}

// --price and --example-prices: the price per hour by GPU name, and the CPU's ("cpu").
std::optional<std::map<std::string, double>> prices_of(const CatalogArgs& args,
                                                       const DatasheetCatalog& catalog) {
  std::map<std::string, double> prices;
  if (args.example_prices) prices = catalog.example_prices;
  for (const std::string& text : args.prices) {
    const auto equals = text.find('=');
    const std::string name = text.substr(0, equals);
    double value = 0.0;
    // The one reader of a price (core/records/prices.hpp), as run --price reads one.
    const Found wrong = problem_of<std::invalid_argument>([&] {
      if (equals != std::string::npos) value = price_per_hour(name, text.substr(equals + 1));
    });
    const std::string why = wrong ? ": " + wrong->text : "";
    if (equals == std::string::npos || wrong ||
        (parse_word<DeviceKind>(name) != DeviceKind::kCpu && !catalog.find(name))) {
      spdlog::error(
          "--price {}: expected NAME=PRICE_PER_HOUR, NAME cpu or a GPU of the catalog "
          "(crossover list), the price a decimal number from 1e-09 to 1e+09{}",
          terminal_text(text), terminal_text(why));
      return std::nullopt;
    }
    prices[name] = value;
  }
  return prices;
}

// Every CPU cell measured here against `card`'s prediction of its CUDA twin.
std::vector<Row> rows_of(const RunRecord& run, const Datasheet& card, const MachineProfile& profile,
                         double price) {
  std::vector<Result> cells;
  for (const Result& r : run.results) {
    if (r.cell.device.kind == DeviceKind::kCpu && r.status == CellStatus::kOk) cells.push_back(r);
    if (r.cell.device.kind != DeviceKind::kCuda || r.anatomy.empty()) continue;
    std::optional<Result> p = predicted_result(r, profile);
    if (!p) continue;
    // A prediction is held to a result's own ceilings, never a figure to print past them.
    if (const Found past = predicted_past_ceiling(*p)) {
      static std::set<std::size_t> warned;  // once a cell, whichever card found it
      if (warned.insert(r.cell.index).second)
        spdlog::warn("cell {} ({}) on {}: {}; not shown on any GPU", r.cell.index + 1,
                     cell_label(r.cell), card.name, past->text);
      continue;
    }
    p->status = CellStatus::kPredicted;
    p->epoch_seconds_samples.clear();
    cells.push_back(std::move(*p));
  }
  const Analysis analysis = analyse(cells, {CompareSpec{}});
  std::vector<Row> rows;
  for (const Pair& pair : analysis.comparisons.front().pairs)
    if (pair.contender->status == CellStatus::kPredicted)
      rows.push_back({&card, *pair.baseline, *pair.contender, pair, price});
  // The row holds its two cells: the pair's pointers into `cells` end here.
  for (Row& row : rows) row.pair.baseline = row.pair.contender = nullptr;
  return rows;
}

// The cards --gpus names (all without it); nullopt (logged) for a name the catalog lacks.
std::optional<std::vector<const Datasheet*>> chosen_cards(const CatalogArgs& args,
                                                          const DatasheetCatalog& catalog) {
  std::vector<const Datasheet*> cards;
  for (const Datasheet& card : catalog.cards)
    if (args.cards.empty() ||
        std::find(args.cards.begin(), args.cards.end(), card.name) != args.cards.end())
      cards.push_back(&card);
  for (const std::string& name : args.cards) {
    if (catalog.find(name)) continue;
    std::vector<std::string> names;
    for (const Datasheet& card : catalog.cards) names.push_back(card.name);
    const std::string guess = did_you_mean(name, names);
    spdlog::error("--gpus {}: not a GPU of the catalog{}; it has {}", terminal_text(name),
                  guess.empty() ? "" : " (did you mean " + guess + "?)", join(names));
    return std::nullopt;
  }
  return cards;
}

// Where --json and --markdown may not write (a run's file, the input); logged.
bool outputs_refused(const CatalogArgs& args) {
  for (const auto& [option, path] :
       {std::pair{"--json", args.json}, {"--markdown", args.markdown}}) {
    if (path.empty()) continue;
    if (const Found problem = output_file_problem(path, {args.input})) {
      spdlog::error("{} {}", option, problem->text);
      return true;
    }
  }
  return false;
}

// --json's and --markdown's files; a CommandError (kExitRunFailed) when one cannot be written.
int write_outputs(const CatalogArgs& args, const Json& report, const std::string& markdown) {
  or_exit(kExitRunFailed, [&] {
    if (!args.json.empty()) write_text_file(args.json, json_text(report, 2) + "\n");
    if (!args.markdown.empty()) write_text_file(args.markdown, markdown);
  });
  return kExitOk;
}

int catalog_command(const CatalogArgs& args) {
  const DatasheetCatalog catalog = or_exit(kExitBadInput, [] { return load_catalog(); });
  const std::vector<MeasuredCard> measured =
      or_exit(kExitBadInput, [&] { return measured_cards(catalog); });
  const auto cards = chosen_cards(args, catalog);
  const auto prices = prices_of(args, catalog);
  if (!cards || !prices || outputs_refused(args)) return kExitBadInput;
  int failed = kExitOk;
  const std::string run_dir = run_of(args, cards->front()->name, failed);
  if (run_dir.empty()) return failed;
  // Asked again now that the run's folder exists: --json or --markdown may name one of its files.
  if (outputs_refused(args)) {
    spdlog::error(
        "nothing of the catalog was written; the run measured is kept in {}: `crossover "
        "catalog {}` reads it again",
        run_dir, run_dir);
    return kExitBadInput;
  }
  std::vector<Row> rows;
  std::vector<std::pair<const Datasheet*, Validation>> bands;
  or_exit(kExitBadInput, [&] {
    const RunRecord run = load_run(run_dir);
    for (const Datasheet* card : *cards) {
      const MachineProfile profile = datasheet_profile(*card, measured, catalog);
      const auto v = profile.validation.find(DeviceKind::kCuda);
      bands.push_back({card, v == profile.validation.end() ? Validation{} : v->second});
      const double price = prices->count(card->name) ? prices->at(card->name) : 0.0;
      for (Row& row : rows_of(run, *card, profile, price)) rows.push_back(std::move(row));
    }
  });
  if (rows.empty()) {
    spdlog::error(
        "{}: no CPU cell measured there pairs with a CUDA cell whose anatomy the run "
        "recorded; give the grid itself, or a run of it made with --predict cuda=NAME",
        run_dir);
    return kExitBadInput;
  }
  const std::string prices_note =
      prices_line(*prices, args.example_prices, args.prices, catalog.example_prices_about);
  const double cpu_price = prices->count("cpu") ? prices->at("cpu") : 0.0;
  const std::vector<CellTable> table = catalog_tables(rows, *prices, *cards);
  Json report = {{"run", run_dir},
                 {"status", "predicted"},
                 {"source", "datasheet"},
                 {"catalog", catalog_file()},
                 {"prices_per_hour", *prices},
                 {"prices_are", args.example_prices ? "examples, not quotes" : "given"},
                 {"cost_unit", "per 1,000 epochs"},
                 {"rows", Json::array()},
                 {"cells", Json::array()}};
  for (const Row& row : rows)
    report["rows"].push_back(row_json(
        row, cpu_price, std::find(cards->begin(), cards->end(), row.card) - cards->begin()));
  for (const CellTable& t : table)
    report["cells"].push_back({{"heading", t.heading}, {"verdict", t.verdict}});
  const std::string intro =
      "Which GPU: every GPU figure below (epoch, band, bound, speedup, "
      "winner, cost) is predicted from the card's datasheet (" +
      catalog_file() +
      "), never measured; each CPU epoch was measured "
      "here, in " +
      run_dir + ".";
  const std::vector<std::string> band_text = band_lines(bands);
  std::cout << wrap_prose(catalog_text(table, intro, band_text, prices_note, false),
                          output_columns());
  return write_outputs(
      args, report,
      args.markdown.empty() ? "" : catalog_text(table, intro, band_text, prices_note, true));
}

}  // namespace

Command add_catalog_command(CLI::App& subcommand) {
  auto args = std::make_shared<CatalogArgs>();
  CLI::App* catalog = &subcommand;
  catalog
      ->add_option("input", args->input,
                   "The grid, or the folder of a run of it made with "
                   "run --predict cuda=NAME")
      ->required();
  add_output_option(*catalog, "--out", args->out_dir,
                    "Where the grid's run goes (default: runs/GRID-catalog)", OutputKind::kFolder);
  catalog->add_option("--gpus", args->cards, "The catalog's GPUs to predict (default: all)")
      ->delimiter(',');
  catalog
      ->add_option("--price", args->prices,
                   "NAME=PRICE_PER_HOUR, NAME cpu or a GPU of the catalog, in any currency; "
                   "give it again for more")
      ->allow_extra_args(false)
      ->take_all();
  catalog->add_flag("--example-prices", args->example_prices,
                    "Price the GPUs with the catalog's example prices (printed with the table; "
                    "examples, not quotes), --price overriding them");
  add_output_option(*catalog, "--json", args->json, "Also write the table as JSON to this file",
                    OutputKind::kFile);
  add_output_option(*catalog, "--markdown", args->markdown,
                    "Also write the table, the cheapest winners and the bands as Markdown to "
                    "this file, for a pull request",
                    OutputKind::kFile);
  return {catalog, [args] { return catalog_command(*args); }};
}

}  // namespace crossover
