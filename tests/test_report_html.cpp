// report.html from hand-made results: self-contained, charts present, text escaped.
#include <gtest/gtest.h>

#include "reports/report_html.hpp"

namespace crossover {
namespace {

Result made(std::size_t index, const std::string& device, std::int64_t batch, double median) {
  Result r;
  r.cell.index = index;
  r.cell.workload = "mnist_mlp";
  r.cell.device = device;
  r.cell.gpus = device == "cpu" ? 0 : 1;
  r.cell.batch_size = batch;
  r.epoch_seconds = median;
  r.samples_per_second = 1000 / median;
  for (int i = 0; i < 11; ++i) r.epoch_seconds_samples.push_back(median * (1 + 0.01 * (i - 5)));
  return r;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportHtml, DrawsTheCrossoverWithItsBandParityLineAndMarker) {
  std::vector<Result> results = {made(0, "cpu", 100, 1.0), made(1, "cuda", 100, 2.0),
                                 made(2, "cpu", 10000, 1.0), made(3, "cuda", 10000, 0.5)};
  Result phased = made(5, "cpu", 500, 1.0);  // unpaired: timing differs from every other cell
  phased.cell.timing = "phases";
  phased.phase_forward_seconds = 0.1;
  phased.phase_backward_seconds = 0.2;
  results.push_back(phased);
  Result skipped = made(4, "cuda", 100000, 1.0);
  skipped.status = "skipped";
  skipped.reason = "no <CUDA> & no luck";
  results.push_back(skipped);
  const CompareSpec spec = parse_compare("device=cpu:cuda");
  const auto pairs = pair_results(results, spec);
  const auto crossovers = find_crossovers(pairs, spec);
  ReportContext context;
  context.title = "demo";
  const std::string html =
      render_html(context, results, spec, pairs, crossovers, recommend(results, spec, crossovers));

  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("http://"),
            html.find("http://www.w3.org/2000/svg"));  // nothing loaded from elsewhere
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // time against the axis, speedup, epoch time per configuration, phases (no multi-GPU cells)
  EXPECT_EQ(count(html, "<svg"), 4u);
  EXPECT_NE(html.find("class='band'"), std::string::npos);
  EXPECT_NE(html.find("class='parity'"), std::string::npos);
  EXPECT_NE(html.find("class='crossing'"), std::string::npos);
  EXPECT_NE(html.find("crossover ≈ 1,000"), std::string::npos);
  // The classic chart comes first, titled by workload and axis: a line per device.
  const auto time_title =
      html.find("<h3>mnist_mlp: time per epoch against batch_size (device=cpu vs cuda)</h3>");
  const auto speedup_title =
      html.find("<h3>mnist_mlp: speedup of device=cuda over cpu against batch_size</h3>");
  ASSERT_NE(time_title, std::string::npos);
  ASSERT_NE(speedup_title, std::string::npos);
  EXPECT_LT(time_title, speedup_title);
  EXPECT_EQ(count(html, "class='series' data-side='cpu'"), 1u);
  EXPECT_EQ(count(html, "class='series' data-side='cuda'"), 1u);
  EXPECT_EQ(count(html, "class='crossing'"), 2u);  // marked on both charts
  EXPECT_NE(html.find("crossover ≈ 1,000 batch_size"), std::string::npos);
  // Bars are named by configuration, grouped, the devices side by side; no cell numbers.
  EXPECT_NE(html.find("<tspan x='"), std::string::npos);
  EXPECT_NE(html.find(">batch_size=100</tspan>"), std::string::npos);
  EXPECT_NE(html.find(">batch_size=10000</tspan>"), std::string::npos);
  EXPECT_EQ(html.find("cells (hover for the configuration)"), std::string::npos);
  EXPECT_EQ(count(html, "class='phase'"), 5u);
  EXPECT_NE(html.find("No workload ran with more than one replica count (parallel dp or ddp)."), std::string::npos);
  EXPECT_NE(html.find("no &lt;CUDA&gt; &amp; no luck"), std::string::npos);  // escaped
  EXPECT_EQ(html.find("no <CUDA>"), std::string::npos);
  EXPECT_NE(html.find("table class='sortable'"), std::string::npos);
  EXPECT_NE(html.find("<script>"), std::string::npos);
}

}  // namespace
}  // namespace crossover
