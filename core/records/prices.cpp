#include "core/records/prices.hpp"

#include <cmath>
#include <cstdlib>
#include <regex>
#include <stdexcept>

#include "core/cells/modes.hpp"
#include "core/text/text.hpp"

namespace crossover {
namespace {

// "cpu", "cuda", "cpu@HOST" or "cuda@HOST"; throws naming the key otherwise.
void check_price_key(const std::string& key) {
  const std::string kind = key.substr(0, key.find('@'));
  if (!parse_word<DeviceKind>(kind) || key == kind + "@")
    throw std::invalid_argument("price \"" + key +
                                "\": name a device kind, \"cpu\" or \"cuda\", optionally with a "
                                "machine's label (\"cuda@gpu-node\")");
}

// The bounds of a price per hour, in any currency: above nothing, below what overflows a cost.
constexpr double kLeastPrice = 1e-9;
constexpr double kMostPrice = 1e9;

// A price per hour from `text` as given ("2.50", "0.4", "3e-2"), or std::invalid_argument
// quoting the text: only a finite decimal number from kLeastPrice to kMostPrice (no NaN, inf,
// hexadecimal, sign or spaces).
double price_from_text(const std::string& key, const std::string& text) {
  static const std::regex decimal(R"(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)");
  const std::string quoted = "price \"" + key + "\": \"" + text + "\"";
  if (!std::regex_match(text, decimal))
    throw std::invalid_argument(quoted +
                                " is not a price: give a decimal number above 0, such as 2.50");
  const double value = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(value) || value > kMostPrice)
    throw std::invalid_argument(quoted + " is too large: a price per hour is at most 1e+09");
  if (value < kLeastPrice)
    throw std::invalid_argument(
        quoted + (value == 0.0 ? " is 0: a price is above 0 (leave the kind out to price nothing)"
                               : " is below the least price per hour, 1e-09"));
  return value;
}

}  // namespace

double price_per_hour(const std::string& name, const std::string& text) {
  return price_from_text(name, text);
}

void add_price(Prices& prices, const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos)
    throw std::invalid_argument("--price " + text + ": expected KIND=PRICE, e.g. cuda=2.50");
  const std::string key = text.substr(0, equals);
  check_price_key(key);
  try {
    prices[key] = price_from_text(key, text.substr(equals + 1));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--price " + text + ": " + e.what());
  }
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
                                  ", expected a decimal number above 0 (a price per hour)");
    prices[key] = price_from_text(key, value.dump());
  }
  return prices;
}

double price_for(const Cell& cell, const Prices& prices) {
  const DeviceKind device = cell.device.kind;
  const std::string kind = text_of(device);
  auto it = prices.find(kind + "@" + cell.host);
  if (cell.host.empty() || it == prices.end()) it = prices.find(kind);
  if (it == prices.end()) return 0.0;
  return device == DeviceKind::kCuda ? it->second * std::max(1, cell.gpus) : it->second;
}

void apply_price(Result& r, const Prices& prices) {
  if (r.status != CellStatus::kOk) return;
  r.price_per_hour = price_for(r.cell, prices);
  r.cost_per_epoch = r.price_per_hour / 3600.0 * r.epoch_seconds;
  r.cost_per_million_samples =
      r.train_rows > 0 ? r.cost_per_epoch / static_cast<double>(r.train_rows) * 1e6 : 0.0;
}

}  // namespace crossover
