#include "core/prices.hpp"

#include <cmath>
#include <stdexcept>

#include "core/text.hpp"

namespace crossover {
namespace {

// "cpu", "cuda", "cpu@HOST" or "cuda@HOST"; throws naming the key otherwise.
void check_price_key(const std::string& key) {
  const std::string kind = key.substr(0, key.find('@'));
  if ((kind != "cpu" && kind != "cuda") || key == kind + "@")
    throw std::invalid_argument("price \"" + key +
                                "\": name a device kind, \"cpu\" or \"cuda\", optionally with a "
                                "machine's label (\"cuda@gpu-node\")");
}

void check_price_value(const std::string& key, double value) {
  if (!(std::isfinite(value) && value >= 0.0 && value < 1e9))
    throw std::invalid_argument("price \"" + key + "\": got " + format_number(value) +
                                ", expected a price per hour from 0 (e.g. 2.50)");
}

std::string device_kind(const std::string& device) {
  return device.rfind("cuda", 0) == 0 ? "cuda" : device;
}

}  // namespace

void add_price(Prices& prices, const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos)
    throw std::invalid_argument("--price " + text + ": expected KIND=PRICE, e.g. cuda=2.50");
  const std::string key = text.substr(0, equals);
  check_price_key(key);
  double value = 0.0;
  std::size_t used = 0;
  try {
    value = std::stod(text.substr(equals + 1), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() - equals - 1)
    throw std::invalid_argument("--price " + text + ": \"" + text.substr(equals + 1) +
                                "\" is not a number (a price per hour, e.g. 2.50)");
  check_price_value(key, value);
  prices[key] = value;
}

Prices prices_from_json(const nlohmann::json& json) {
  if (!json.is_object())
    throw std::invalid_argument("got " + json.dump() +
                                ", expected an object of prices per hour, e.g. {\"cpu\": 0.40, "
                                "\"cuda\": 2.50}");
  Prices prices;
  for (const auto& [key, value] : json.items()) {
    check_price_key(key);
    if (!value.is_number())
      throw std::invalid_argument("price \"" + key + "\": got " + value.dump() +
                                  ", expected a number (a price per hour)");
    check_price_value(key, value.get<double>());
    prices[key] = value.get<double>();
  }
  return prices;
}

double price_for(const Cell& cell, const Prices& prices) {
  const std::string kind = device_kind(cell.device);
  auto it = prices.find(kind + "@" + cell.host);
  if (cell.host.empty() || it == prices.end()) it = prices.find(kind);
  if (it == prices.end()) return 0.0;
  return kind == "cuda" ? it->second * std::max(1, cell.gpus) : it->second;
}

void apply_price(Result& r, const Prices& prices) {
  if (r.status != CellStatus::kOk) return;
  r.price_per_hour = price_for(r.cell, prices);
  r.cost_per_epoch = r.price_per_hour / 3600.0 * r.epoch_seconds;
  r.cost_per_million_samples =
      r.train_rows > 0 ? r.cost_per_epoch / static_cast<double>(r.train_rows) * 1e6 : 0.0;
}

}  // namespace crossover
