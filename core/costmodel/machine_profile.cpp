#include "core/costmodel/machine_profile.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/cells/modes.hpp"
#include "core/files/user_files.hpp"
#include "core/text/text.hpp"
#include "core/text/words.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void refuse(const std::string& field, const std::string& expected) {
  throw std::runtime_error(field + ": expected " + expected);
}

double positive(const nlohmann::ordered_json& j, const std::string& field,
                bool zero_allowed = false) {
  if (!j.is_number()) refuse(field, "a number");
  const double v = j.get<double>();
  if (!std::isfinite(v) || v < 0.0 || (!zero_allowed && v == 0.0))
    refuse(field, zero_allowed ? "a finite number from 0" : "a finite number above 0");
  return v;
}

// A number within [low, high], the range a real machine's can have: a rate of 1e-300 or a dispatch
// of 1e308 would be printed as a prediction of "+inf %" or "2.71e+306 s".
double bounded(const nlohmann::ordered_json& j, const std::string& field, double low, double high,
               const char* unit, bool zero_allowed = false) {
  const double v = positive(j, field, zero_allowed);
  if ((v != 0.0 || !zero_allowed) && (v < low || v > high))
    refuse(field, std::string("a ") + unit + " from " + format_number(low) + " to " +
                      format_number(high) + (zero_allowed ? " (or 0: not measured)" : "") +
                      ", not " + format_number(v));
  return v;
}

// The plausible ranges of a profile's numbers (docs/outputs.md): beyond any machine's, on
// either side, and never a quarter of the way to an overflow.
constexpr double kMinSeconds = 1e-10, kMaxStepSeconds = 1.0;
constexpr double kMinRate = 1e6, kMaxFlops = 1e17, kMaxBandwidth = 1e15, kMaxLink = 1e13;

// A GPU's rates by precision, by their keys.
template <typename Profile>
auto math_rates(Profile& d) {
  return std::array{
      std::pair{"tf32_flops_per_second", &d.tf32_flops_per_second},
      std::pair{"bf16_flops_per_second", &d.bf16_flops_per_second},
      std::pair{"convolution_fp32_flops_per_second", &d.convolution_fp32_flops_per_second},
      std::pair{"convolution_tf32_flops_per_second", &d.convolution_tf32_flops_per_second},
      std::pair{"convolution_bf16_flops_per_second", &d.convolution_bf16_flops_per_second}};
}

Json device_json(const DeviceProfile& d, bool gpu) {
  Json j;
  j["dispatch_seconds"] = d.dispatch_seconds;
  j["gemm"] = Json::array();
  for (const auto& [n, rate] : d.gemm) j["gemm"].push_back({{"n", n}, {"flops_per_second", rate}});
  j["memory_bytes_per_second"] = d.memory_bytes_per_second;
  if (d.fresh_memory_bytes_per_second > 0.0)
    j["fresh_memory_bytes_per_second"] = d.fresh_memory_bytes_per_second;
  if (d.batch_op_seconds > 0.0) j["batch_op_seconds"] = d.batch_op_seconds;
  if (gpu) {
    j["h2d_pageable_bytes_per_second"] = d.h2d_pageable_bytes_per_second;
    j["h2d_pinned_bytes_per_second"] = d.h2d_pinned_bytes_per_second;
    j["sync_seconds"] = d.sync_seconds;
    if (d.graph_op_seconds > 0.0) j["graph_op_seconds"] = d.graph_op_seconds;
    for (const auto& [key, rate] : math_rates(d))
      if (*rate > 0.0) j[key] = *rate;
    if (!d.tensor_source.empty()) j["tensor_source"] = d.tensor_source;
  }
  return j;
}

DeviceProfile device_from_json(const nlohmann::ordered_json& j, const std::string& at, bool gpu) {
  if (!j.is_object()) refuse(at, "an object");
  const auto field = [&](const char* key) -> const nlohmann::ordered_json& {
    static const nlohmann::ordered_json missing;
    return j.contains(key) ? j[key] : missing;
  };
  DeviceProfile d;
  d.dispatch_seconds = bounded(field("dispatch_seconds"), at + ".dispatch_seconds", kMinSeconds,
                               kMaxStepSeconds, "time in seconds");
  d.memory_bytes_per_second =
      bounded(field("memory_bytes_per_second"), at + ".memory_bytes_per_second", kMinRate,
              kMaxBandwidth, "bandwidth in bytes per second");
  const nlohmann::ordered_json& gemm = field("gemm");
  if (!gemm.is_array() || gemm.empty() || gemm.size() > 64)
    refuse(at + ".gemm", "a list of 1 to 64 {\"n\", \"flops_per_second\"} rungs");
  for (std::size_t i = 0; i < gemm.size(); ++i) {
    const std::string rung = at + ".gemm[" + std::to_string(i) + "]";
    if (!gemm[i].is_object()) refuse(rung, "an object");
    const double n = bounded(gemm[i].contains("n") ? gemm[i]["n"] : nlohmann::ordered_json(),
                             rung + ".n", 1.0, 1e6, "matrix size");
    const double rate =
        bounded(gemm[i].contains("flops_per_second") ? gemm[i]["flops_per_second"]
                                                     : nlohmann::ordered_json(),
                rung + ".flops_per_second", kMinRate, kMaxFlops, "rate in FLOP per second");
    if (!d.gemm.empty() && n <= d.gemm.back().first) refuse(rung + ".n", "sizes ascending");
    d.gemm.emplace_back(n, rate);
  }
  if (j.contains("fresh_memory_bytes_per_second")) {
    d.fresh_memory_bytes_per_second =
        bounded(j["fresh_memory_bytes_per_second"], at + ".fresh_memory_bytes_per_second", kMinRate,
                kMaxBandwidth, "bandwidth in bytes per second", true);
  }
  if (j.contains("batch_op_seconds")) {
    d.batch_op_seconds = bounded(j["batch_op_seconds"], at + ".batch_op_seconds", kMinSeconds,
                                 kMaxStepSeconds, "time in seconds", true);
  }
  if (gpu) {
    d.h2d_pageable_bytes_per_second =
        bounded(field("h2d_pageable_bytes_per_second"), at + ".h2d_pageable_bytes_per_second",
                kMinRate, kMaxLink, "bandwidth in bytes per second");
    d.h2d_pinned_bytes_per_second =
        bounded(field("h2d_pinned_bytes_per_second"), at + ".h2d_pinned_bytes_per_second", kMinRate,
                kMaxLink, "bandwidth in bytes per second");
    d.sync_seconds = bounded(field("sync_seconds"), at + ".sync_seconds", kMinSeconds,
                             kMaxStepSeconds, "time in seconds", true);
    if (j.contains("graph_op_seconds"))
      d.graph_op_seconds = bounded(j["graph_op_seconds"], at + ".graph_op_seconds", kMinSeconds,
                                   kMaxStepSeconds, "time in seconds", true);
    for (const auto& [key, rate] : math_rates(d))
      if (j.contains(key))
        *rate = bounded(j[key], at + "." + key, kMinRate, kMaxFlops, "rate in FLOP per second");
    if (j.contains("tensor_source")) {
      if (!j["tensor_source"].is_string() ||
          !is_profile_text(j["tensor_source"].get<std::string>()))
        refuse(at + ".tensor_source", kProfileTextRule);
      d.tensor_source = j["tensor_source"].get<std::string>();
    }
  }
  return d;
}

Json band_json(const PredictionBand& b) {
  return {{"coverage", kBandCoverage}, {"factor", b.factor}, {"cells", b.cells}};
}

PredictionBand band_from_json(const nlohmann::ordered_json& j, const std::string& at) {
  if (!j.is_object()) refuse(at, "an object with factor and cells");
  PredictionBand b;
  b.factor =
      positive(j.contains("factor") ? j["factor"] : nlohmann::ordered_json(), at + ".factor");
  if (b.factor < 1.0 || b.factor > 1e6) refuse(at + ".factor", "a factor from 1 to 1e6");
  const double cells =
      positive(j.contains("cells") ? j["cells"] : nlohmann::ordered_json(), at + ".cells");
  if (cells > 1e6 || cells != std::floor(cells)) refuse(at + ".cells", "a count up to 1e6");
  b.cells = static_cast<int>(cells);
  if (j.contains("coverage") &&
      (!j["coverage"].is_number() || j["coverage"].get<double>() != kBandCoverage))
    refuse(at + ".coverage", "0.8, the coverage this version fits bands for");
  return b;
}

std::string text_field(const nlohmann::ordered_json& j, const char* key) {
  if (!j.contains(key)) return "";
  if (!j[key].is_string()) refuse(key, "text");
  std::string text = j[key].get<std::string>();
  if (!is_profile_text(text)) refuse(key, kProfileTextRule);
  return text;
}

}  // namespace

nlohmann::ordered_json validation_to_json(const Validation& v) {
  Json j = {{"median_abs_error", v.median_abs_error}};
  if (v.band.factor > 0.0) j["band"] = band_json(v.band);
  if (!v.by_bound.empty()) {
    j["band_by_bound"] = Json::object();
    // By name, as profiles have always been written.
    std::map<std::string, const PredictionBand*> by_name;
    for (const auto& [bound, b] : v.by_bound) by_name[text_of(bound)] = &b;
    for (const auto& [name, b] : by_name) j["band_by_bound"][name] = band_json(*b);
  }
  if (!v.runs.empty()) j["runs"] = v.runs;
  if (!v.coverage_method.empty())
    j["coverage_measured"] = {{"method", v.coverage_method},
                              {"cells", v.coverage.cells},
                              {"inside", v.coverage.inside},
                              {"share", v.coverage.share()}};
  if (!v.note.empty()) j["note"] = v.note;
  return j;
}

Validation validation_from_json(const nlohmann::ordered_json& j, const std::string& at) {
  if (!j.is_object() || !j.contains("median_abs_error"))
    refuse(at, "an object with median_abs_error");
  Validation v;
  v.median_abs_error = positive(j["median_abs_error"], at + ".median_abs_error", true);
  if (j.contains("band")) v.band = band_from_json(j["band"], at + ".band");
  if (j.contains("band_by_bound")) {
    if (!j["band_by_bound"].is_object() || j["band_by_bound"].size() > 8)
      refuse(at + ".band_by_bound", "an object of at most 8 bound classes");
    for (const auto& [bound, b] : j["band_by_bound"].items()) {
      const std::optional<Bound> known = parse_word<Bound>(bound);
      if (!known || *known == Bound::kNone)
        refuse(at + ".band_by_bound",
               "bound classes (dispatch, compute, memory, transfer, loader)");
      v.by_bound[*known] = band_from_json(b, at + ".band_by_bound." + bound);
    }
  }
  if (j.contains("runs")) {
    if (!j["runs"].is_array() || j["runs"].size() > 1000) refuse(at + ".runs", "a list of names");
    for (const auto& run : j["runs"]) {
      if (!run.is_string() || run.get<std::string>().size() > 200 ||
          printable_text(run.get<std::string>()) != run.get<std::string>())
        refuse(at + ".runs", "a list of printable names");
      v.runs.push_back(run.get<std::string>());
    }
  }
  if (j.contains("coverage_measured")) {
    const auto& c = j["coverage_measured"];
    const std::string at_c = at + ".coverage_measured";
    if (!c.is_object() || !c.contains("method") || c["method"] != kLeaveOneRunOut)
      refuse(at_c + ".method", std::string("\"") + kLeaveOneRunOut + "\"");
    v.coverage_method = kLeaveOneRunOut;
    const auto count = [&](const char* key) {
      const double n =
          positive(c.contains(key) ? c[key] : nlohmann::ordered_json(), at_c + "." + key, true);
      if (n > 1e6 || n != std::floor(n)) refuse(at_c + "." + key, "a count up to 1e6");
      return static_cast<int>(n);
    };
    v.coverage.cells = count("cells");
    v.coverage.inside = count("inside");
    if (v.coverage.inside > v.coverage.cells) refuse(at_c + ".inside", "at most its cells");
  }
  if (j.contains("note")) {
    if (!j["note"].is_string() || j["note"].get<std::string>().size() > 1000 ||
        printable_text(j["note"].get<std::string>()) != j["note"].get<std::string>())
      refuse(at + ".note", "printable text of at most 1000 characters");
    v.note = j["note"].get<std::string>();
  }
  return v;
}

bool is_profile_text(const std::string& text) {
  return text.size() <= 200 && printable_text(text) == text &&
         text.find_first_of("\n\t") == std::string::npos;
}

double DeviceProfile::gemm_flops_per_second(double flops) const {
  if (gemm.empty()) return 0.0;
  const double n = std::cbrt(std::max(flops, 0.0) / 2.0);
  if (n <= gemm.front().first) {
    // Below the smallest rung a product is slower still: its time is no less than that rung's.
    const auto [n0, rate0] = gemm.front();
    return rate0 * std::pow(std::max(n, 1.0) / n0, 3.0);
  }
  if (n >= gemm.back().first) return gemm.back().second;
  const auto upper = std::find_if(gemm.begin(), gemm.end(),
                                  [n](const std::pair<double, double>& r) { return r.first >= n; });
  const auto lower = upper - 1;
  const double t = std::log(n / lower->first) / std::log(upper->first / lower->first);
  return std::exp(std::log(lower->second) +
                  t * (std::log(upper->second) - std::log(lower->second)));
}

double DeviceProfile::flops_per_second_at(double flops, double top) const {
  const double rate = gemm_flops_per_second(flops);
  if (!(top > 0.0) || rate <= 0.0 || flops <= 0.0) return rate;
  double ladder_top = 0.0;
  for (const auto& rung : gemm) ladder_top = std::max(ladder_top, rung.second);
  const double fixed = std::max(0.0, flops / rate - flops / ladder_top);
  return flops / (fixed + flops / top);
}

std::string band_validation_text(const Validation& v) {
  if (v.band.factor <= 0.0) return "no band validated against real runs";
  if (!v.note.empty()) {
    Validation without = v;
    without.note.clear();
    return band_validation_text(without) + "; " + v.note;
  }
  if (v.coverage_method == kLeaveOneRunOut && v.coverage.cells > 0)
    return "the band held " + std::to_string(v.coverage.inside) + " of " +
           std::to_string(v.coverage.cells) + " measured cells (" +
           std::to_string(static_cast<int>(std::lround(100.0 * v.coverage.share()))) + " %) of " +
           std::to_string(v.runs.size()) + " run(s), each scored by a band fitted without its run";
  return "its band was fitted to hold " +
         std::to_string(static_cast<int>(std::lround(100.0 * kBandCoverage))) +
         " % of the real cells it was scored on: its coverage of other runs was not measured";
}

PredictionBand MachineProfile::band(DeviceKind kind, Bound bound) const {
  const auto it = validation.find(kind);
  if (it == validation.end()) return {};
  const auto own = it->second.by_bound.find(bound);
  return own != it->second.by_bound.end() ? own->second : it->second.band;
}

const DeviceProfile& MachineProfile::cpu(int threads) const {
  return threads == 1 ? cpu_one_thread : cpu_all_threads;
}

nlohmann::ordered_json profile_to_json(const MachineProfile& p) {
  Json j;
  j["name"] = p.name;
  j["provenance"] = p.provenance;
  j["cpu"] = {{"model", p.cpu_model},
              {"logical_cores", p.logical_cores},
              {"one_thread", device_json(p.cpu_one_thread, false)},
              {"all_threads", device_json(p.cpu_all_threads, false)}};
  j["libtorch_version"] = p.libtorch_version;
  if (p.cuda) {
    j["cuda"] = device_json(*p.cuda, true);
    j["cuda"]["name"] = p.gpu_name;
  }
  if (!p.validation.empty()) {
    j["validation"] = Json::object();
    for (const auto& [kind, v] : p.validation)
      j["validation"][text_of(kind)] = validation_to_json(v);
  }
  return j;
}

MachineProfile profile_from_json(const nlohmann::ordered_json& j) {
  if (!j.is_object()) refuse("the profile", "an object");
  MachineProfile p;
  p.name = text_field(j, "name");
  if (p.name.empty()) refuse("name", "the profile's name");
  if (j.contains("provenance")) p.provenance = j["provenance"];
  p.libtorch_version = text_field(j, "libtorch_version");
  if (!j.contains("cpu") || !j["cpu"].is_object()) refuse("cpu", "an object");
  const nlohmann::ordered_json& cpu = j["cpu"];
  p.cpu_model = text_field(cpu, "model");
  if (cpu.contains("logical_cores"))
    p.logical_cores =
        static_cast<int>(bounded(cpu["logical_cores"], "cpu.logical_cores", 1, 65536, "count"));
  p.cpu_one_thread = device_from_json(cpu.contains("one_thread") ? cpu["one_thread"] : nullptr,
                                      "cpu.one_thread", false);
  p.cpu_all_threads = device_from_json(cpu.contains("all_threads") ? cpu["all_threads"] : nullptr,
                                       "cpu.all_threads", false);
  if (j.contains("cuda") && !j["cuda"].is_null()) {
    p.cuda = device_from_json(j["cuda"], "cuda", true);
    p.gpu_name = text_field(j["cuda"], "name");
  }
  if (j.contains("validation")) {
    if (!j["validation"].is_object()) refuse("validation", "an object");
    for (const auto& [kind, v] : j["validation"].items()) {
      const std::optional<DeviceKind> known = parse_word<DeviceKind>(kind);
      if (!known) refuse("validation." + kind, "\"cpu\" or \"cuda\"");
      p.validation[*known] = validation_from_json(v, "validation." + kind);
    }
  }
  return p;
}

MachineProfile load_profile(const std::string& path) {
  try {
    MachineProfile profile = profile_from_json(
        nlohmann::ordered_json::parse(read_json_text(path, kMiB, "a machine profile")));
    profile.file = path;
    return profile;
  } catch (const UserFileError& e) {
    throw std::runtime_error(e.what());
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": not a machine profile: " + e.what());
  }
}

MachineProfile load_gpu_profile(const std::string& path) {
  MachineProfile p = load_profile(path);
  if (!p.cuda) {
    throw std::runtime_error(path + ": the profile \"" + p.name +
                             "\" has no GPU (no \"cuda\" section) to predict CUDA cells with; give "
                             "one measured (crossover profile) or derived (profile --derive) for "
                             "a GPU machine, or a shipped one: h100, h200");
  }
  return p;
}

}  // namespace crossover
