#include "reports/analysis/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/costmodel/cost_model.hpp"
#include "core/costmodel/prediction_band.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/analysis/pairing.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// A row holds the cells that pair across devices (pairing_key: the rule of every report).
Json setting_key(const Cell& cell) { return pairing_key(cell, "device"); }

// A cell's epoch in the table's measure, ± its interquartile range; in time, in its column's
// unit (the header says it), a predicted one without its band (the band has a column of its own).
std::string epoch_text(const Result& r, Measure measure, const TimeUnit& unit) {
  const bool time = measure == Measure::kTime;
  // The spread with two digits: it is itself a rough figure.
  const auto in_unit = [&](double value, int digits) {
    return time ? format_significant(value * unit.per_second, digits)
                : format_measure(value, measure);
  };
  if (r.status == CellStatus::kPredicted && time) return in_unit(r.epoch_seconds, 3);
  if (r.status != CellStatus::kOk) return text_of(r.status);
  return in_unit(r.epoch_seconds, 3) + " ± " +
         in_unit(r.epoch_seconds_p75 - r.epoch_seconds_p25, 2) +
         (r.energy.throttled ? " (throttled)" : "") +
         (r.data_source == DataSource::kSynthetic ? " (synthetic)" : "");
}

// A predicted cell's band in its column's unit: "0.833-2.53"; "-" without a validated one.
std::string band_text(const Result& r, const TimeUnit& unit) {
  const double factor = band_factor(r.prediction.prediction_error);
  if (r.status != CellStatus::kPredicted || factor == 1.0) return "-";
  return format_significant(r.epoch_seconds / factor * unit.per_second) + "-" +
         format_significant(r.epoch_seconds * factor * unit.per_second);
}

bool comparable(const Result* r) { return r != nullptr && comparable(*r); }

struct Row {
  Json key;
  std::map<std::string, const Result*> by_device;
};

}  // namespace

std::string ratio_text(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, x < 1.0 ? "%.2g" : "%.3g", x);
  return buffer;
}

std::optional<long> break_even_epochs(const Result& baseline, const Result& contender) {
  const double extra = (contender.startup_seconds + contender.first_epoch_seconds) -
                       (baseline.startup_seconds + baseline.first_epoch_seconds);
  const double saving = baseline.epoch_seconds - contender.epoch_seconds;    // per steady epoch
  if (!std::isfinite(extra) || !std::isfinite(saving)) return std::nullopt;  // no time to add up
  if (saving <= 0.0) {
    if (saving == 0.0 && extra < 0.0) return 1;
    return std::nullopt;  // slower per epoch: any lead from start-up is lost in the end
  }
  if (extra < 0.0) return 1;
  // S_c + F_c + (n-1) E_c < S_b + F_b + (n-1) E_b  <=>  n > 1 + extra / saving.
  const double epochs = std::floor(1.0 + extra / saving) + 1.0;
  // Past what a long can count, the lead is never made up in any run.
  if (!(epochs < static_cast<double>(std::numeric_limits<long>::max()))) return std::nullopt;
  return static_cast<long>(epochs);
}

std::string device_column(const Cell& cell) {
  std::string column = cell.device.text();
  if (!cell.device.is_cuda()) return column;
  if (cell.gpus > 1) column += " x" + std::to_string(cell.gpus);
  if (cell.loader == Loader::kTensor && cell.data_placement == Placement::kHost) column += " @host";
  if (cell.execution != Execution::kEager) column += " " + text_of(cell.execution);
  return column;
}

namespace {

bool predicted_column(const std::string& column) {
  return column.find(" (predicted") != std::string::npos;
}

// The cells after the device columns of one row: per device its speedup over the CPU and break
// even, then the winner, by the one rule of every report (compare_pair): the fastest device wins
// when its speedup interval against the CPU lies above 1; the CPU wins when every other device's
// lies below 1; anything else is a tie.
void speedup_cells(const Row& row, const std::vector<std::string>& devices, bool break_even,
                   std::vector<std::string>& cells) {
  const auto cpu = row.by_device.find(devices.front());
  const Result* baseline =
      cpu != row.by_device.end() && comparable(cpu->second) ? cpu->second : nullptr;
  const Result* fastest = baseline;
  std::optional<Pair> fastest_pair;
  bool cpu_beats_all = baseline != nullptr;
  bool any_predicted = false;  // a pair of the row has a predicted side
  bool all_same = true;        // every pair's interval lies within the equivalence margin
  std::size_t contenders = 0;
  for (std::size_t i = 1; i < devices.size(); ++i) {
    const auto it = row.by_device.find(devices[i]);
    const Result* other =
        it != row.by_device.end() && comparable(it->second) ? it->second : nullptr;
    // A predicted device has no start-up to pay back: no break-even column.
    const bool even = break_even && !predicted_column(devices[i]);
    if (baseline == nullptr || other == nullptr) {
      cells.push_back("-");
      if (even) cells.push_back("-");
      continue;
    }
    ++contenders;
    const Pair pair = compare_pair(*baseline, *other);
    any_predicted = any_predicted || pair.predicted;
    all_same = all_same && within_margin(pair.ci);
    cells.push_back(ratio_text(pair.speedup) + "x [" + ratio_text(pair.ci.low) + ", " +
                    ratio_text(pair.ci.high) + "]");
    const auto epochs = break_even_epochs(*baseline, *other);
    if (even) {
      cells.push_back(pair.predicted ? "-"
                      : epochs ? std::to_string(*epochs) + (*epochs == 1 ? " epoch" : " epochs")
                               : "never");
    }
    if (pair.winner != Winner::kBaseline) cpu_beats_all = false;
    if (other->epoch_seconds < fastest->epoch_seconds) {
      fastest = other;
      fastest_pair = pair;
    }
  }
  if (devices.size() <= 1) return;
  std::string winner = "-";
  if (contenders > 0) {
    const auto column_of = [&](const Result* r) {
      for (const auto& [column, result] : row.by_device)
        if (result == r) return column;
      return device_column(r->cell);
    };
    // A predicted device's column already says so; the CPU's win over a prediction does not.
    const std::string mark = any_predicted ? " (predicted)" : "";
    if (fastest_pair && fastest_pair->winner == Winner::kContender) {
      winner = column_of(fastest);
      if (!predicted_column(winner)) winner += mark;
    } else if (cpu_beats_all) {
      winner = devices.front() + mark;
    } else if (all_same) {
      winner = "same (±5 %)";  // the table's legend says what each word means
    } else {
      winner = any_predicted ? "undecided" : "tie";
    }
  }
  cells.push_back(winner);
}

// One workload's rows (cells equal in every setting but the device) and its device columns, the
// CPU first: it is the baseline of every speedup. Results of several machines (`report` of
// several labelled runs) get a column per machine and device ("cuda on h100-node"), the first
// machine's CPU the baseline: the H100 node's GPU against the CPU node's CPU.
std::vector<Row> device_rows(const std::vector<Result>& results, const std::string& workload,
                             bool machines_apart, std::vector<std::string>& devices) {
  std::vector<Row> rows;
  std::vector<std::string> hosts;
  for (const auto& r : results) {
    if (r.cell.workload == workload &&
        std::find(hosts.begin(), hosts.end(), r.cell.host) == hosts.end())
      hosts.push_back(r.cell.host);
  }
  const bool machines = machines_apart && hosts.size() > 1;
  // A predicted column names its profile only where several profiles predicted (the legend
  // below the tables names it): the terminal's table stays narrow.
  std::set<std::string> profiles;
  for (const auto& r : results)
    if (r.status == CellStatus::kPredicted) profiles.insert(r.prediction.prediction_profile);
  // A predicted CUDA cell is made once for every thread count, and a graph cell's optimizer_impl
  // is forced: after every cell has its row, such a cell also joins each row that has a measured
  // cell, lacks its column and differs from it only there (pair_results' loose match).
  std::vector<std::pair<const Result*, std::string>> loose;
  for (const auto& r : results) {
    if (r.cell.workload != workload) continue;
    const std::string column =
        device_column(r.cell) + (machines ? " on " + r.cell.host : "") +
        (r.status != CellStatus::kPredicted ? ""
         : profiles.size() > 1 ? " (predicted: " + r.prediction.prediction_profile + ")"
                               : " (predicted)");
    if (std::find(devices.begin(), devices.end(), column) == devices.end())
      devices.push_back(column);
    Json key = setting_key(r.cell);
    key.erase("host");  // a column's name says the machine, where machines are apart
    auto row = std::find_if(rows.begin(), rows.end(), [&](const Row& x) { return x.key == key; });
    if (row == rows.end()) {
      rows.push_back({key, {}});
      row = rows.end() - 1;
    }
    row->by_device.emplace(column, &r);  // a cell measured twice: the first one
    if (r.status == CellStatus::kPredicted || !cuda_keys_at_defaults(r.cell))
      loose.emplace_back(&r, column);
  }
  // Whether a row holds a measured cell other than `r`.
  const auto measured = [](const Row& row, const Result* r) {
    return std::any_of(row.by_device.begin(), row.by_device.end(), [&](const auto& e) {
      return e.second != r && comparable(e.second) && e.second->status == CellStatus::kOk;
    });
  };
  std::set<const Result*> joined;
  for (const auto& [r, column] : loose) {
    Json key = setting_key(r->cell);
    key.erase("host");
    const auto own =
        std::find_if(rows.begin(), rows.end(), [&](const Row& x) { return x.key == key; });
    const bool host = r->status == CellStatus::kPredicted;
    const bool forced = !cuda_keys_at_defaults(r->cell) && own != rows.end() && !measured(*own, r);
    for (Row& row : rows) {
      if (!measured(row, r) || row.by_device.count(column) > 0) continue;
      if ((host && loosened(row.key, true, false) == loosened(key, true, false)) ||
          (forced && loosened(row.key, host, true) == loosened(key, host, true))) {
        row.by_device.emplace(column, r);
        joined.insert(r);
      }
    }
  }
  // A row left with only cells that joined others says nothing more.
  rows.erase(std::remove_if(rows.begin(), rows.end(),
                            [&](const Row& row) {
                              return std::all_of(
                                  row.by_device.begin(), row.by_device.end(),
                                  [&](const auto& e) { return joined.count(e.second) > 0; });
                            }),
             rows.end());
  std::stable_sort(devices.begin(), devices.end(), [](const std::string& a, const std::string& b) {
    return device_kind(a) == DeviceKind::kCpu && device_kind(b) != DeviceKind::kCpu;
  });
  return rows;
}

// The keys that vary within a workload's rows; the rest are the same everywhere.
std::vector<std::string> varying_keys(const std::vector<Row>& rows) {
  std::vector<nlohmann::ordered_json> keys;
  for (const auto& row : rows) keys.push_back(row.key);
  std::vector<std::string> varying = differing_keys(keys);
  if (varying.empty()) varying = {"batch_size", "dataset_size"};
  return varying;
}

// Rows in ascending order of the numbers among the keys that vary, the first key first (a
// search's probes come in the order they were probed); text values ("full", "bf16") keep their
// order.
void sort_along_numbers(std::vector<Row>& rows, const std::vector<std::string>& varying) {
  const auto numbers = [&](const Row& row) {
    std::vector<std::pair<int, double>> out;
    for (const auto& key : varying) {
      const Json& v = row.key.contains(key) ? row.key[key] : Json();
      out.emplace_back(v.is_number() ? 1 : 0, v.is_number() ? v.get<double>() : 0.0);
    }
    return out;
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const Row& a, const Row& b) { return numbers(a) < numbers(b); });
}

// One unit for a device's column: the one its medians read shortest in.
TimeUnit column_unit(const std::vector<Row>& rows, const std::string& device) {
  std::vector<double> seconds;
  for (const Row& row : rows) {
    const auto it = row.by_device.find(device);
    if (it == row.by_device.end() || !comparable(it->second)) continue;
    seconds.push_back(it->second->epoch_seconds);  // the spreads follow, with two digits
  }
  return time_unit_for(seconds);
}

// A device column's header: "cpu ms", "cuda ms" over "(predicted)"; in another measure "cpu
// energy".
std::string epoch_header(const std::string& device, Measure measure, const TimeUnit& unit) {
  if (measure != Measure::kTime) return device + " " + text_of(measure);
  const auto mark = device.find(" (predicted");
  if (mark == std::string::npos) return device + " " + unit.name;
  return device.substr(0, mark) + " " + unit.name + "\n" + device.substr(mark + 1);
}

}  // namespace

std::vector<Comparison> compare_devices(const std::vector<Result>& results, Measure measure,
                                        bool machines_apart) {
  std::vector<std::string> workloads;
  for (const auto& r : results) {
    if (std::find(workloads.begin(), workloads.end(), r.cell.workload) == workloads.end()) {
      workloads.push_back(r.cell.workload);
    }
  }
  std::vector<Comparison> out;
  for (const auto& workload : workloads) {
    std::vector<std::string> devices;
    std::vector<Row> rows = device_rows(results, workload, machines_apart, devices);
    const std::vector<std::string> varying = varying_keys(rows);
    sort_along_numbers(rows, varying);
    Comparison comparison;
    comparison.workload = workload;
    TextTable& table = comparison.table;
    table.header = varying;
    // Time: the epoch in one unit per column and the speedup; energy or cost: the epoch's joules
    // or money and their ratio, without the break even (start-up is measured in time only).
    const bool time = measure == Measure::kTime;
    std::vector<TimeUnit> units;
    for (const auto& d : devices) {
      units.push_back(column_unit(rows, d));
      table.header.push_back(epoch_header(d, measure, units.back()));
      if (time && predicted_column(d))
        table.header.push_back(std::to_string(std::lround(100.0 * kBandCoverage)) + " % band");
    }
    const bool has_baseline = !devices.empty() && device_kind(devices.front()) == DeviceKind::kCpu;
    for (std::size_t i = has_baseline ? 1 : devices.size(); i < devices.size(); ++i) {
      const std::string name =
          devices[i].size() > 12 && devices[i].substr(devices[i].size() - 12) == " (predicted)"
              ? devices[i].substr(0, devices[i].size() - 12)
              : devices[i];
      table.header.push_back((time ? "speedup\n" : "ratio\n") + name);
      if (time && !predicted_column(devices[i])) table.header.push_back(name + "\nwins after");
    }
    if (has_baseline && devices.size() > 1) table.header.push_back("winner");
    table.right_aligned.assign(table.header.size(), true);
    for (const auto& row : rows) {
      std::vector<std::string> cells;
      for (const auto& key : varying) {
        const Json& v = row.key[key];
        cells.push_back(v.is_string() ? v.get<std::string>() : v.dump());
      }
      for (std::size_t i = 0; i < devices.size(); ++i) {
        const auto it = row.by_device.find(devices[i]);
        cells.push_back(it == row.by_device.end() ? ""
                                                  : epoch_text(*it->second, measure, units[i]));
        if (time && predicted_column(devices[i]))
          cells.push_back(it == row.by_device.end() ? "" : band_text(*it->second, units[i]));
      }
      if (has_baseline) speedup_cells(row, devices, time, cells);
      table.rows.push_back(cells);
    }
    out.push_back(std::move(comparison));
  }
  return out;
}

}  // namespace crossover
