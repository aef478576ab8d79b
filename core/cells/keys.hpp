#pragma once
// The grid keys, declared once each (core/cells/key_declarations.cpp): name, JSON type and allowed
// values, default (and the CUDA default where it differs), role, description, and the key's rules
// over a whole cell — how it is normalised, which grid problems and skip reasons it makes, whether
// crossovers are sought along it. Grid validation, expansion, skipping, a cell's JSON form
// (results columns), pairing, the analysis, `crossover keys` and the key table of docs/grids.md all
// read this list; adding a key is its declaration, its field in Cell, and the code that gives it
// meaning.

#include <array>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text/problem.hpp"
#include "core/text/words.hpp"

namespace crossover {

struct Cell;

/// What a key means when cells are compared.
enum class KeyRole {
  kIdentity,    ///< changes what is measured (workload, device, batch_size, ...): pairs split on it
  kProtection,  ///< how the cell is guarded (isolate, timeout_seconds): never splits a pair
  kPolicy,      ///< how long and how often it is measured (repeats, time budget, CI target)
};

/// The JSON a key takes.
enum class KeyKind {
  kInteger,
  kNumber,
  kBoolean,
  kText,
  kSizeOrFull,
  kShape,  ///< a list of positive integers (`input_shape`); min and max bound each
};

/// One grid key.
struct GridKey {
  std::string name;
  KeyRole role = KeyRole::kIdentity;
  KeyKind kind = KeyKind::kText;
  double min = 0.0;  ///< numbers (and each number of a shape): the inclusive range
  double max = 0.0;
  /// Text keys: the values it takes (with `pattern`: examples for a did-you-mean).
  std::vector<std::string> choices;
  /// Text keys with open values: the regular expression a value matches (`device`: cuda:N).
  std::string pattern;
  /// The workload declares the values (`dataset`): the grid checks them against its list.
  bool workload_choices = false;
  /// Other names people give the key ("batch" for batch_size), for an unknown key's suggestion.
  std::vector<std::string> also_called;
  /// Other words people give a value, and the key's word for it ("gpu" -> "cuda").
  std::vector<std::pair<std::string, std::string>> value_synonyms;
  std::string expected;     ///< in error messages: "a positive integer or \"full\""
  std::string description;  ///< one line: what the key does (the key table)
  /// The default as the key table shows it; empty: the value of a default Cell.
  std::string default_text;
  /// The default of CUDA cells where it differs (`isolate`); applied when a grid leaves it unset.
  std::optional<nlohmann::json> cuda_default;
  /// The value the key takes where it means nothing: on the CPU (`gpus` 0, `data_placement`
  /// "device"). Such a key never splits a cpu/cuda pair.
  std::optional<nlohmann::json> cpu_value;
  /// Means something on CUDA alone (`execution`): a CPU cell that sets it is skipped, and it
  /// never splits a cpu/cuda pair, so the CPU cell pairs with a CUDA cell of each value.
  bool cuda_only = false;
  /// Sets the host CPU's own arithmetic (`threads`): a predicted CUDA cell is made once, at the
  /// key's default, instead of once per value (the model's GPU is the same at each), and pairs
  /// with the CPU cell of each value (loosened).
  bool host_only = false;
  /// Set on a CUDA cell by a cuda_only key's value (`optimizer_impl` of a graph cell is fused):
  /// such a cell pairs also with the CPU cells of the other values, where its kind has no exact
  /// partner (loosened).
  bool follows_cuda_only = false;
  /// An axis along which the reports look for crossovers (a number whose size matters).
  bool numeric_axis = false;
  /// A setting whose effect the recommendations measure, each value against the first.
  bool knob = false;
  /// How the step is executed (`execution`, `optimizer_impl`, `precision`): report.md's modes
  /// table and the fastest mode on each device weigh its values against each other.
  bool mode = false;
  /// report.md's run table shows it in a column of its own (device, batch, rows, data path) or
  /// per workload, never among the keys whose values differ.
  bool fixed_column = false;
  bool settable = true;      ///< false: not a grid setting (`workload` is an experiment's own key)
  bool added_later = false;  ///< older results.jsonl lack it: reading keeps the default
  /// The cell's value as results store it; null for `repeats`, which only sets other keys.
  std::function<nlohmann::ordered_json(const Cell&)> get;
  /// Sets the cell's value from validated grid JSON or a results.jsonl value; throws
  /// std::runtime_error or nlohmann::json::exception for a value of the wrong type.
  std::function<void(Cell&, const nlohmann::json&)> set;
  // The key's rules over a whole expanded cell, applied in declaration order (null: none).
  /// Gives the key the one value it can take given the others (`optimizer_impl` of a graph
  /// cell is "fused"), so equal cells are not run twice.
  std::function<void(Cell&)> normalise;
  /// A grid error that the key's value makes with the others ("nproc 2 needs parallel \"ddp\"").
  std::function<Found(const Cell&)> problem;
  /// Why a cell cannot run with the key's value, on any machine (execution "graph" on the CPU):
  /// the cell is skipped with this reason.
  std::function<Found(const Cell&)> skip;
};

/// The keys that code elsewhere gives a meaning of their own (the device axis pairs by kind, the
/// host keeps machines apart, ...), named once here: code asks `is_key(name, Key::kDevice)`, never
/// compares a name with a literal. Each word is a declared key's name (a test checks it), so a
/// renamed key fails there, not silently where it is compared.
enum class Key { kWorkload, kDevice, kHost, kDatasetSize, kThreads, kGpus };

inline constexpr auto words(Key) {
  return std::array{std::pair{Key::kWorkload, std::string_view("workload")},
                    std::pair{Key::kDevice, std::string_view("device")},
                    std::pair{Key::kHost, std::string_view("host")},
                    std::pair{Key::kDatasetSize, std::string_view("dataset_size")},
                    std::pair{Key::kThreads, std::string_view("threads")},
                    std::pair{Key::kGpus, std::string_view("gpus")}};
}

/// Whether `name` names `key`.
inline bool is_key(std::string_view name, Key key) { return parse_word<Key>(name) == key; }

/// Every key, in results column order (`repeats`, a shorthand, after max_repeats).
const std::vector<GridKey>& grid_keys();

/// The declarations themselves (core/cells/key_declarations.cpp), made once by grid_keys().
std::vector<GridKey> declare_grid_keys();

/// The first rule of the keys' `problem` rules that `cell` breaks.
Found cell_problem(const Cell& cell);

/// The first of the keys' `skip` reasons for `cell`.
Found key_skip_reason(const Cell& cell);

/// Applies every key's `normalise` rule to `cell`, in declaration order.
void normalise_cell(Cell& cell);

/// The names of the keys along which crossovers are sought (numeric_axis), in declaration order.
std::vector<std::string> numeric_axis_names();

/// The names of the knobs (settings the recommendations weigh), in declaration order.
std::vector<std::string> knob_names();

/// The names of the execution modes (`mode`), in declaration order.
std::vector<std::string> mode_key_names();

/// The key an unknown key name most likely means: a key it is another name of ("batch" ->
/// batch_size), else the closest settable name; "" when none is close.
std::string suggest_key(const std::string& name);

/// The key called `name`, or null.
const GridKey* find_grid_key(const std::string& name);

/// Whether a text key takes `text`: one of its choices, or a match of its pattern.
bool takes_value(const GridKey& spec, const std::string& text);

/// Why a text key does not take `text` ("unknown device \"gpu\" (did you mean \"cuda\"?); expected
/// ..."; a synonym's word, else the closest choice); nothing when it takes it.
Found value_problem(const GridKey& spec, const std::string& text);

/// The names of the keys a grid may set, in order.
std::vector<std::string> settable_key_names();

/// The role of a key; an unknown name is an identity key.
KeyRole key_role(const std::string& name);

/// "identity", "protection" or "policy".
inline constexpr auto words(KeyRole) {
  return std::array{std::pair{KeyRole::kIdentity, std::string_view("identity")},
                    std::pair{KeyRole::kProtection, std::string_view("protection")},
                    std::pair{KeyRole::kPolicy, std::string_view("policy")}};
}

/// The default a key table shows: default_text, else the default Cell's value as JSON.
std::string default_text(const GridKey& key);

/// The key table of docs/grids.md (Markdown): key, role, values and meaning, default.
std::string key_table_markdown();

}  // namespace crossover
