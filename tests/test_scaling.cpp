// Scaling rows, efficiency against the one-replica cell, and where they show in the reports.
#include <gtest/gtest.h>

#include "reports/analysis/analysis.hpp"
#include "reports/analysis/scaling.hpp"
#include "reports/render/analysis_markdown.hpp"
#include "reports/render/report_html.hpp"
#include "reports/render/report_markdown.hpp"

namespace crossover {
namespace {

Result ddp_cell(std::size_t index, int nproc, double samples_per_second,
                Parallel parallel = Parallel::kDdp) {
  Result r;
  r.cell.index = index;
  r.cell.workload = "mnist_mlp";
  r.cell.dataset = "mnist";
  r.cell.gpus = 0;
  r.cell.parallel = parallel;
  r.cell.nproc = nproc;
  r.samples_per_second = samples_per_second;
  r.step_seconds = 0.01;
  r.epoch_seconds = 1.0;
  r.epoch_seconds_samples = {1.0, 1.0, 1.0};
  r.allreduce_seconds = nproc > 1 ? 0.002 : 0.0001;
  r.rank_epoch_seconds.assign(static_cast<std::size_t>(nproc), 1.0);
  return r;
}

TEST(Scaling, EfficiencyIsAgainstTheSameCellWithOneReplica) {
  std::vector<Result> results = {ddp_cell(0, 1, 0, Parallel::kNone), ddp_cell(1, 1, 100.0),
                                 ddp_cell(2, 2, 150.0), ddp_cell(3, 4, 100.0)};
  results[0].cell.nproc = 1;
  results[3].cell.batch_size = 64;  // no one-replica cell with this batch
  const auto rows = scaling_rows(results);
  ASSERT_EQ(rows.size(), 3u);  // the parallel "none" cell is not a scaling row
  EXPECT_DOUBLE_EQ(*rows[0].efficiency, 1.0);
  EXPECT_DOUBLE_EQ(*rows[1].efficiency, 0.75);  // 150 / (2 x 100)
  EXPECT_EQ(rows[1].replicas, 2);
  EXPECT_FALSE(rows[2].efficiency);

  const std::string md = render_scaling_markdown(results);
  EXPECT_NE(md.find("## Scaling"), std::string::npos);
  EXPECT_NE(md.find("| #2 | ddp | 2 | full | 150 | 10 ms | 2 ms | 75 % |"), std::string::npos)
      << md;
  EXPECT_EQ(render_scaling_markdown({ddp_cell(0, 1, 10.0, Parallel::kNone)}), "");
  const auto j = scaling_json(results);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_TRUE(j[2]["efficiency"].is_null());

  ReportContext context;
  context.title = "t";
  EXPECT_NE(render_markdown(context, results).find("## Scaling"), std::string::npos);
  const CompareSpec spec = parse_compare("nproc=1:2");
  const std::string html = render_html(context, results, spec, {}, {}, {});
  EXPECT_NE(html.find("throughput against replicas"), std::string::npos);
}

}  // namespace
}  // namespace crossover
