#include "runner/results.hpp"

#include <stdexcept>

#include "reports/report_csv.hpp"

namespace crossover {
namespace {

std::int64_t size_from_json(const nlohmann::json& value) {
  return value.is_string() ? kFull : value.get<std::int64_t>();
}

}  // namespace

nlohmann::ordered_json result_to_json(const Result& r) {
  nlohmann::ordered_json j;
  j["cell"] = r.cell.index;  // its place in the grid: reports cite cells by it
  j.update(cell_config_json(r.cell));
#define CROSSOVER_WRITE_FIELD(type, name) j[#name] = r.name;
  CROSSOVER_RESULT_FIELDS(CROSSOVER_WRITE_FIELD)
#undef CROSSOVER_WRITE_FIELD
  return j;
}

Result result_from_json(const nlohmann::json& j) {
  Result r;
  Cell& c = r.cell;
  c.index = j.at("cell").get<std::size_t>();
  c.workload = j.at("workload").get<std::string>();
  c.dataset = j.at("dataset").get<std::string>();
  c.device = j.at("device").get<std::string>();
  c.batch_size = size_from_json(j.at("batch_size"));
  c.dataset_size = size_from_json(j.at("dataset_size"));
  c.loader = j.at("loader").get<std::string>();
  c.data_placement = j.at("data_placement").get<std::string>();
  c.num_workers = j.at("num_workers").get<int>();
  c.pin_memory = j.at("pin_memory").get<bool>();
  c.gpus = j.at("gpus").get<int>();
  c.threads = j.at("threads").get<int>();
  c.epochs = j.at("epochs").get<int>();
  c.warmup_epochs = j.at("warmup_epochs").get<int>();
  c.min_repeats = j.at("min_repeats").get<int>();
  c.max_repeats = j.at("max_repeats").get<int>();
  c.time_budget_seconds = j.at("time_budget_seconds").get<double>();
  c.ci_target = j.at("ci_target").get<double>();
  c.timing = j.at("timing").get<std::string>();
  c.deterministic = j.at("deterministic").get<bool>();
  c.seed = j.at("seed").get<std::int64_t>();
  c.optimizer = j.at("optimizer").get<std::string>();
  c.lr = j.at("lr").get<double>();
  c.momentum = j.at("momentum").get<double>();
#define CROSSOVER_READ_FIELD(type, name) r.name = j.at(#name).get<type>();
  CROSSOVER_RESULT_FIELDS(CROSSOVER_READ_FIELD)
#undef CROSSOVER_READ_FIELD
  return r;
}

std::vector<Result> read_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the results file");
  std::vector<Result> results;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    try {
      results.push_back(result_from_json(nlohmann::json::parse(line)));
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": not a result line: " + e.what());
    }
  }
  return results;
}

ResultFiles::ResultFiles(const std::string& directory)
    : jsonl_(directory + "/results.jsonl", std::ios::trunc),
      csv_(directory + "/results.csv", std::ios::trunc) {
  if (!jsonl_ || !csv_) {
    throw std::runtime_error(directory + ": cannot create results.jsonl and results.csv there");
  }
  csv_ << csv_header() << std::flush;
}

void ResultFiles::append(const Result& result) {
  jsonl_ << result_to_json(result).dump() << '\n' << std::flush;
  csv_ << csv_row(result) << std::flush;
  if (!jsonl_ || !csv_) throw std::runtime_error("writing a result failed (is the disk full?)");
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.flush();
  if (!out) throw std::runtime_error(path + ": cannot write the file");
}

}  // namespace crossover
