#include "core/records/reference.hpp"

#include <algorithm>
#include <string>

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

Json times_json(const ReferenceTimes& t) {
  Json out = Json::object();
  for (const auto& [name, seconds] :
       {std::pair{"matmul_seconds", t.matmul_seconds}, std::pair{"step_seconds", t.step_seconds},
        std::pair{"matmul_all_seconds", t.matmul_all_seconds},
        std::pair{"step_all_seconds", t.step_all_seconds}})
    if (seconds > 0.0) out[name] = seconds;
  return out;
}

Json span_json(const ReferenceSpan& span) {
  Json out = Json::object();
  if (span.before) out["before"] = times_json(*span.before);
  if (span.after) out["after"] = times_json(*span.after);
  return out;
}

}  // namespace

const ReferenceSpan* ReferenceRecord::around(std::size_t cell) const {
  const auto it =
      std::find_if(cells.begin(), cells.end(), [&](const auto& c) { return c.first == cell; });
  return it == cells.end() ? nullptr : &it->second;
}

void ReferenceRecord::set_around(std::size_t cell, ReferenceSpan span) {
  const auto it =
      std::find_if(cells.begin(), cells.end(), [&](const auto& c) { return c.first == cell; });
  if (it != cells.end())
    it->second = std::move(span);
  else
    cells.emplace_back(cell, std::move(span));
}

Json reference_json(const ReferenceRecord& reference) {
  Json out = Json::object();
  if (reference.before) out["before"] = times_json(*reference.before);
  if (!reference.cells.empty()) {
    Json& cells = out["cells"] = Json::object();
    for (const auto& [cell, span] : reference.cells) cells[std::to_string(cell)] = span_json(span);
  }
  if (reference.after) out["after"] = times_json(*reference.after);
  return out;
}

}  // namespace crossover
