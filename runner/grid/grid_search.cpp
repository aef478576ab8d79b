#include "runner/grid/grid_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "core/cells/key_contrast.hpp"
#include "core/text/text.hpp"

namespace crossover {
namespace {

// A cell's identity keys without the searched one (nor the machine's label: a merged run's
// probes were labelled by the node that ran them).
std::string identity_without(const Cell& cell, const std::string& key) {
  nlohmann::ordered_json j = cell_match_json(cell);
  j.erase(key);
  return j.dump();
}

using Json = nlohmann::ordered_json;

// A number of the search's own, or none with the problem added.
std::optional<double> number_at(const Json& object, const std::string& name,
                                const std::string& path, const std::string& expected,
                                std::vector<GridIssue>& issues) {
  if (!object.contains(name)) return std::nullopt;
  const Json& value = object[name];
  if (!value.is_number() || !std::isfinite(value.get<double>())) {
    issues.push_back({path + "." + name, "got " + shown(value) + ", expected " + expected});
    return std::nullopt;
  }
  return value.get<double>();
}

// The searched key's range, checked for `from` and `to`.
bool in_range(const GridKey& key, double value, bool integer, const std::string& path,
              std::vector<GridIssue>& issues) {
  if ((integer && value != std::trunc(value)) || value < key.min || value > key.max) {
    issues.push_back({path, "got " + format_number(value) + ", expected " + key.expected +
                                " (the values of " + key.name + ")"});
    return false;
  }
  return true;
}

// "1" as the integer 1 for threads, "cpu" as text for device, "true" as a boolean.
Json typed_value(const GridKey& key, const std::string& text) {
  if (key.kind == KeyKind::kText) return text;
  if (key.kind == KeyKind::kBoolean) {
    if (text == "true" || text == "false") return text == "true";
    throw std::invalid_argument("\"" + text + "\" is not true or false");
  }
  if (key.kind == KeyKind::kSizeOrFull && text == kFullWord) return text;
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(number))
    throw std::invalid_argument("\"" + text + "\" is not " + key.expected);
  if (key.kind == KeyKind::kNumber) return number;
  if (number != std::trunc(number))
    throw std::invalid_argument("\"" + text + "\" is not an integer");
  return static_cast<std::int64_t>(number);
}

// The search's numbers: from and to within the key's values, precision and max_probes.
void parse_bounds(const GridKey& key, const Json& object, const std::string& at, SearchSpec& spec,
                  std::vector<GridIssue>& issues) {
  const auto from = number_at(object, "from", at, "a number", issues);
  const auto to = number_at(object, "to", at, "a number", issues);
  for (const char* name : {"from", "to"}) {
    if (!object.contains(name))
      issues.push_back({at, std::string("missing \"") + name +
                                "\": a search runs from one value of " + key.name + " to another"});
  }
  if (from && to) {
    spec.from = *from;
    spec.to = *to;
    // Both checked, so that both problems are reported.
    const bool from_ok = in_range(key, *from, spec.integer, at + ".from", issues);
    const bool to_ok = in_range(key, *to, spec.integer, at + ".to", issues);
    const bool ok = from_ok && to_ok;
    if (ok && *from >= *to)
      issues.push_back(
          {at, "\"from\" " + format_number(*from) + " must be below \"to\" " + format_number(*to)});
    if (ok && spec.scale == SearchScale::kLog && *from <= 0)
      issues.push_back({at + ".from",
                        "a log-scale search starts above 0; give a positive "
                        "\"from\" or \"scale\": \"linear\""});
  }
  if (const auto p =
          number_at(object, "precision", at, "a fraction above 0 and at most 1", issues)) {
    if (*p <= 0 || *p > 1)
      issues.push_back({at + ".precision", "got " + format_number(*p) +
                                               ", expected a fraction above 0 and at most 1 (0.1 "
                                               "= the bracket within 10 %)"});
    spec.precision = *p;
  }
  const std::string probes_expected = "an integer from 2 to " + std::to_string(kMostProbes);
  if (const auto n = number_at(object, "max_probes", at, probes_expected, issues)) {
    if (*n != std::trunc(*n) || *n < 2 || *n > kMostProbes)
      issues.push_back({at + ".max_probes", "got " + format_number(*n) + ", expected " +
                                                probes_expected +
                                                " (probe pairs, the ends included)"});
    else
      spec.max_probes = static_cast<int>(*n);
  }
}

}  // namespace

Contenders search_contenders(const SearchSpec& spec) {
  KeyContrast compare;
  try {
    compare = parse_key_contrast(spec.compare);
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    if (what.rfind("--compare", 0) == 0) what = "compare" + what.substr(9);
    throw std::invalid_argument(what);
  }
  Contenders c;
  c.key = find_grid_key(compare.axis);
  if (c.key == nullptr || !c.key->settable || c.key->role != KeyRole::kIdentity)
    throw std::invalid_argument("compare \"" + spec.compare + "\": " + compare.axis +
                                " is not an identity key a grid sets");
  if (compare.axis == spec.key)
    throw std::invalid_argument("compare \"" + spec.compare + "\": the searched key " + spec.key +
                                " cannot also be the one compared");
  if (compare.baseline == compare.contender)
    throw std::invalid_argument("compare \"" + spec.compare + "\": the two values are the same");
  c.baseline_text = compare.baseline;
  c.contender_text = compare.contender;
  c.baseline = typed_value(*c.key, compare.baseline);
  c.contender = typed_value(*c.key, compare.contender);
  return c;
}

std::optional<SearchSpec> parse_search(const std::string& path, const GridKey& key,
                                       const Json& value, std::vector<GridIssue>& issues) {
  const std::size_t before = issues.size();
  if (!value.contains("search") || value.size() != 1 || !value["search"].is_object()) {
    issues.push_back({path, "got " + shown(value) +
                                ", expected a list of values or {\"search\": {\"from\": ..., "
                                "\"to\": ...}}"});
    return std::nullopt;
  }
  const std::string at = path + ".search";
  const Json& object = value["search"];
  static const std::vector<std::string> known = {"from",       "to",    "precision",
                                                 "max_probes", "scale", "compare"};
  for (const auto& [name, unused] : object.items()) {
    if (std::find(known.begin(), known.end(), name) == known.end())
      issues.push_back(
          {at + "." + name, "unknown key \"" + name + "\"; a search takes " + join(known)});
  }
  const bool numeric = key.kind == KeyKind::kInteger || key.kind == KeyKind::kNumber ||
                       key.kind == KeyKind::kSizeOrFull;
  if (!numeric || !key.numeric_axis || key.role != KeyRole::kIdentity) {
    std::vector<std::string> axes;
    for (const auto& k : grid_keys())
      if (k.numeric_axis && k.settable) axes.push_back(k.name);
    issues.push_back({path, key.name + " cannot be searched: a search runs along a numeric axis (" +
                                join(axes) + ")"});
    return std::nullopt;
  }
  SearchSpec spec;
  spec.key = key.name;
  spec.integer = key.kind != KeyKind::kNumber;
  if (object.contains("scale")) {
    const Json& scale = object["scale"];
    const std::optional<SearchScale> word =
        scale.is_string() ? parse_word<SearchScale>(scale.get<std::string>()) : std::nullopt;
    if (!word)
      issues.push_back({at + ".scale", "got " + shown(scale) + ", expected \"log\" or \"linear\""});
    spec.scale = word.value_or(SearchScale::kLog);
  }
  parse_bounds(key, object, at, spec, issues);
  if (object.contains("compare")) {
    if (!object["compare"].is_string())
      issues.push_back({at + ".compare", "got " + shown(object["compare"]) +
                                             ", expected AXIS=BASELINE:CONTENDER, e.g. "
                                             "\"threads=1:0\""});
    else
      spec.compare = object["compare"].get<std::string>();
  }
  try {
    search_contenders(spec);
  } catch (const std::invalid_argument& e) {
    issues.push_back({at + ".compare", e.what()});
  }
  if (issues.size() != before) return std::nullopt;
  return spec;
}

void fit_search_axes(const std::string& path, Experiment& experiment,
                     std::vector<GridIssue>& issues) {
  if (!experiment.search) return;
  const Contenders c = search_contenders(*experiment.search);
  auto& axes = experiment.axes;
  for (auto axis = axes.begin(); axis != axes.end(); ++axis) {
    if (axis->first != c.key->name) continue;
    for (const Json& v : axis->second) {
      if (v != c.baseline && v != c.contender)
        issues.push_back({path + ".grid." + axis->first,
                          "the search compares " + experiment.search->compare + " and sets " +
                              axis->first + " itself; this axis also lists " + shown(v) +
                              " (list only " + c.baseline_text + " and " + c.contender_text +
                              ", or drop the axis)"});
    }
    axes.erase(axis);
    return;
  }
}

bool belongs_to_search(const Cell& cell, const std::vector<SearchLine>& lines) {
  for (const SearchLine& line : lines) {
    const std::string mine = identity_without(cell, line.spec.key);
    if (mine == identity_without(line.baseline, line.spec.key) ||
        mine == identity_without(line.contender, line.spec.key))
      return true;
  }
  return false;
}

}  // namespace crossover
