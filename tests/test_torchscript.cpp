// A user's TorchScript model: scripted modules these tests write with LibTorch's own compiler
// (torch::jit::Module::define), saved, loaded back, trained and counted.
#include <caffe2/serialize/inline_container.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>

#include "runner/execution/executor.hpp"
#include "runner/grid/model_check.hpp"
#include "tests/test_support.hpp"
#include "workloads/data/catalog.hpp"
#include "workloads/models/torchscript.hpp"
#include "workloads/models/user_model.hpp"
#include "workloads/training/precision.hpp"
#include "workloads/training/supervised.hpp"

namespace crossover {
namespace {

// A 4-8-3 MLP written in TorchScript: two matrix products, ReLU between.
torch::jit::Module scripted_mlp() {
  torch::manual_seed(0);
  torch::jit::Module m("UserMlp");
  m.register_attribute("training", c10::BoolType::get(), true);  // as every nn.Module has
  // As nn.Parameter: trainable.
  m.register_parameter("w1", (torch::randn({8, 4}) * 0.5).requires_grad_(), false);
  m.register_parameter("b1", torch::zeros({8}, torch::requires_grad()), false);
  m.register_parameter("w2", (torch::randn({3, 8}) * 0.5).requires_grad_(), false);
  m.register_parameter("b2", torch::zeros({3}, torch::requires_grad()), false);
  m.define(R"(
    def forward(self, x):
        h = torch.relu(torch.addmm(self.b1, x, self.w1.t()))
        return torch.addmm(self.b2, h, self.w2.t())
  )");
  return m;
}

// One 3x3 convolution, 1 -> 2 channels, padding 1, then a linear head over the 2x5x5 map.
torch::jit::Module scripted_cnn() {
  torch::jit::Module m("UserCnn");
  m.register_attribute("training", c10::BoolType::get(), true);
  m.register_parameter("conv", torch::randn({2, 1, 3, 3}), false);
  m.register_parameter("head", torch::randn({3, 50}), false);
  m.define(R"(
    def forward(self, x):
        y = torch.conv2d(x, self.conv, None, [1, 1], [1, 1], [1, 1], 1)
        return torch.matmul(torch.flatten(y, 1), self.head.t())
  )");
  return m;
}

TEST(TorchScript, AUserModelTrainsThroughItsOwnParameters) {
  const testing::ScratchDir dir;
  scripted_mlp().save(dir.file("mlp.pt"));
  torch::jit::Module loaded = load_scripted_model(dir.file("mlp.pt"));
  ScriptedModel model(loaded);
  EXPECT_EQ(model->parameters().size(), 4u);
  // Separable rows: class = which of the first three features is largest.
  TensorData d;
  d.x_train = torch::randn({256, 4});
  d.y_train = d.x_train.slice(1, 0, 3).argmax(1);
  d.x_test = torch::randn({64, 4});
  d.y_test = d.x_test.slice(1, 0, 3).argmax(1);
  d.data_source = DataSource::kSynthetic;
  DataPath path;
  path.batch_size = 32;
  TrainingSpec spec;
  spec.lr = 0.01;
  SupervisedWorkload w(
      d,
      [path_ = dir.file("mlp.pt")] {
        return torch::nn::AnyModule(ScriptedModel(load_scripted_model(path_)));
      },
      spec, path, torch::Device("cpu"), 0.0);
  w.reset(0);
  const double first = w.train_epoch().item<double>();
  double last = first;
  for (int e = 0; e < 30; ++e) last = w.train_epoch().item<double>();
  EXPECT_LT(last, first * 0.5);
  EXPECT_GT(w.evaluate(), 0.8);
  // What the optimiser moved is what the script runs: the wrapper and the script agree.
  const torch::Tensor x = torch::randn({5, 4});
  const torch::Tensor direct = loaded.forward({x}).toTensor();
  EXPECT_TRUE(torch::allclose(model->forward(x), direct));
  {
    torch::NoGradGuard no_grad;
    model->parameters()[0].add_(1.0);
  }
  EXPECT_TRUE(torch::allclose(model->forward(x), loaded.forward({x}).toTensor()));
  EXPECT_FALSE(torch::allclose(loaded.forward({x}).toTensor(), direct));
  // train() and eval() reach the script.
  model->eval();
  EXPECT_FALSE(loaded.is_training());
  model->train();
  EXPECT_TRUE(loaded.is_training());
}

TEST(TorchScript, FlopsAreCountedFromTheOperatorsOneSampleRuns) {
  torch::jit::Module mlp = scripted_mlp();
  // Forward: 4 x 8 + 8 x 3 multiply-adds; training: three times that, two FLOPs each.
  EXPECT_DOUBLE_EQ(estimate_training_flops(mlp, {4}), 3.0 * 2.0 * (4 * 8 + 8 * 3));
  torch::jit::Module cnn = scripted_cnn();
  // 25 output positions x 2 x 1 x 9, then 50 x 3.
  EXPECT_DOUBLE_EQ(estimate_training_flops(cnn, {1, 5, 5}), 3.0 * 2.0 * (25 * 18 + 50 * 3));
  EXPECT_TRUE(mlp.is_training());  // counted in eval mode, given back as it was
}

TEST(TorchScript, FilesThatAreNoScriptedModelSayWhatToDo) {
  const testing::ScratchDir dir;
  const auto message = [](const std::string& path) {
    try {
      load_scripted_model(path);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_NE(message(dir.file("absent.pt")).find("does not exist"), std::string::npos);
  EXPECT_NE(message(dir.write("text.pt", "not a model")).find("not a zip file"), std::string::npos);
  // A state_dict as torch.save writes it: a zip archive of pickled tensors, no code.
  c10::Dict<std::string, torch::Tensor> state;
  state.insert("w1", torch::randn({8, 4}));
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(state));
  const std::string saved = dir.write("state.pt", std::string(bytes.begin(), bytes.end()));
  const std::string said = message(saved);
  EXPECT_NE(said.find("saved with torch.save"), std::string::npos) << said;
  EXPECT_NE(said.find("torch.jit.script(model).save(path)"), std::string::npos) << said;
  torch::jit::Module frozen = scripted_mlp();
  for (auto p : frozen.parameters()) p.requires_grad_(false);
  EXPECT_THROW(ScriptedModel{frozen}, std::runtime_error);
  // A FIFO given as the model is refused without opening it (which would block).
  ASSERT_EQ(mkfifo(dir.file("fifo.pt").c_str(), 0600), 0);
  EXPECT_NE(message(dir.file("fifo.pt")).find("FIFO"), std::string::npos)
      << message(dir.file("fifo.pt"));
  scripted_mlp().save(dir.file("good.pt"));
  EXPECT_EQ(message(dir.file("good.pt")), "loaded");
  // The same archive stamped with a format version from a future PyTorch.
  {
    caffe2::serialize::PyTorchStreamReader reader(dir.file("good.pt"));
    caffe2::serialize::PyTorchStreamWriter writer(dir.file("future.pt"));
    writer.setMinVersion(99);
    for (const std::string& name : reader.getAllRecords()) {
      if (name == "version" || name == ".data/version") continue;
      const auto [data, size] = reader.getRecord(name);
      writer.writeRecord(name, data.get(), size);
    }
    writer.writeEndOfFile();
  }
  // Checked as validate checks it, in a child process: LibTorch 1.13's reader leaks its zip state
  // when it refuses a version (LeakSanitizer sees it in a test's own process).
  Cell future_cell;
  future_cell.workload = "torchscript";
  future_cell.model = dir.file("future.pt");
  future_cell.input_shape = {4};
  future_cell.classes = 3;
  const auto issues = check_user_models({future_cell});
  ASSERT_EQ(issues.size(), 1u);
  const std::string future = issues.front().message;
  EXPECT_NE(future.find("written by a newer PyTorch"), std::string::npos) << future;
  EXPECT_NE(future.find("future.pt"), std::string::npos) << future;
  // The example model goes through the project's writer: a link in its place is not followed.
  std::filesystem::create_symlink(dir.file("target.pt"), dir.file("link.pt"));
  EXPECT_THROW(write_example_model(dir.file("link.pt")), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(dir.file("target.pt")));
}

// precision "bf16" autocasts the scripted graph as it does a C++ module: LibTorch's interpreter
// calls each operator through the dispatcher, where autocast sits. Checked on every run of the
// graph, since the profiling executor rewrites it after its first runs.
TEST(TorchScript, Bf16AutocastReachesTheScriptedGraph) {
  torch::jit::Module mlp = scripted_mlp();
  for (int run = 0; run < 4; ++run) {
    const AutocastScope autocast(true, torch::kCPU);
    const torch::Tensor out = mlp.forward({torch::randn({5, 4})}).toTensor();
    EXPECT_EQ(out.scalar_type(), torch::kBFloat16) << "run " << run;
  }
  const torch::Tensor plain = mlp.forward({torch::randn({5, 4})}).toTensor();
  EXPECT_EQ(plain.scalar_type(), torch::kFloat);
}

Cell example_cell(const std::string& model) {
  Cell c;
  c.workload = "torchscript";
  c.dataset = "synthetic";
  c.model = model;
  c.input_shape = {20};
  c.classes = 4;
  c.dataset_size = 512;
  c.batch_size = 64;
  c.lr = 0.01;
  c.epochs = 10;
  c.warmup_epochs = 0;
  c.min_repeats = c.max_repeats = 2;
  return c;
}

// A check's problem in words, or a word that no expected text contains.
std::string said(const Found& problem) { return problem ? problem->text : "(no problem)"; }

// Each way a model can disagree with its cell is said with the file's name and what to fix.

TEST(TorchScript, AModelThatDisagreesWithItsCellIsNamedWithWhatToFix) {
  const testing::ScratchDir dir;
  write_example_model(dir.file("example.pt"));
  Cell c = example_cell(dir.file("example.pt"));
  EXPECT_FALSE(user_model_problem(c));
  c.input_shape = {21};
  std::string p = said(user_model_problem(c));
  EXPECT_NE(p.find("model " + dir.file("example.pt") +
                   ": its forward rejects input_shape [21] "
                   "(a batch [2, 21]): RuntimeError: mat1 and mat2 shapes cannot be multiplied"),
            std::string::npos)
      << p;
  c.input_shape = {20};
  c.classes = 5;
  p = said(user_model_problem(c));
  EXPECT_NE(p.find("gives an output of [2, 4], where classes 5 expects [2, 5]"), std::string::npos)
      << p;
  c.classes = 0;
  c.outputs = 4;  // four regression targets: the same output width
  EXPECT_FALSE(user_model_problem(c));
  torch::jit::Module frozen = torch::jit::load(dir.file("example.pt"));
  for (auto t : frozen.parameters()) t.requires_grad_(false);
  frozen.save(dir.file("frozen.pt"));
  c.model = dir.file("frozen.pt");
  EXPECT_NE(said(user_model_problem(c)).find("no trainable parameters"), std::string::npos);
  c.model = dir.file("absent.pt");
  EXPECT_NE(said(user_model_problem(c)).find("does not exist"), std::string::npos);
}

// A torchscript cell through the executor: trained, its metric recorded, its FLOPs estimated.
TEST(TorchScript, ACellTrainsItThroughTheExecutor) {
  const testing::ScratchDir dir;
  write_example_model(dir.file("example.pt"));
  for (const int outputs : {0, 4}) {
    Cell c = example_cell(dir.file("example.pt"));
    if (outputs > 0) {
      c.classes = 0;
      c.outputs = outputs;
    }
    const Result r = run_cell(c, RunOptions{});
    ASSERT_EQ(r.status, CellStatus::kOk) << r.reason;
    EXPECT_EQ(r.flops_source, "estimated");
    EXPECT_DOUBLE_EQ(r.flops_per_sample, 3.0 * 2.0 * (20 * 64 + 64 * 64 + 64 * 4));
    EXPECT_EQ(r.train_rows, 512);
    EXPECT_EQ(r.test_rows, 256);
    if (outputs > 0) {
      EXPECT_EQ(r.metric, "rmse");
      EXPECT_LT(r.metric_value, 1.0);  // the targets have unit variance
    } else {
      EXPECT_EQ(r.metric, "accuracy");
      EXPECT_GT(r.metric_value, 0.5);  // four classes: chance is 0.25
    }
  }
  // The samples: their shape, their labels, the same for the same seed.
  const TensorData d = synthetic_samples({3, 4, 4}, 5, 0, 100, 1);
  EXPECT_EQ(d.x_train.sizes(), (std::vector<std::int64_t>{100, 3, 4, 4}));
  EXPECT_EQ(d.x_test.size(0), 256);
  EXPECT_LE(d.y_train.max().item<std::int64_t>(), 4);
  EXPECT_TRUE(torch::equal(d.x_train, synthetic_samples({3, 4, 4}, 5, 0, 100, 1).x_train));
  // At dataset_size "full", the rows the catalog declares.
  const WorkloadInfo& declared = *find_workload(kUserModelWorkload);
  const TensorData full = synthetic_samples({2}, 3, 0, kFull, 1);
  EXPECT_EQ(full.x_train.size(0), declared.made_train_rows);
  EXPECT_EQ(full.x_test.size(0), declared.made_test_rows);
}

// Each distinct model is checked once, in a child process: one whose check crashes is an issue
// that says so, and the process that asked lives on.
TEST(TorchScript, AModelWhoseCheckCrashesIsAnIssueNotACrash) {
  const testing::ScratchDir dir;
  write_example_model(dir.file("example.pt"));
  std::vector<Cell> cells(3, example_cell(dir.file("example.pt")));
  cells[1].batch_size = 8;  // the same model setting: checked once
  cells[2].model = "/no/such.pt";
  cells[2].experiment = 1;
  std::vector<GridIssue> issues = check_user_models(cells);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "experiments[1]");
  EXPECT_NE(issues[0].message.find("/no/such.pt does not exist"), std::string::npos);
  issues = check_user_models(cells, [](const Cell& c) -> Found {
    if (c.model == "/no/such.pt") std::raise(SIGABRT);  // (a SIGSEGV is ASan's to report)
    return std::nullopt;
  });
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("model /no/such.pt crashed LibTorch while loading or running "
                                   "one batch (Aborted)"),
            std::string::npos)
      << issues[0].message;
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// A scripted module of one trainable weight whose forward is `body` (x: the batch).
torch::jit::Module scripted_with(const std::string& body) {
  torch::jit::Module m("Odd");
  m.register_attribute("training", c10::BoolType::get(), true);
  m.register_parameter("w", torch::ones({20, 4}, torch::requires_grad()), false);
  m.define("def forward(self, x):\n" + body);
  return m;
}

// What validate says of models that load but cannot be trained, or that say why themselves.
TEST(TorchScript, ValidateNamesWhatMakesAModelUntrainable) {
  const testing::ScratchDir dir;
  Cell c = example_cell(dir.file("model.pt"));
  const auto problem_of = [&](const std::string& body) {
    scripted_with(body).save(dir.file("model.pt"));
    return said(user_model_problem(c));
  };
  std::string p = problem_of("    return torch.matmul(x, self.w).long()\n");
  EXPECT_NE(p.find("returns a tensor of Long, which no loss can be trained through"),
            std::string::npos)
      << p;
  p = problem_of("    return torch.matmul(x, self.w) > 0\n");
  EXPECT_NE(p.find("returns a tensor of Bool"), std::string::npos) << p;
  p = problem_of("    return torch.matmul(x, self.w) / 0.0 * 0.0\n");
  EXPECT_NE(p.find("gives NaN or infinite outputs"), std::string::npos) << p;
  // The model's own exception, not the interpreter's first line.
  p = problem_of(
      "    assert x.size(0) == 3, 'the batch must hold 3 samples'\n"
      "    return torch.matmul(x, self.w)\n");
  EXPECT_NE(p.find("the batch must hold 3 samples"), std::string::npos) << p;
  EXPECT_EQ(p.find("The following operation failed"), std::string::npos) << p;
  EXPECT_EQ(p.find('\n'), std::string::npos) << p;
  EXPECT_EQ(problem_of("    return torch.matmul(x, self.w)\n"), "(no problem)");
  // A zip that is neither TorchScript nor torch.save's is not called a state_dict.
  {
    caffe2::serialize::PyTorchStreamWriter writer(dir.file("docs.zip"));
    const std::string text = "hello";
    writer.writeRecord("readme.txt", text.data(), text.size());
    writer.writeEndOfFile();
  }
  c.model = dir.file("docs.zip");
  p = said(user_model_problem(c));
  EXPECT_NE(p.find("neither a TorchScript module"), std::string::npos) << p;
  EXPECT_EQ(p.find("state_dict"), std::string::npos) << p;
}

// A check that takes too long is stopped and named with its limit; the process that asked goes
// on at once, not when the check ends.
TEST(TorchScript, AModelCheckThatHangsIsStoppedAtItsLimit) {
  Cell c = example_cell("/models/slow.pt");
  const auto start = std::chrono::steady_clock::now();
  const auto issues = check_user_models(
      {c},
      [](const Cell&) -> Found {
        for (;;) pause();  // a forward that never returns
      },
      0.5);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("model /models/slow.pt: its check (load it and run one batch of "
                                   "input_shape) did not finish within 0.5 s"),
            std::string::npos)
      << issues[0].message;
  EXPECT_NE(issues[0].message.find("--model-check-seconds"), std::string::npos);
}

// A user's model whose loss becomes NaN fails its cell with why, never an ok cell with loss "-".
TEST(TorchScript, ANanLossFailsTheCell) {
  const testing::ScratchDir dir;
  write_example_model(dir.file("example.pt"));
  Cell c = example_cell(dir.file("example.pt"));
  c.lr = 1e30;  // diverges within the first steps
  c.epochs = 3;
  const Result r = run_cell(c, RunOptions{});
  EXPECT_EQ(r.status, CellStatus::kFailed);
  EXPECT_NE(r.reason.find("the model's training loss is "), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("after its last epoch"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace crossover
