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
  nlohmann::ordered_json j = cell_config_json(r.cell);
  j["status"] = r.status;
  j["reason"] = r.reason;
  j["data_source"] = r.data_source;
  j["train_rows"] = r.train_rows;
  j["test_rows"] = r.test_rows;
  j["steps_per_epoch"] = r.steps_per_epoch;
  j["epoch_samples"] = r.epoch_samples;
  j["epoch_seconds"] = r.epoch_seconds;
  j["epoch_seconds_p25"] = r.epoch_seconds_p25;
  j["epoch_seconds_p75"] = r.epoch_seconds_p75;
  j["epoch_seconds_mean"] = r.epoch_seconds_mean;
  j["epoch_seconds_min"] = r.epoch_seconds_min;
  j["epoch_seconds_max"] = r.epoch_seconds_max;
  j["train_seconds"] = r.train_seconds;
  j["train_seconds_samples"] = r.train_seconds_samples;
  j["steps_per_second"] = r.steps_per_second;
  j["samples_per_second"] = r.samples_per_second;
  j["train_loss"] = r.train_loss;
  j["metric"] = r.metric;
  j["metric_value"] = r.metric_value;
  j["flops_per_sample"] = r.flops_per_sample;
  j["intra_op_threads"] = r.intra_op_threads;
  j["blas_threads"] = r.blas_threads;
  j["wall_seconds"] = r.wall_seconds;
  return j;
}

Result result_from_json(const nlohmann::json& j) {
  Result r;
  Cell& c = r.cell;
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
  c.repeats = j.at("repeats").get<int>();
  c.seed = j.at("seed").get<std::int64_t>();
  c.optimizer = j.at("optimizer").get<std::string>();
  c.lr = j.at("lr").get<double>();
  c.momentum = j.at("momentum").get<double>();
  r.status = j.at("status").get<std::string>();
  r.reason = j.at("reason").get<std::string>();
  r.data_source = j.at("data_source").get<std::string>();
  r.train_rows = j.at("train_rows").get<std::int64_t>();
  r.test_rows = j.at("test_rows").get<std::int64_t>();
  r.steps_per_epoch = j.at("steps_per_epoch").get<std::int64_t>();
  r.epoch_samples = j.at("epoch_samples").get<std::size_t>();
  r.epoch_seconds = j.at("epoch_seconds").get<double>();
  r.epoch_seconds_p25 = j.at("epoch_seconds_p25").get<double>();
  r.epoch_seconds_p75 = j.at("epoch_seconds_p75").get<double>();
  r.epoch_seconds_mean = j.at("epoch_seconds_mean").get<double>();
  r.epoch_seconds_min = j.at("epoch_seconds_min").get<double>();
  r.epoch_seconds_max = j.at("epoch_seconds_max").get<double>();
  r.train_seconds = j.at("train_seconds").get<double>();
  r.train_seconds_samples = j.at("train_seconds_samples").get<std::vector<double>>();
  r.steps_per_second = j.at("steps_per_second").get<double>();
  r.samples_per_second = j.at("samples_per_second").get<double>();
  r.train_loss = j.at("train_loss").get<double>();
  r.metric = j.at("metric").get<std::string>();
  r.metric_value = j.at("metric_value").get<double>();
  r.flops_per_sample = j.at("flops_per_sample").get<double>();
  r.intra_op_threads = j.at("intra_op_threads").get<int>();
  r.blas_threads = j.at("blas_threads").get<int>();
  r.wall_seconds = j.at("wall_seconds").get<double>();
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
