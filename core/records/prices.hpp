#pragma once
// What a cell costs: a price per hour for each kind of device ("cpu", "cuda"), or for a kind on
// one machine ("cuda@gpu-node", the machine's `run --label`), in any currency, from the grid's
// "prices" or `run --price`. A result records its price and its cost per epoch and per million
// samples, so that the crossover can be stated in money as well as in seconds.

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/records/results.hpp"

namespace crossover {

/// Price per hour by "KIND" or "KIND@HOST".
using Prices = std::map<std::string, double>;

/// A price per hour read from `text` as every command reads one: a decimal number from 1e-09 to
/// 1e+09 (no hexadecimal, sign, NaN or spaces); throws std::invalid_argument quoting `name` and
/// the text, with the bound it broke.
double price_per_hour(const std::string& name, const std::string& text);

/// One `--price` argument, "cuda=2.50" or "cuda@gpu-node=3.10", into `prices`; throws
/// std::invalid_argument naming what to fix.
void add_price(Prices& prices, const std::string& text);

/// A grid's "prices" object; throws std::invalid_argument naming the bad entry.
Prices prices_from_json(const nlohmann::json& json);

/// The price per hour of `cell`'s device: its kind on its machine ("cuda@HOST") first, then its
/// kind; 0 when neither is priced. A CUDA cell pays for each GPU it uses.
double price_for(const Cell& cell, const Prices& prices);

/// Sets an ok result's price_per_hour, cost_per_epoch and cost_per_million_samples (left 0 when
/// its device has no price).
void apply_price(Result& result, const Prices& prices);

}  // namespace crossover
