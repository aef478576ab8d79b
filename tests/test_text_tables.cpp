// The tables data tools and people read: results.csv's rows of cells that measured nothing, the
// names of cells, and texts many rows share said once under a table.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/records/result_files.hpp"
#include "reports/analysis/cell_names.hpp"
#include "reports/render/table_writer.hpp"

namespace crossover {
namespace {

// A predicted row of results.csv: no predicted time in a measured column, which is empty (a data
// tool's minimum never takes it), and a measured row's model account is no prediction.
TEST(Report, ACsvRowOfAPredictedCellLeavesItsMeasuredColumnsEmpty) {
  Result r;
  r.cell.workload = "iris_mlp";
  r.cell.dataset = "iris";
  r.cell.device = Device::cuda();
  r.cell.gpus = 1;
  r.cell.dataset_size = 100;
  r.epoch_seconds = 0.0015;
  r.status = CellStatus::kPredicted;
  r.prediction.predicted_epoch_seconds = 0.0015;
  r.steps_per_second = 666.0;
  r.samples_per_second = 6.7e6;
  r.prediction.prediction_error = 0.98;
  std::vector<std::string> header, row;
  const auto split = [](std::string line, std::vector<std::string>& out) {
    line.pop_back();
    for (std::size_t at = 0, next; at <= line.size(); at = next + 1) {
      next = line.find(',', at);
      if (next == std::string::npos) next = line.size();
      out.push_back(line.substr(at, next - at));
    }
  };
  split(csv_header(), header);
  split(csv_row(r), row);
  ASSERT_EQ(header.size(), row.size());
  const auto column = [&](const std::string& name) {
    return row[std::find(header.begin(), header.end(), name) - header.begin()];
  };
  for (const char* measured :
       {"epoch_seconds", "step_seconds", "steps_per_second", "samples_per_second",
        "epoch_seconds_ci_low", "cost_per_epoch", "joules_per_epoch"})
    EXPECT_EQ(column(measured), "") << measured;
  // A measured flag is false where nothing was measured: pandas reads the column as bool.
  for (const char* flag : {"noisy", "throttled"}) EXPECT_EQ(column(flag), "false") << flag;
  EXPECT_EQ(column("predicted_epoch_seconds"), "0.0015");
  EXPECT_EQ(column("model_epoch_seconds"), "");
  EXPECT_EQ(column("prediction_error"), "0.98");
  EXPECT_EQ(column("status"), "predicted");
  EXPECT_EQ(column("dataset_size"), "100");
  EXPECT_EQ(column("dataset_rows"), "100");
  // A measured row: its time where it was measured, the model's account under model_*; "full"
  // rows as the training rows it had.
  r.status = CellStatus::kOk;
  r.cell.dataset_size = kFull;
  r.train_rows = 5000;
  row.clear();
  split(csv_row(r), row);
  EXPECT_EQ(column("epoch_seconds"), "0.0015");
  EXPECT_EQ(column("predicted_epoch_seconds"), "");
  EXPECT_EQ(column("model_epoch_seconds"), "0.0015");
  EXPECT_EQ(column("dataset_rows"), "5000");
  EXPECT_EQ(column("prediction_error"), "");  // a predicted cell's band; a measured row has none
}

// A CPU cell has no GPU count: its name never carries `gpus`, and a CUDA cell's carries it only
// where the CUDA cells differ in it.
TEST(CellNames, ACpuCellIsNamedWithoutAGpuCount) {
  const auto config = [](const std::string& device, int gpus) {
    return nlohmann::ordered_json{{"workload", "iris_mlp"}, {"device", device}, {"gpus", gpus}};
  };
  EXPECT_EQ(distinguishing_names({config("cpu", 0), config("cuda", 1)}),
            (std::vector<std::string>{"iris_mlp device=cpu", "iris_mlp device=cuda"}));
  EXPECT_EQ(distinguishing_names({config("cpu", 0), config("cuda", 1), config("cuda", 2)}),
            (std::vector<std::string>{"iris_mlp device=cpu", "iris_mlp device=cuda gpus=1",
                                      "iris_mlp device=cuda gpus=2"}));
}

// A reason many rows share, or a long one, is said once under the table, with the cells it
// covers as ranges; a short one of one row stays in its row.
TEST(TextTables, ALongOrSharedTextIsSaidOnceUnderTheTable) {
  TextTable t;
  t.header = {"#", "why"};
  const std::string shared = "no CUDA: this crossover was built against a LibTorch without CUDA";
  t.rows = {{"6", shared}, {"7", shared},  {"8", "short"},
            {"9", shared}, {"12", shared}, {"13", std::string(70, 'x')}};
  footnote_column(t, 1, {"6", "7", "8", "9", "12", "13"});
  EXPECT_EQ(t.rows[0][1], "[1]");
  EXPECT_EQ(t.rows[4][1], "[1]");
  EXPECT_EQ(t.rows[2][1], "short");
  EXPECT_EQ(t.rows[5][1], "[2]");
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_EQ(t.notes[0], "[1] 4 cells (6-7, 9, 12): " + shared);
  EXPECT_EQ(t.notes[1], "[2] 1 cell (13): " + std::string(70, 'x'));
  const std::string text = render_text_table(t);
  EXPECT_EQ(text.find(shared), text.rfind(shared));  // once
  EXPECT_NE(text.find("\n[1] 4 cells (6-7, 9, 12): no CUDA"), std::string::npos) << text;
  const std::string md = render_markdown_table(t);
  EXPECT_NE(md.find("| 6 | [1] |"), std::string::npos) << md;
  EXPECT_NE(md.find("\n- [1] 4 cells (6-7, 9, 12): no CUDA"), std::string::npos) << md;
  // Rows named otherwise (a compare's cells by name) are counted, not listed.
  TextTable named;
  named.header = {"cell", "why"};
  named.rows = {{"a", shared}, {"b", shared}};
  footnote_column(named, 1, {});
  EXPECT_EQ(named.notes.front(), "[1] 2 rows: " + shared);
}

}  // namespace
}  // namespace crossover
