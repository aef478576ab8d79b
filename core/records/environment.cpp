#include "core/records/environment.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <type_traits>

#include "core/text/log.hpp"
#include "core/text/text.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// Every field of env.json (visit_fields: the machine's, then the run's), each named once, in the
// order written: `v(key, member)` for a value, `v.object(key, ...)` for a sub-object (optional or
// not), `v.list(key, ...)` for a list of them. The writer, the reader and the list of known keys
// are three visitors of it. A new field is its member in core/records/environment.hpp and its line
// here.
template <typename E, typename V>
void visit_machine(E& e, V& v) {
  // The machine's part (runner/machine/env.cpp): every field written, empty or not.
  v.keep_empty = true;
  v("crossover_version", e.crossover_version);
  v("crossover_revision", e.crossover_revision);
  v("compiler", e.compiler);
  v("recorded_at", e.recorded_at);
  v.object("host", [&](V& o) {
    o("hostname", e.host.hostname);
    o("kernel", e.host.kernel);
    o("os", e.host.os);
  });
  v.object("cpu", [&](V& o) {
    o("model", e.cpu.model);
    o("logical_cores", e.cpu.logical_cores);
    o("governor", e.cpu.governor);
    o("load_average", e.cpu.load_average);
  });
  v.object("libtorch", [&](V& o) {
    auto& t = e.libtorch;
    o("version", t.version);
    o("library", t.library);
    o("package", t.package);
    o("package_version", t.package_version);
    o("blas_info", t.blas_info);
    o("use_cuda", t.use_cuda);
    o("use_cudnn", t.use_cudnn);
    o("use_openmp", t.use_openmp);
    o("use_mkldnn", t.use_mkldnn);
    o("cxx11_abi", t.cxx11_abi);
    o("fused_kernels", t.fused_kernels);
    o("parallel_backend", t.parallel_backend);
  });
  v.object("threads", [&](V& o) {
    o("intra_op", e.threads.intra_op);
    o("inter_op", e.threads.inter_op);
    o("blas", e.threads.blas);
    o("OMP_NUM_THREADS", e.threads.omp_num_threads);
  });
  v("allocator", e.allocator);
  v.object("blas", [&](V& o) {
    o("kind", e.blas.kind);
    o("library", e.blas.library);
    o("version", e.blas.version);
    o("reference", e.blas.reference);
    o("matmul_1024_gflops", e.blas.matmul_1024_gflops);
  });
  v.object("cuda", [&](V& o) {
    o("compiled", e.cuda.compiled);
    o("available", e.cuda.available);
    o("device_count", e.cuda.device_count);
    o("runtime_version", e.cuda.runtime_version);
    o("cudnn_version", e.cuda.cudnn_version);
  });
  v("peak_gflops", e.peak_gflops);
  v.object("nvml", [&](V& o) {
    o("available", e.nvml.available);
    o("error", e.nvml.error);
    o("driver_version", e.nvml.driver_version);
  });
  v.list("gpus", e.gpus, [](V& o, auto& g) {
    o("index", g.index);
    o("name", g.name);
    o("memory_total_bytes", g.memory_total_bytes);
    o("sm_clock_mhz", g.sm_clock_mhz);
    o("sm_clock_max_mhz", g.sm_clock_max_mhz);
    o("temperature_c", g.temperature_c);
    o("throttle_reasons", g.throttle_reasons);
  });
  v.object("energy", e.energy, [](V& o, auto& energy) {
    o("cpu", energy.cpu);
    o("cuda", energy.cuda);
    o("cpu_mhz", energy.cpu_mhz);
  });
}

template <typename E, typename V>
void visit_run(E& e, V& v) {
  // The run's part (the sweep, and merge's `shards`): only what the run has.
  v.keep_empty = false;
  v("profile", e.profile);
  v("predicted_with", e.predicted_with);
  v("profile_file", e.profile_file);
  v("predicted_with_file", e.predicted_with_file);
  v("reference", e.reference);
  v("planted_load", e.planted_load);
  v("planted_slowdown", e.planted_slowdown);
  v("planted_work", e.planted_work);
  v("counter", e.counter);
  v("isolation", e.isolation);
  v("machine_record", e.machine_record);
  v("label", e.label);
  v("prices", e.prices);
  v.object("shard", e.shard, [](V& o, auto& shard) {
    o("index", shard.index);
    o("count", shard.count);
    o("source", shard.source);
  });
  v("datasets", e.datasets);
  v.list("shards", e.shards, [](V& o, auto& shard) {
    o("folder", shard.folder);
    o("env", shard.env);
  });
}

template <typename E, typename V>
void visit_fields(E& e, V& v) {
  visit_machine(e, v);
  visit_run(e, v);
}

template <typename T>
bool is_empty(const T& value) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    return value == 0;
  } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Environment>) {
    return false;
  } else if constexpr (std::is_same_v<T, Json>) {
    return value.is_null();
  } else {
    return value.empty();
  }
}

// Writes each field; in the run's part (keep_empty false) only those that are not empty. A field
// left unset (an optional) is never written.
struct Writer {
  Json& j;
  bool keep_empty = true;

  template <typename T>
  void operator()(const char* key, const T& value) {
    if (keep_empty || !is_empty(value)) j[key] = json_of(value);
  }
  template <typename T>
  void operator()(const char* key, const std::optional<T>& value) {
    if (value) j[key] = *value;
  }
  void operator()(const char* key, const std::optional<MachineProfile>& value) {
    if (value) j[key] = profile_to_json(*value);
  }
  template <typename F>
  void object(const char* key, F fields) {
    Writer o{j[key] = Json::object(), keep_empty};
    fields(o);
  }
  template <typename T, typename F>
  void object(const char* key, const std::optional<T>& value, F fields) {
    if (!value) return;
    Writer o{j[key] = Json::object(), true};
    fields(o, *value);
  }
  template <typename T, typename F>
  void list(const char* key, const std::vector<T>& items, F fields) {
    if (!keep_empty && items.empty()) return;
    Json& list = j[key] = Json::array();
    for (const T& item : items) {
      Json o = Json::object();
      Writer w{o, true};
      fields(w, item);
      list.push_back(std::move(o));
    }
  }

  template <typename T>
  static Json json_of(const T& value) {
    return Json(value);
  }
  template <typename T>
  static Json json_of(const std::vector<std::pair<std::string, T>>& members) {
    Json out = Json::object();
    for (const auto& [name, value] : members) out[name] = value;
    return out;
  }
  static Json json_of(const Environment& env) { return environment_json(env); }
  static Json json_of(const ReferenceRecord& reference) { return reference_json(reference); }
};

// The plausible range of each number env.json holds, by its key: a value outside it (a count of
// 1e308 cores, a matrix product at -1e308 GFLOP/s, a peak of 0) is no measurement.
struct NumberRange {
  double low, high;
};
NumberRange number_range(const std::string& key) {
  static const std::map<std::string, NumberRange> ranges = {
      {"logical_cores", {1, 1e5}},
      {"load_average", {0, 1e5}},
      {"intra_op", {0, 1e5}},
      {"inter_op", {0, 1e5}},
      {"blas", {0, 1e5}},
      {"matmul_1024_gflops", {1e-3, 1e7}},
      {"device_count", {0, 1e3}},
      {"peak_gflops", {1e-3, 1e7}},
      {"sm_clock_mhz", {0, 1e5}},
      {"sm_clock_max_mhz", {0, 1e5}},
      {"temperature_c", {0, 1e3}},
      {"throttle_reasons", {0, 1.9e19}},
      {"cpu_mhz", {0, 1e5}},
      {"planted_load", {0, 1e4}},
      {"planted_slowdown", {0, 10}},
      {"planted_work", {0, 10}},
      {"memory_total_bytes", {0, 1e16}},
      {"prices", {0, 1e6}},
      // A reference time is a few milliseconds: one outside a nanosecond to a day is not one (a
      // hand-made 1e308 would read as the machine "inf % slower").
      {"matmul_seconds", {1e-9, 86400}},
      {"step_seconds", {1e-9, 86400}},
      {"matmul_all_seconds", {1e-9, 86400}},
      {"step_all_seconds", {1e-9, 86400}},
  };
  const auto it = ranges.find(key);
  return it == ranges.end() ? NumberRange{0, 1e15} : it->second;
}

// Reads each field whose value has the field's type; any other leaves the field as it was (not
// recorded), and so does a number outside its range (named in `out_of_range`). A list keeps its
// items of the right type, an object its members of the right type.
struct Reader {
  const Json& j;
  bool keep_empty = true;  // (what the writer writes; nothing to the reader)
  std::string at;          // "cpu.": where `j` is in the document
  std::vector<std::string>* out_of_range = nullptr;
  std::vector<std::string>* mistyped = nullptr;  // fields of another type, when the caller asks

  // Names the field `key`, present with a value of another type than `expected` ("text").
  // The value as a message quotes it: JSON (so a control character is escaped, and bytes that
  // are not UTF-8 replaced), at most about 60 characters of it.
  static std::string quoted(const Json& value) {
    std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (text.size() <= 60) return text;
    std::size_t cut = 57;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return text.substr(0, cut) + "...";
  }
  void wrong_type(const std::string& key, const char* expected) const {
    if (mistyped != nullptr)
      mistyped->push_back(printable_text(at + key) + " is " + quoted(j[key]) + ", expected " +
                          expected);
  }
  // Whether `key` holds a value of the type `is` tells; one of another type is named.
  bool holds(const char* key, bool (Json::*is)() const noexcept, const char* expected) const {
    if (!has(key)) return false;
    if ((j[key].*is)()) return true;
    wrong_type(key, expected);
    return false;
  }

  // Whether the number `x` at `key` is within its range; when not, it is named.
  bool plausible(const char* key, const Json& x) const {
    const double v = x.get<double>();
    const NumberRange range = number_range(key);
    if (std::isfinite(v) && v >= range.low && v <= range.high) return true;
    if (out_of_range != nullptr)
      out_of_range->push_back(at + key + " = " + x.dump() + " (expected " +
                              format_number(range.low) + " to " + format_number(range.high) + ")");
    return false;
  }
  Reader inside(const Json& member, const std::string& key) const {
    return Reader{member, true, at + key + ".", out_of_range, mistyped};
  }

  void operator()(const char* key, std::string& into) const {
    if (holds(key, &Json::is_string, "text")) into = j[key].get<std::string>();
  }
  void operator()(const char* key, bool& into) const {
    if (holds(key, &Json::is_boolean, "true or false")) into = j[key].get<bool>();
  }
  void operator()(const char* key, std::int64_t& into) const {
    if (holds(key, &Json::is_number_integer, "a whole number") && plausible(key, j[key]))
      into = j[key].get<std::int64_t>();
  }
  void operator()(const char* key, std::uint64_t& into) const {
    if (holds(key, &Json::is_number_unsigned, "a whole number from 0") && plausible(key, j[key]))
      into = j[key].get<std::uint64_t>();
  }
  void operator()(const char* key, double& into) const {
    if (holds(key, &Json::is_number, "a number") && plausible(key, j[key]))
      into = j[key].get<double>();
  }
  template <typename T>
  void operator()(const char* key, std::optional<T>& into) const {
    if (!has(key) || j[key].is_null()) return;  // null: not recorded, as leaving it out
    if (!(std::is_floating_point_v<T> ? j[key].is_number() : j[key].is_number_integer())) {
      wrong_type(key, std::is_floating_point_v<T> ? "a number" : "a whole number");
      return;
    }
    if (plausible(key, j[key])) into = j[key].get<T>();
  }
  template <typename T>
  void operator()(const char* key, std::vector<T>& into) const {
    if (!holds(key, &Json::is_array, "a list")) return;
    for (const Json& x : j[key]) {
      if constexpr (std::is_same_v<T, std::string>) {
        if (x.is_string()) into.push_back(x.get<T>());
      } else if (x.is_number() && plausible(key, x)) {
        into.push_back(x.get<T>());
      }
    }
  }
  template <typename T>
  void operator()(const char* key, std::vector<std::pair<std::string, T>>& into) const {
    if (!holds(key, &Json::is_object, "an object")) return;
    for (const auto& [name, x] : j[key].items()) {
      if constexpr (std::is_same_v<T, std::string>) {
        if (x.is_string()) into.emplace_back(name, x.template get<T>());
      } else if (x.is_number() && plausible(key, x)) {
        into.emplace_back(name, x.template get<T>());
      }
    }
  }
  void operator()(const char* key, Prices& into) const {
    std::vector<std::pair<std::string, double>> prices;
    (*this)(key, prices);
    into.insert(prices.begin(), prices.end());
  }
  void operator()(const char* key, Json& into) const {
    if (has(key)) into = j[key];
  }
  void operator()(const char* key, Environment& into) const {
    if (has(key)) into = environment_from_json(j[key]);
  }
  void operator()(const char* key, std::optional<MachineProfile>& into) const {
    if (!has(key)) return;
    try {
      into = profile_from_json(j[key]);
    } catch (const std::exception& e) {
      if (mistyped != nullptr)
        mistyped->push_back(at + key + ": not a machine profile: " + printable_text(e.what()));
    }
  }
  // The reference's times before or after a span; a cell's span is read under its index.
  std::optional<ReferenceTimes> times(const char* key) const {
    if (!holds(key, &Json::is_object, "an object")) return std::nullopt;
    const Reader o = inside(j[key], key);
    ReferenceTimes t;
    o("matmul_seconds", t.matmul_seconds);
    o("step_seconds", t.step_seconds);
    o("matmul_all_seconds", t.matmul_all_seconds);
    o("step_all_seconds", t.step_all_seconds);
    return t;
  }
  void operator()(const char* key, ReferenceRecord& into) const {
    if (!holds(key, &Json::is_object, "an object")) return;
    const Reader o = inside(j[key], key);
    into.before = o.times("before");
    into.after = o.times("after");
    if (!o.holds("cells", &Json::is_object, "an object")) return;
    const Reader cells = o.inside(o.j["cells"], "cells");
    for (const auto& [index, around] : cells.j.items()) {
      // An index is the cell's number as text; anything else is no cell of this run.
      if (index.empty() || index.size() > 9 ||
          index.find_first_not_of("0123456789") != std::string::npos || !around.is_object()) {
        cells.wrong_type(index, "a cell's timings (an object) under its index");
        continue;
      }
      const Reader span = cells.inside(around, index);
      into.cells.emplace_back(std::stoul(index),
                              ReferenceSpan{span.times("before"), span.times("after")});
    }
  }
  template <typename F>
  void object(const char* key, F fields) const {
    static const Json none = Json::object();
    Reader o = inside(holds(key, &Json::is_object, "an object") ? j[key] : none, key);
    fields(o);
  }
  template <typename T, typename F>
  void object(const char* key, std::optional<T>& value, F fields) const {
    if (!holds(key, &Json::is_object, "an object")) return;
    T read{};
    Reader o = inside(j[key], key);
    fields(o, read);
    value = std::move(read);
  }
  template <typename T, typename F>
  void list(const char* key, std::vector<T>& items, F fields) const {
    if (!holds(key, &Json::is_array, "a list")) return;
    for (const Json& x : j[key]) {
      if (!x.is_object()) continue;  // not one of them
      T item{};
      Reader o = inside(x, std::string(key) + "[" + std::to_string(items.size()) + "]");
      fields(o, item);
      items.push_back(std::move(item));
    }
  }

  bool has(const char* key) const { return j.contains(key); }
};

// The top-level keys the record declares.
struct KeyLister {
  std::set<std::string>& keys;
  bool keep_empty = true;

  template <typename T>
  void operator()(const char* key, const T&) {
    keys.insert(key);
  }
  template <typename F>
  void object(const char* key, F) {
    keys.insert(key);
  }
  template <typename T, typename F>
  void object(const char* key, const T&, F) {
    keys.insert(key);
  }
  template <typename T, typename F>
  void list(const char* key, const T&, F) {
    keys.insert(key);
  }
};

const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> all;
    const Environment none;
    KeyLister lister{all};
    visit_fields(none, lister);
    return all;
  }();
  return keys;
}

}  // namespace

std::string Environment::dataset_fingerprint(const std::string& dataset) const {
  const auto it = std::find_if(datasets.begin(), datasets.end(),
                               [&](const auto& d) { return d.first == dataset; });
  return it == datasets.end() ? std::string() : it->second;
}

Json environment_json(const Environment& environment) {
  Json j = Json::object();
  Writer writer{j};
  visit_fields(environment, writer);
  for (const auto& [key, value] : environment.others.items())
    if (!j.contains(key)) j[key] = value;
  return j;
}

Environment environment_from_json(const nlohmann::ordered_json& document, const std::string& file,
                                  std::vector<std::string>* mistyped) {
  Environment e;
  if (!document.is_object()) return e;
  std::vector<std::string> out_of_range, wrong_type;
  // A reader that does not refuse mistyped fields reads them as not recorded, and says so.
  Reader reader{document, true, "", &out_of_range,
                mistyped != nullptr ? mistyped : (file.empty() ? nullptr : &wrong_type)};
  visit_fields(e, reader);
  for (const auto& [key, value] : document.items())
    if (known_keys().count(key) == 0) e.others[key] = value;
  if (!out_of_range.empty() && !file.empty())
    log_warning(file + ": " + join(out_of_range, "; ") +
                ": outside the range a machine can have, read as not recorded");
  if (!wrong_type.empty())
    log_warning(file + ": " + join(wrong_type, "; ") + ": of another type, read as not recorded");
  return e;
}

}  // namespace crossover
