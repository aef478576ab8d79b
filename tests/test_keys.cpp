// The grid key registry: one declaration per key drives validation, a cell's JSON form, roles,
// pairing and the key table of docs/grids.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/cells/cell.hpp"
#include "core/cells/keys.hpp"
#include "runner/grid/grid.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

TEST(Keys, EveryKeyIsDeclaredOnceWithWhatTheTableAndMessagesNeed) {
  std::set<std::string> names;
  for (const auto& key : grid_keys()) {
    EXPECT_TRUE(names.insert(key.name).second) << key.name << " declared twice";
    EXPECT_FALSE(key.expected.empty()) << key.name;
    EXPECT_FALSE(key.description.empty()) << key.name;
    EXPECT_TRUE(key.set) << key.name;
    if (key.kind == KeyKind::kInteger || key.kind == KeyKind::kNumber ||
        key.kind == KeyKind::kSizeOrFull) {
      EXPECT_LT(key.min, key.max) << key.name;
    }
  }
  // The columns of results.jsonl: every key with a field, in declaration order.
  const nlohmann::ordered_json config = cell_config_json(Cell{});
  std::vector<std::string> columns;
  for (const auto& [key, value] : config.items()) columns.push_back(key);
  std::vector<std::string> fields;
  for (const auto& key : grid_keys()) {
    if (key.get) fields.push_back(key.name);
  }
  EXPECT_EQ(columns, fields);
  EXPECT_EQ(find_grid_key("repeats")->get, nullptr);  // a shorthand, not a column
}

TEST(Keys, RolesSayWhatAKeyMeansForPairing) {
  EXPECT_EQ(key_role("batch_size"), KeyRole::kIdentity);
  EXPECT_EQ(key_role("isolate"), KeyRole::kProtection);
  EXPECT_EQ(key_role("ci_target"), KeyRole::kPolicy);
  EXPECT_EQ(key_role("repeats"), KeyRole::kPolicy);
  Cell a;
  Cell b = a;
  b.max_repeats = 40;
  b.isolate = true;
  b.timeout_seconds = 9;
  EXPECT_EQ(cell_identity_json(a), cell_identity_json(b));
  EXPECT_EQ(key_differences(a, b, KeyRole::kPolicy),
            std::vector<std::string>{"max_repeats 10 -> 40"});
  EXPECT_EQ(key_differences(a, b, KeyRole::kProtection),
            (std::vector<std::string>{"isolate false -> true", "timeout_seconds 0.0 -> 9.0"}));
  b.batch_size = 64;
  EXPECT_NE(cell_identity_json(a), cell_identity_json(b));
}

TEST(Keys, APairOfDevicesIgnoresTheKeysThatMeanNothingOnTheCpu) {
  Cell cpu;
  cpu.gpus = 0;
  Cell cuda = cpu;
  cuda.device = Device::cuda();
  cuda.gpus = 2;
  cuda.data_placement = Placement::kHost;
  EXPECT_EQ(pairing_key(cpu, "device"), pairing_key(cuda, "device"));
  EXPECT_FALSE(pairing_key(cpu, "device").contains("gpus"));
  // Along another axis the device and its GPUs are part of what is held fixed.
  EXPECT_NE(pairing_key(cpu, "threads"), pairing_key(cuda, "threads"));
  EXPECT_FALSE(pairing_key(cpu, "threads").contains("threads"));
  EXPECT_FALSE(pairing_key(cpu, "threads").contains("isolate"));
}

TEST(Keys, ACellGoesThroughItsJsonFormUnchanged) {
  Cell c;
  c.index = 7;
  c.workload = "mnist_mlp";
  c.dataset = "mnist";
  c.device = Device::cuda(1);
  c.batch_size = 128;
  c.dataset_size = kFull;
  c.num_workers = 2;
  c.pin_memory = true;
  c.threads = 3;
  c.min_repeats = 4;
  c.max_repeats = 9;
  c.ci_target = 0.05;
  c.isolate = true;
  c.timeout_seconds = 30;
  c.optimizer = Optimizer::kSgd;
  c.lr = 0.1;
  c.momentum = 0.9;
  nlohmann::json j = cell_config_json(c);
  j["cell"] = c.index;
  const Cell back = cell_from_json(j);
  EXPECT_EQ(cell_config_json(back), cell_config_json(c));
  EXPECT_EQ(back.index, 7u);
  EXPECT_EQ(back.batch_size, 128);
  EXPECT_EQ(back.dataset_size, kFull);
}

TEST(Keys, OlderResultsMayLackOnlyTheKeysAddedLater) {
  nlohmann::json j = cell_config_json(Cell{});
  j["cell"] = 0;
  for (const char* later : {"parallel", "nproc", "output_device", "isolate", "timeout_seconds"})
    j.erase(later);
  EXPECT_NO_THROW(cell_from_json(j));
  j.erase("threads");
  try {
    cell_from_json(j);
    FAIL() << "a results line without threads was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "missing key \"threads\"");
  }
  j = cell_config_json(Cell{});
  j["cell"] = 0;
  j["num_workers"] = "two";
  try {
    cell_from_json(j);
    FAIL() << "a mistyped num_workers was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("key \"num_workers\""), std::string::npos) << e.what();
  }
}

TEST(Keys, TheGridAcceptsEverySettableKeyAndRejectsItsOutOfRangeValues) {
  for (const auto& key : grid_keys()) {
    if (!key.settable || key.kind == KeyKind::kText || key.kind == KeyKind::kBoolean) continue;
    const std::string grid = R"({"name": "g", "experiments": [{"workload": "iris_mlp",
        "settings": {")" + key.name +
                             "\": " + nlohmann::json(key.max * 2 + 1).dump() + "}}]}";
    try {
      parse_grid(grid, "g.json");
      ADD_FAILURE() << key.name << " accepted a value above its range";
    } catch (const GridError& e) {
      ASSERT_EQ(e.issues().size(), 1u) << e.what();
      EXPECT_NE(e.issues()[0].message.find(key.expected), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_grid(R"({"name": "g", "experiments": [{"workload": "iris_mlp",
      "settings": {"workload": "iris_mlp"}}]})",
                          "g.json"),
               GridError);
}

TEST(Keys, ACudaDefaultAppliesOnlyWhereTheGridLeavesTheKeyUnset) {
  const auto cells = [](const std::string& settings) {
    return expand_grid(parse_grid(R"({"name": "g", "experiments": [{"workload": "iris_mlp",
        "settings": {)" + settings + R"(}, "grid": {"device": ["cpu", "cuda"]}}]})",
                                  "g.json"))
        .cells;
  };
  const auto unset = cells("\"epochs\": 1");
  EXPECT_FALSE(unset[0].isolate);
  EXPECT_TRUE(unset[1].isolate);
  EXPECT_EQ(unset[0].gpus, 0);  // cpu_value
  EXPECT_EQ(unset[1].gpus, 1);
  const auto set = cells("\"isolate\": false");
  EXPECT_FALSE(set[1].isolate);
}

TEST(Keys, TheKeyTableOfGridsMdIsTheRegistrys) {
  const std::string page = testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/docs/grids.md");
  const std::string table = key_table_markdown();
  EXPECT_NE(page.find(table), std::string::npos)
      << "docs/grids.md's key table differs from the registry; replace it with the output of "
         "`crossover keys --markdown`:\n"
      << table;
  for (const auto& name : settable_key_names())
    EXPECT_NE(table.find("| `" + name + "` |"), std::string::npos) << name;
}

TEST(Keys, AModeIsATypeWhoseWordsAreTheKeysChoices) {
  // The words of each mode key are its enum's, and a word goes through JSON and back.
  EXPECT_EQ(find_grid_key("parallel")->choices, word_list<Parallel>());
  EXPECT_EQ(find_grid_key("precision")->choices,
            (std::vector<std::string>{"fp32", "tf32", "bf16"}));
  Cell cell;
  find_grid_key("execution")->set(cell, "graph");
  EXPECT_EQ(cell.execution, Execution::kGraph);
  EXPECT_EQ(find_grid_key("execution")->get(cell), "graph");
  // A results file with a word the key does not take is refused, naming the words it takes.
  try {
    find_grid_key("loader")->set(cell, "pandas");
    FAIL() << "an unknown loader was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("expected one of \"tensor\", \"dataloader\""),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(device_kind("cuda:3"), DeviceKind::kCuda);
  EXPECT_EQ(device_kind("cpu"), DeviceKind::kCpu);
}

// The device is a type: its words are read and written in one place, "cuda" and "cuda:0" stay
// what the grid wrote (the same GPU, two values, as before), and a results file with any other
// text is refused naming it.
TEST(Keys, TheDeviceIsATypeWhoseWordsAreReadInOnePlace) {
  EXPECT_EQ(parse_device("cpu"), Device::cpu());
  EXPECT_EQ(parse_device("cuda"), Device::cuda());
  EXPECT_EQ(parse_device("cuda:12"), Device::cuda(12));
  for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:1234", "cuda:-1", "CPU", " cpu", ""})
    EXPECT_FALSE(parse_device(bad)) << bad;
  EXPECT_EQ(Device::cuda().text(), "cuda");
  EXPECT_EQ(Device::cuda(3).text(), "cuda:3");
  EXPECT_EQ(Device::cuda().cuda_index(), 0);
  EXPECT_EQ(Device::cuda(2).cuda_index(), 2);
  EXPECT_EQ(Device::cpu().cuda_index(), -1);
  EXPECT_NE(Device::cuda(), Device::cuda(0));
  EXPECT_LT(Device::cpu(), Device::cuda());
  EXPECT_LT(Device::cuda(2), Device::cuda(10));  // by index, not by text
  Cell cell;
  find_grid_key("device")->set(cell, "cuda:1");
  EXPECT_EQ(cell.device, Device::cuda(1));
  EXPECT_EQ(find_grid_key("device")->get(cell), "cuda:1");
  EXPECT_EQ(cell_config_json(cell)["device"], "cuda:1");
  for (const nlohmann::json& bad : {nlohmann::json("tpu"), nlohmann::json(1)}) {
    try {
      find_grid_key("device")->set(cell, bad);
      ADD_FAILURE() << "the device " << bad.dump() << " was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("unknown device " + bad.dump()), std::string::npos)
          << e.what();
    }
  }
}

// The reports keep no list of keys of their own: the execution modes and the run table's own
// columns are flags of the declarations, and each flag means what its readers assume.
TEST(Keys, TheReportsRolesOfAKeyAreFlagsOfItsDeclaration) {
  const std::vector<std::string> modes = mode_key_names();
  ASSERT_FALSE(modes.empty());
  const std::vector<std::string> knobs = knob_names();
  for (const std::string& name : modes) {
    const GridKey& key = *find_grid_key(name);
    // A mode is a knob the recommendations weigh, with words of its own, that sets a cell.
    EXPECT_NE(std::find(knobs.begin(), knobs.end(), name), knobs.end()) << name;
    EXPECT_FALSE(key.choices.empty()) << name;
    EXPECT_EQ(key.role, KeyRole::kIdentity) << name;
    EXPECT_FALSE(key.fixed_column) << name << ": the run table shows a mode where it varies";
  }
  std::size_t fixed = 0;
  for (const GridKey& key : grid_keys()) {
    if (!key.fixed_column) continue;
    ++fixed;
    // A key with a column of its own identifies the cell, and is never a mode or an axis the
    // table leaves out of sight.
    EXPECT_EQ(key.role, KeyRole::kIdentity) << key.name;
    EXPECT_FALSE(key.mode) << key.name;
  }
  EXPECT_GE(fixed, 4u);  // device, batch, rows and the data path at least
  EXPECT_TRUE(find_grid_key("device")->fixed_column);
  EXPECT_FALSE(find_grid_key("lr")->fixed_column);  // shown where it differs
}

TEST(Keys, EachKeysRulesOverACellComeFromItsDeclaration) {
  // Normalisation: a graph cell's optimiser is fused; a dataloader's batches are on the host;
  // a ddp cell on CUDA has one GPU per rank; output_device means something for dp alone.
  Cell cell;
  cell.device = Device::cuda();
  cell.execution = Execution::kGraph;
  cell.loader = Loader::kDataLoader;
  cell.parallel = Parallel::kDdp;
  cell.nproc = 4;
  cell.output_device = 2;
  cell.timeout_seconds = 5;
  normalise_cell(cell);
  EXPECT_EQ(cell.optimizer_impl, OptimizerImpl::kFused);
  EXPECT_EQ(cell.data_placement, Placement::kHost);
  EXPECT_EQ(cell.gpus, 4);
  EXPECT_EQ(cell.output_device, 0);
  EXPECT_TRUE(cell.isolate);
  // Grid problems and skip reasons are the keys' own, first in declaration order.
  Cell cpu;
  cpu.nproc = 2;
  EXPECT_EQ(cell_problem(cpu).value().text, "nproc 2 needs parallel \"ddp\"");
  cpu.nproc = 1;
  EXPECT_FALSE(cell_problem(cpu));
  cpu.execution = Execution::kGraph;
  EXPECT_NE(key_skip_reason(cpu).value().text.find("execution \"graph\""), std::string::npos);
  cpu.execution = Execution::kEager;
  EXPECT_FALSE(key_skip_reason(cpu));
  // The analysis's axes and knobs are declared, not listed by name elsewhere.
  for (const std::string& axis : numeric_axis_names()) {
    const GridKey* key = find_grid_key(axis);
    EXPECT_TRUE(key->kind == KeyKind::kInteger || key->kind == KeyKind::kSizeOrFull) << axis;
    EXPECT_EQ(key->role, KeyRole::kIdentity) << axis;
  }
  const auto knobs = knob_names();
  EXPECT_NE(std::find(knobs.begin(), knobs.end(), "precision"), knobs.end());
  EXPECT_EQ(std::find(knobs.begin(), knobs.end(), "device"), knobs.end());
}

// The places in `text` that compare a text with a declared key's name written out
// (`axis == "device"`), as "name" each.
std::vector<std::string> literal_key_comparisons(const std::string& text) {
  std::vector<std::string> found;
  for (const GridKey& key : grid_keys())
    for (const char* op : {"== \"", "!= \""})
      for (auto at = text.find(op + key.name + "\""); at != std::string::npos;
           at = text.find(op + key.name + "\"", at + 1))
        found.push_back(key.name);
  return found;
}

// The keys that code gives a meaning of its own are named by Key, each word a declared key's
// name; no source compares a name with a key's name written out.
TEST(Keys, CodeNamesAKeyByItsDeclarationNotByALiteral) {
  for (const std::string& word : word_list<Key>())
    EXPECT_NE(find_grid_key(word), nullptr) << word << " names no declared key";
  EXPECT_TRUE(is_key("device", Key::kDevice));
  EXPECT_FALSE(is_key("devices", Key::kDevice));
  namespace fs = std::filesystem;
  const fs::path root(CROSSOVER_SOURCE_DIR);
  std::size_t scanned = 0;
  for (const char* top : {"core", "runner", "workloads", "reports"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      ++scanned;
      for (const std::string& name : literal_key_comparisons(testing::slurp(entry.path())))
        ADD_FAILURE() << fs::relative(entry.path(), root).string() << " compares a name with \""
                      << name << "\" written out; ask is_key(name, Key::...) (core/cells/keys.hpp)";
    }
  }
  EXPECT_GT(scanned, 100u);
  // The check itself finds what it looks for.
  EXPECT_EQ(literal_key_comparisons("if (spec.axis == \"device\" || k != \"host\")").size(), 2u);
  EXPECT_TRUE(literal_key_comparisons("is_key(spec.axis, Key::kDevice); x == \"devices\"").empty());
}

}  // namespace
}  // namespace crossover
