// Report writers against golden text built from hand-made results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/cells/keys.hpp"
#include "core/records/result_files.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/analysis/cell_names.hpp"
#include "reports/analysis/comparison.hpp"
#include "reports/render/report_markdown.hpp"
#include "reports/render/table_writer.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

Result made(const std::string& device, std::int64_t size, double median, double iqr,
            CellStatus status = CellStatus::kOk) {
  Result r;
  r.cell.workload = "iris_mlp";
  r.cell.dataset = "iris";
  r.cell.device = parse_device(device).value();
  r.cell.gpus = device == "cpu" ? 0 : 1;
  r.cell.dataset_size = size;
  r.cell.epochs = 10;
  r.status = status;
  if (status == CellStatus::kOk) {
    r.data_source = DataSource::kReal;
    r.epoch_seconds = median;
    r.epoch_seconds_p25 = median - iqr / 2;
    r.epoch_seconds_p75 = median + iqr / 2;
    // 21 samples evenly over median +- iqr: their interquartile range is about `iqr`.
    for (int i = -10; i <= 10; ++i) r.epoch_seconds_samples.push_back(median + iqr * i / 10.0);
    r.metric = "accuracy";
    r.metric_value = 0.95;
    r.startup_seconds = device == "cpu" ? 0.01 : 0.1;  // a GPU's context and first calls cost
    r.first_epoch_seconds = median * 2;
  } else {
    r.reason = "no CUDA device found on this machine";
  }
  return r;
}

// Gives each result its position as its cell index, as results read from a run have.
std::vector<Result> indexed(std::vector<Result> results) {
  for (std::size_t i = 0; i < results.size(); ++i) results[i].cell.index = i;
  return results;
}

TEST(Comparison, PairsCellsThatDifferOnlyInDeviceAndNamesAWinnerOnlyOutsideTheNoise) {
  const std::vector<Result> results = indexed({
      made("cpu", 100, 0.001, 0.0001),
      made("cuda", 100, 0.004, 0.0002),  // CPU clearly faster
      made("cpu", 100000, 0.100, 0.004),
      made("cuda", 100000, 0.010, 0.001),  // GPU clearly faster
      made("cpu", 1000, 0.010, 0.004),
      made("cuda", 1000, 0.0105, 0.004),  // within the noise
      made("cpu", 5000, 0.020, 0.001),
      made("cuda", 5000, 0, 0, CellStatus::kSkipped),
  });
  const auto comparisons = compare_devices(results);
  ASSERT_EQ(comparisons.size(), 1u);
  const TextTable& table = comparisons[0].table;
  // One unit per column, said in its header; stacked words where a header is wide.
  EXPECT_EQ(table.header,
            (std::vector<std::string>{"dataset_size", "cpu ms", "cuda ms", "speedup\ncuda",
                                      "cuda\nwins after", "winner"}));
  ASSERT_EQ(table.rows.size(), 4u);
  // In ascending order along the axis, whatever order the cells ran in.
  for (const auto& [row, size] : {std::pair{0, "100"}, {1, "1000"}, {2, "5000"}, {3, "100000"}})
    EXPECT_EQ(table.rows[row][0], size);
  EXPECT_EQ(table.rows[0][5], "cpu");
  EXPECT_EQ(table.rows[3][5], "cuda");
  EXPECT_EQ(table.rows[3][4], "1 epoch");
  EXPECT_EQ(table.rows[1][5], "tie");
  EXPECT_EQ(table.rows[0][1], "1 ± 0.1");  // the median and its spread in the column's ms
  EXPECT_EQ(table.rows[3][1], "100 ± 4");
  EXPECT_EQ(table.rows[2][2], "skipped");
  EXPECT_EQ(table.rows[2][5], "-");
}

TEST(Comparison, TheDeviceTableAndTheCrossoverPairsUseOneWinnerRule) {
  // Interquartile ranges that overlap, but medians whose bootstrap interval excludes 1: the old
  // device table called this a tie while the crossover statement named the GPU.
  const std::vector<Result> results =
      indexed({made("cpu", 1000, 0.010, 0.004), made("cuda", 1000, 0.007, 0.004),
               made("cpu", 2000, 0.010, 0.004), made("cuda", 2000, 0.0098, 0.004)});
  ASSERT_LE(results[1].epoch_seconds_p25, results[0].epoch_seconds_p75);  // the IQRs overlap
  const auto pairs = pair_results(results, parse_compare("device=cpu:cuda"));
  ASSERT_EQ(pairs.size(), 2u);
  const auto comparisons = compare_devices(results);
  ASSERT_EQ(comparisons.size(), 1u);
  const TextTable& table = comparisons[0].table;
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(pairs[0].winner, Winner::kContender);
  EXPECT_EQ(table.rows[0][5], "cuda");
  EXPECT_EQ(pairs[1].winner, Winner::kTie);
  EXPECT_EQ(table.rows[1][5], "tie");
  for (std::size_t i = 0; i < 2; ++i) {  // the same interval, to the digit shown, in both places
    EXPECT_EQ(table.rows[i][3], ratio_text(pairs[i].speedup) + "x [" + ratio_text(pairs[i].ci.low) +
                                    ", " + ratio_text(pairs[i].ci.high) + "]");
  }
}

TEST(Comparison, EveryDevicePairOfTheAnalysisIsOnOneRowHostDataIncluded) {
  // The tensor loader's data on the host is a CUDA-only setting: the old device table put such a
  // cell on a row of its own, without the CPU it pairs with in the crossover analysis.
  std::vector<Result> results =
      indexed({made("cpu", 1000, 0.010, 0.001), made("cuda", 1000, 0.002, 0.0002),
               made("cuda", 1000, 0.004, 0.0002)});
  results[2].cell.data_placement = Placement::kHost;
  EXPECT_EQ(pair_results(results, parse_compare("device=cpu:cuda")).size(), 2u);
  const auto comparisons = compare_devices(results);
  ASSERT_EQ(comparisons.size(), 1u);
  const TextTable& table = comparisons[0].table;
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_NE(std::find(table.header.begin(), table.header.end(), "cuda @host ms"),
            table.header.end());
  EXPECT_NE(std::find(table.header.begin(), table.header.end(), "speedup\ncuda @host"),
            table.header.end());
  EXPECT_EQ(table.rows[0].back(), "cuda");  // the faster of the two, outside the noise
}

// `threads` sets the CPU's own arithmetic: a predicted CUDA cell is made once, at the default,
// and pairs with the CPU cell of every thread count, in the pairs and in the device table alike;
// a measured one pairs with its own thread count only.
TEST(Comparison, APredictedCudaCellPairsWithTheCpuCellOfEveryThreadCount) {
  std::vector<Result> results =
      indexed({made("cpu", 100, 0.010, 0.001), made("cpu", 100, 0.012, 0.001),
               made("cuda", 100, 0.001, 0.0001)});
  results[1].cell.threads = 1;
  Result& gpu = results[2];
  const auto both_rows_name = [&](const std::string& winner) {
    const auto comparisons = compare_devices(results);
    ASSERT_EQ(comparisons.size(), 1u);
    const TextTable& table = comparisons[0].table;
    ASSERT_EQ(table.rows.size(), 2u);
    for (const auto& row : table.rows) EXPECT_EQ(row.back(), winner) << join(row, " | ");
  };
  gpu.status = CellStatus::kPredicted;
  gpu.prediction.prediction_error = 0.5;
  auto pairs = pair_results(results, parse_compare("device=cpu:cuda"));
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].contender, &gpu);
  EXPECT_EQ(pairs[1].contender, &gpu);
  EXPECT_EQ(pairs[1].baseline, &results[1]);
  both_rows_name("cuda (predicted)");
  // Measured on a GPU, threads 1 has no CUDA cell of its own: no pair, and a row without one.
  gpu.status = CellStatus::kOk;
  pairs = pair_results(results, parse_compare("device=cpu:cuda"));
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].baseline, &results[0]);
  const auto table = compare_devices(results)[0].table;
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[1].back(), "-");
}

TEST(RunTable, ShowsTheIdentityKeysThatVaryAndNoOthers) {
  std::vector<Result> results =
      indexed({made("cpu", 1000, 0.010, 0.001), made("cpu", 1000, 0.012, 0.001)});
  results[1].cell.optimizer = Optimizer::kSgd;
  results[1].cell.max_repeats = 40;  // a policy key: never a column
  ReportContext context;
  const std::string md = render_markdown(context, results);
  EXPECT_NE(md.find("| data path | optimizer | status |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| max_repeats"), std::string::npos) << md;
  EXPECT_NE(md.find("| sgd |"), std::string::npos);
}

// A workload's description is the one its cells ran: a grid's data set and batches, then the
// seed's own setting, never the seed's alone.
TEST(RunTable, AWorkloadIsDescribedAsItsCellsRanIt) {
  std::vector<Result> results =
      indexed({made("cpu", 1000, 0.010, 0.001), made("cuda", 1000, 0.002, 0.0002)});
  for (Result& r : results) {
    r.cell.workload = "mnist_mlp";
    r.cell.dataset = "fashion_mnist";
  }
  for (Result& r : results) r.cell.batch_size = 64;
  const std::string md = render_markdown(ReportContext{}, results,
                                         analyse(results, {parse_compare("device=cpu:cuda")}));
  EXPECT_NE(md.find("here on fashion_mnist, batch 64, adam lr 0.01 (the seed's setting: "),
            std::string::npos)
      << md;
}

TEST(Comparison, GuardAndStoppingRuleKeysNeverSplitAPairOrARow) {
  // CUDA cells isolate by default and CPU cells do not; a time-out or another stopping rule on
  // one side changes how the cell is run, not what it measures.
  std::vector<Result> results =
      indexed({made("cpu", 1000, 0.010, 0.001), made("cuda", 1000, 0.002, 0.0002)});
  results[1].cell.isolate = true;
  results[1].cell.timeout_seconds = 600;
  results[1].cell.max_repeats = 20;
  results[1].cell.ci_target = 0.05;
  const auto comparisons = compare_devices(results);
  ASSERT_EQ(comparisons.size(), 1u);
  const TextTable& table = comparisons[0].table;
  EXPECT_EQ(table.rows.size(), 1u);
  for (const char* key : {"isolate", "timeout_seconds", "max_repeats", "ci_target"}) {
    EXPECT_EQ(std::count(table.header.begin(), table.header.end(), key), 0) << key;
  }
  EXPECT_EQ(table.rows[0][table.header.size() - 1], "cuda");
  EXPECT_EQ(pair_results(results, parse_compare("device=cpu:cuda")).size(), 1u);
  // A key that changes what is measured still splits them.
  results[1].cell.threads = 4;
  EXPECT_EQ(pair_results(results, parse_compare("device=cpu:cuda")).size(), 0u);
  EXPECT_EQ(compare_devices(results)[0].table.rows.size(), 2u);
}

TEST(Cell, KeyRolesSeparateWhatIsMeasuredFromHowItIsRun) {
  EXPECT_EQ(key_role("batch_size"), KeyRole::kIdentity);
  EXPECT_EQ(key_role("device"), KeyRole::kIdentity);
  EXPECT_EQ(key_role("isolate"), KeyRole::kProtection);
  EXPECT_EQ(key_role("timeout_seconds"), KeyRole::kProtection);
  EXPECT_EQ(key_role("time_budget_seconds"), KeyRole::kPolicy);
  const nlohmann::ordered_json identity = cell_identity_json(Cell{});
  EXPECT_TRUE(identity.contains("workload"));
  EXPECT_TRUE(identity.contains("warmup_epochs"));
  for (const char* key : {"isolate", "timeout_seconds", "min_repeats", "max_repeats", "processes",
                          "time_budget_seconds", "ci_target"}) {
    EXPECT_FALSE(identity.contains(key)) << key;
  }
  EXPECT_EQ(identity.size() + 7, cell_config_json(Cell{}).size());
}

TEST(Comparison, BreakEvenCountsEpochsUntilTheFasterDeviceStaysAhead) {
  Result cpu = made("cpu", 100, 1.0, 0.1);
  Result gpu = made("cuda", 100, 0.5, 0.1);
  cpu.startup_seconds = 0.0;
  cpu.first_epoch_seconds = 1.0;
  gpu.startup_seconds = 3.0;  // totals: cpu n, gpu 3.5 + 0.5 (n - 1) -> equal at n = 7
  gpu.first_epoch_seconds = 1.0;
  EXPECT_EQ(break_even_epochs(cpu, gpu), 8);
  gpu.startup_seconds = 0.0;  // equal after one epoch, ahead from the second
  EXPECT_EQ(break_even_epochs(cpu, gpu), 2);
  gpu.first_epoch_seconds = 0.5;  // ahead from the start
  EXPECT_EQ(break_even_epochs(cpu, gpu), 1);
  EXPECT_EQ(break_even_epochs(gpu, cpu), std::nullopt);  // slower per epoch: never stays ahead
  // Times that add up to nothing (a results file's infinities, NaN) or a lead no run makes up
  // give no count: they were casts out of a long's range (clang's UBSan found the first).
  gpu.startup_seconds = std::numeric_limits<double>::infinity();
  EXPECT_EQ(break_even_epochs(cpu, gpu), std::nullopt);
  gpu.startup_seconds = std::nan("");
  EXPECT_EQ(break_even_epochs(cpu, gpu), std::nullopt);
  gpu.startup_seconds = 1e300;
  gpu.epoch_seconds = cpu.epoch_seconds * (1.0 - 1e-15);
  EXPECT_EQ(break_even_epochs(cpu, gpu), std::nullopt);
}

// The demo's table was ~180 columns: each predicted heading named the profile, and a break-even
// column of dashes stood beside every predicted device (a prediction has no start-up).
TEST(Comparison, APredictedColumnIsMarkedBrieflyAndHasNoBreakEven) {
  std::vector<Result> results =
      indexed({made("cpu", 100, 0.001, 0.0001), made("cuda", 100, 0.002, 0.0001)});
  results[1].status = CellStatus::kPredicted;
  results[1].prediction.prediction_profile = "H100 80GB";
  const auto header = [](const std::vector<Result>& r) {
    return compare_devices(r).front().table.header;
  };
  const std::vector<std::string> one = header(results);
  EXPECT_NE(std::find(one.begin(), one.end(), "cuda ms\n(predicted)"), one.end());
  EXPECT_EQ(std::find(one.begin(), one.end(), "cuda\nwins after"), one.end());
  // batch_size, dataset_size, two epochs, the band in a column of its own, the speedup, the
  // winner
  EXPECT_EQ(one.size(), 7u);
  EXPECT_EQ(one[4], "80 % band");
  // Its winner is said once as predicted; a band that allows a tie is undecided, not a tie.
  const auto winner = [](const std::vector<Result>& r) {
    return compare_devices(r).front().table.rows.front().back();
  };
  results[1].epoch_seconds = 0.0005;  // twice as fast as the CPU, no band: cuda wins
  EXPECT_EQ(winner(results), "cuda (predicted)");
  results[1].prediction.prediction_error = 2.0;  // a 3x band: 0.17-1.5 ms holds the CPU's 1 ms
  EXPECT_EQ(winner(results), "undecided");
  EXPECT_EQ(compare_devices(results).front().table.rows.front()[4], "0.167-1.5");  // 3x, in ms
  results[1].epoch_seconds = 0.004;
  results[1].prediction.prediction_error = 0.1;  // the CPU wins over a prediction
  EXPECT_EQ(winner(results), "cpu (predicted)");
  // Two profiles keep their names apart.
  results.push_back(made("cuda", 100, 0.003, 0.0001, CellStatus::kPredicted));
  results.back().cell.index = 2;
  results.back().prediction.prediction_profile = "H200 141GB";
  const std::vector<std::string> two = header(results);
  for (const std::string profile : {"H200 141GB", "H100 80GB"}) {
    const std::string mark = "\n(predicted: " + profile + ")";
    EXPECT_TRUE(std::any_of(two.begin(), two.end(), [&](const std::string& h) {
      return h.rfind("cuda ", 0) == 0 && h.size() > mark.size() &&
             h.substr(h.size() - mark.size()) == mark;
    })) << profile;
  }
}

TEST(Comparison, ACellTrainedOnSyntheticDataSaysSoInTheTerminalTable) {
  std::vector<Result> results =
      indexed({made("cpu", 100, 0.001, 0.0001), made("cuda", 100, 0.002, 0.0001)});
  const std::string legend = "(synthetic): trained on a synthetic data set";
  EXPECT_EQ(render_comparison_text(results).find("(synthetic)"), std::string::npos);
  results[1].data_source = DataSource::kSynthetic;
  const std::string text = render_comparison_text(results);
  EXPECT_NE(text.find("2 ± 0.1 (synthetic)"), std::string::npos) << text;
  EXPECT_NE(text.find(legend), std::string::npos) << text;
  EXPECT_EQ(text.find("1 ± 0.1 (synthetic)"), std::string::npos) << text;
}

TEST(Comparison, TheTextTablesSayWhatThreadsZeroMeansWhereItStandsBesideOtherCounts) {
  const std::string legend = "threads 0: the libraries' own counts";
  std::vector<Result> results =
      indexed({made("cpu", 100, 0.001, 0.0001), made("cpu", 100, 0.002, 0.0001)});
  EXPECT_EQ(render_comparison_text(results).find(legend), std::string::npos)
      << "every cell at the defaults: no threads column, no legend";
  results[1].cell.threads = 1;
  EXPECT_NE(render_comparison_text(results).find(legend), std::string::npos);
  results[0].cell.threads = 2;
  EXPECT_EQ(render_comparison_text(results).find(legend), std::string::npos)
      << "no cell at 0 threads";
}

TEST(Comparison, MarkdownTableEscapesPipes) {
  TextTable t;
  t.header = {"a", "b"};
  t.right_aligned = {false, true};
  t.rows = {{"x|y", "1"}};
  EXPECT_EQ(render_markdown_table(t), "| a | b |\n|---|---:|\n| x\\|y | 1 |\n");
}

TEST(Report, MarkdownLeadsWithWarningsThenEnvironmentThenTablesThenSkips) {
  ReportContext context;
  context.title = "demo";
  context.environment = {"CPU: test"};
  context.warnings = {"reference BLAS"};
  Result skipped_cell = made("cuda", 100, 0, 0, CellStatus::kSkipped);
  skipped_cell.cell.index = 1;
  const std::string md = render_markdown(context, {made("cpu", 100, 0.001, 0.0001), skipped_cell});
  const auto warning = md.find("> **Warning:** reference BLAS");
  const auto env = md.find("- CPU: test");
  const auto table = md.find("### iris_mlp");
  const auto skipped =
      md.find("| 1 | iris_mlp | cuda | skipped | no CUDA device found on this machine |");
  ASSERT_NE(warning, std::string::npos) << md;
  ASSERT_NE(env, std::string::npos) << md;
  ASSERT_NE(table, std::string::npos) << md;
  ASSERT_NE(skipped, std::string::npos) << md;
  EXPECT_LT(warning, env);
  EXPECT_LT(env, table);
  EXPECT_LT(table, skipped);
  EXPECT_NE(md.find("2 cells: 1 ok, 1 skipped, 0 failed."), std::string::npos);
}

TEST(Report, CsvHasTheJsonlColumnsAndQuotesText) {
  Result r = made("cuda", 100, 0, 0, CellStatus::kSkipped);
  r.reason = "a, \"quoted\" reason";
  r.cell.index = 3;
  const std::string header = csv_header();
  EXPECT_EQ(header.rfind("cell,workload,dataset,device,batch_size,dataset_size,dataset_rows,loader,"
                         "data_placement,"
                         "num_workers,pin_memory,gpus,parallel,nproc,output_device,threads,",
                         0),
            0u);
  EXPECT_NE(header.find(",status,reason,data_source,"), std::string::npos);
  const std::string row = csv_row(r);
  EXPECT_EQ(row.rfind("3,iris_mlp,iris,cuda,full,100,100,tensor,device,0,false,1,none,1,0,0,", 0),
            0u)
      << row;
  EXPECT_NE(row.find(",skipped,\"a, \"\"quoted\"\" reason\","), std::string::npos) << row;
}

TEST(Results, JsonRoundTripAndJsonlReading) {
  Result r = made("cpu", 1000, 0.002, 0.0004);
  r.train_seconds_samples = {0.5, 0.6};
  const Result back = result_from_json(nlohmann::json::parse(result_to_json(r).dump()));
  EXPECT_EQ(result_to_json(back), result_to_json(r));

  testing::ScratchDir dir;
  {
    ResultFiles files(dir.path());
    files.append(r);
    Result skipped = made("cuda", 1000, 0, 0, CellStatus::kSkipped);
    skipped.cell.index = 1;
    files.append(skipped);
  }
  const auto read = read_results(dir.file("results.jsonl"));
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[1].status, CellStatus::kSkipped);
  EXPECT_EQ(read[0].cell.dataset_size, 1000);
  dir.write("bad.jsonl", result_to_json(r).dump() + "\n{\"workload\": 1}\n");
  EXPECT_THROW(read_results(dir.file("bad.jsonl")), std::runtime_error);
}

TEST(Results, TheStatusIsOneOfFiveWordsInTheFileAndATypeInside) {
  nlohmann::json line =
      nlohmann::json::parse(result_to_json(made("cpu", 1000, 0.002, 0.0004)).dump());
  EXPECT_EQ(line["status"], "ok");
  line["status"] = "not run";
  EXPECT_EQ(result_from_json(line).status, CellStatus::kNotRun);
  line["status"] = "okay";
  try {
    result_from_json(line);
    ADD_FAILURE() << "an unknown status was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown status \"okay\"; expected \"ok\", \"skipped\", "
                                         "\"failed\", \"not run\" or \"predicted\""),
              std::string::npos)
        << e.what();
  }
}

TEST(Results, ResultsWrittenBeforeTheNewerKeysStillRead) {
  nlohmann::json old =
      nlohmann::json::parse(result_to_json(made("cpu", 1000, 0.002, 0.0004)).dump());
  for (const char* key :
       {"parallel", "nproc", "output_device", "isolate", "timeout_seconds", "step_seconds_samples",
        "allreduce_seconds", "rank_epoch_seconds", "parameter_digests"})
    old.erase(key);
  const Result r = result_from_json(old);
  EXPECT_EQ(r.cell.parallel, Parallel::kNone);
  EXPECT_EQ(r.cell.nproc, 1);
  EXPECT_TRUE(r.step_seconds_samples.empty());
  old.erase("status");  // an original key stays required
  EXPECT_THROW(result_from_json(old), nlohmann::json::exception);
}

// Found by fuzz_results under UBSan: nlohmann's get<int>() of 1e91 is undefined behaviour.
TEST(Results, AnIntegerFieldTakesOnlyAWholeNumberThatFits) {
  const nlohmann::json good =
      nlohmann::json::parse(result_to_json(made("cpu", 1000, 0.002, 0.0004)).dump());
  for (const auto& [key, value] :
       std::vector<std::pair<const char*, nlohmann::json>>{{"epochs", 1e91},
                                                           {"epochs", 2.5},
                                                           {"cell", -1},
                                                           {"threads", 4294967296.0},
                                                           {"seed", 1e300},
                                                           {"nproc", 1e10},
                                                           {"epochs", "3"}}) {
    nlohmann::json bad = good;
    bad[key] = value;
    EXPECT_ANY_THROW(result_from_json(bad)) << key << " = " << value;
  }
  nlohmann::json whole = good;
  whole["epochs"] = 7.0;  // a whole number written as a float is still that number
  EXPECT_EQ(result_from_json(whole).cell.epochs, 7);
}

// Seen on an H100: a cell whose loss became NaN wrote null (JSON has no NaN), and reading its own
// result back failed the cell ("type must be number, but is null").
TEST(Results, ANonFiniteMeasurementIsWrittenAsNullAndReadBackAsNaN) {
  Result r = made("cuda", 1000, 0.002, 0.0004);
  r.train_loss = std::numeric_limits<double>::quiet_NaN();
  const nlohmann::json written = nlohmann::json::parse(result_to_json(r).dump());
  EXPECT_TRUE(written.at("train_loss").is_null());
  const Result back = result_from_json(written);
  EXPECT_TRUE(std::isnan(back.train_loss));
  EXPECT_DOUBLE_EQ(back.epoch_seconds, r.epoch_seconds);
  nlohmann::json text = written;
  text["train_loss"] = "nan";  // a string is still not a number
  EXPECT_ANY_THROW(result_from_json(text));
}

TEST(Results, ALastLineCutOffMidWriteIsIgnoredAndTheRestKept) {
  testing::ScratchDir dir;
  const auto line = [](std::size_t index) {
    Result r = made("cpu", 1000, 0.002, 0.0004);
    r.cell.index = index;
    return result_to_json(r).dump();
  };
  // Power lost while the third line was written: half of it, no newline.
  dir.write("cut.jsonl", line(0) + "\n" + line(1) + "\n" + line(2).substr(0, line(2).size() / 2));
  EXPECT_EQ(read_results(dir.file("cut.jsonl")).size(), 2u);
  // A complete last line (newline included) that does not parse is damage, not a cut: an error.
  dir.write("damaged.jsonl", line(0) + "\n" + line(1).substr(0, line(1).size() / 2) + "\n");
  EXPECT_THROW(read_results(dir.file("damaged.jsonl")), std::runtime_error);
  // So is a bad line in the middle, even without a final newline.
  dir.write("middle.jsonl", line(0) + "\n{\"x\": 1}\n" + line(1));
  EXPECT_THROW(read_results(dir.file("middle.jsonl")), std::runtime_error);
  // A complete file without a final newline reads whole.
  dir.write("whole.jsonl", line(0) + "\n" + line(1));
  EXPECT_EQ(read_results(dir.file("whole.jsonl")).size(), 2u);
}

}  // namespace
}  // namespace crossover
