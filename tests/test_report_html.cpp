// report.html from hand-made results: self-contained, charts present, text escaped.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "reports/charts/svg_charts.hpp"
#include "reports/charts/svg_plot.hpp"
#include "reports/render/report_html.hpp"
#include "tests/hostile_report.hpp"
#include "tests/html_markup.hpp"

namespace crossover {
namespace {

Result made(std::size_t index, const std::string& device, std::int64_t batch, double median) {
  Result r;
  r.cell.index = index;
  r.cell.workload = "mnist_mlp";
  r.cell.device = parse_device(device).value();
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

// The first group of every match of `pattern` in `svg`.
std::vector<std::string> matches(const std::string& svg, const std::string& pattern) {
  std::vector<std::string> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

// A chart's x axis labels: the texts on the line below the plot, on their ticks.
std::vector<std::string> x_labels(const std::string& svg) {
  return matches(svg, "y='282.0' text-anchor='(?:middle|end)'>([^<]*)</text>");
}

// A linear axis of a key's values (num_workers 0, 1, 2) is ticked at each value and nowhere
// between: half a worker means nothing.
TEST(ReportHtml, AnAxisThroughZeroIsTickedAtTheValuesMeasured) {
  std::vector<Result> results;
  for (int workers : {0, 1, 2}) {
    for (const char* device : {"cpu", "cuda"}) {
      const double median = device == std::string("cpu") ? 1.0 : 0.5 + workers;
      Result r = made(results.size(), device, 64, median);
      r.cell.num_workers = workers;
      results.push_back(r);
    }
  }
  const CompareSpec spec = parse_compare("device=cpu:cuda");
  const auto pairs = pair_results(results, spec);
  const auto crossovers = find_crossovers(pairs, spec);
  ASSERT_EQ(crossovers.size(), 1u);
  ASSERT_EQ(crossovers[0].axis, "num_workers");
  for (const std::string& svg :
       {time_chart(crossovers[0], pairs, spec), speedup_chart(crossovers[0], pairs, spec)}) {
    EXPECT_EQ(x_labels(svg), (std::vector<std::string>{"0", "1", "2"})) << svg;
  }
}

// Axes read as the statements do: sizes as "10,000" (never "1e+04"), times in a unit ("10 ms").
TEST(ReportHtml, AxesAreLabelledInTheStatementsNumbersAndInUnits) {
  std::vector<Result> results;
  for (double rows : {100.0, 10000.0, 1000000.0}) {
    for (const char* device : {"cpu", "cuda"}) {
      const double median = device == std::string("cpu") ? rows * 1e-6 : 0.001;
      Result r = made(results.size(), device, 64, median);
      r.cell.dataset_size = static_cast<std::int64_t>(rows);
      results.push_back(r);
    }
  }
  const CompareSpec spec = parse_compare("device=cpu:cuda");
  const auto pairs = pair_results(results, spec);
  const auto crossovers = find_crossovers(pairs, spec);
  ASSERT_EQ(crossovers.size(), 1u);
  ASSERT_EQ(crossovers[0].axis, "dataset_size");
  const std::string svg = time_chart(crossovers[0], pairs, spec);
  const auto x = x_labels(svg);
  EXPECT_NE(std::find(x.begin(), x.end(), "10,000"), x.end()) << svg;
  EXPECT_NE(std::find(x.begin(), x.end(), "1,000,000"), x.end()) << svg;
  const auto y = matches(svg, "x='58.0' y='[^']*' text-anchor='end'>([^<]*)</text>");
  ASSERT_FALSE(y.empty());
  for (const std::string& tick : y)
    EXPECT_TRUE(std::regex_match(tick, std::regex("[0-9.]+ (us|ms|s)"))) << tick;
  EXPECT_NE(std::find(y.begin(), y.end(), "10 ms"), y.end()) << svg;
  EXPECT_NE(svg.find("median epoch time (log scale)"), std::string::npos);
}

// A log axis over less than a decade (a speedup from 0.75 to 1.6) gets round ticks between its
// ends, not its two ends alone ("0.7547", "1.594").
TEST(ReportHtml, ANarrowLogAxisIsTickedAtRoundValues) {
  const std::vector<double> ticks = svg::Plot::ticks(0.7547, 1.594, true);
  ASSERT_EQ(ticks.size(), 5u);
  const double expected[] = {0.8, 0.9, 1.0, 1.2, 1.5};
  for (std::size_t i = 0; i < ticks.size(); ++i) EXPECT_NEAR(ticks[i], expected[i], 1e-12);
  // Two decades or more: a tick at each decade.
  // A linear axis: round values, at most six (a history's 305.6 to 550.7 us).
  EXPECT_EQ(svg::Plot::ticks(305.6, 550.7, false), (std::vector<double>{350, 400, 450, 500, 550}));
  EXPECT_EQ(svg::Plot::ticks(0.0, 1.0, false), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1}));
  EXPECT_EQ(svg::Plot::ticks(0.001, 0.1, true).size(), 3u);
  EXPECT_EQ(svg::Plot::ticks(3e-4, 2e-3, true).size(), 3u);  // 1-2-5: 5e-4, 1e-3, 2e-3
}

TEST(ReportHtml, DrawsTheCrossoverWithItsBandParityLineAndMarker) {
  std::vector<Result> results = {made(0, "cpu", 100, 1.0),     made(1, "cuda", 100, 2.0),
                                 made(2, "cpu", 10000, 1.0),   made(3, "cuda", 10000, 0.5),
                                 made(6, "cpu", 1000000, 1.0), made(7, "cuda", 1000000, 0.25)};
  Result phased = made(5, "cpu", 500, 1.0);  // unpaired: timing differs from every other cell
  phased.cell.timing = Timing::kPhases;
  phased.phase_forward_seconds = 0.1;
  phased.phase_backward_seconds = 0.2;
  results.push_back(phased);
  Result skipped = made(4, "cuda", 100000, 1.0);
  skipped.status = CellStatus::kSkipped;
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
  // Its span shaded on both charts; named in words where no point is marked: the two tie at
  // 10,000 (a CUDA cell as fast as the CPU there).
  EXPECT_EQ(count(html, "class='crossing-band'"), 2u);
  {
    std::vector<Result> tied = results;
    tied[3] = made(3, "cuda", 10000, 1.0);
    const auto tied_pairs = pair_results(tied, spec);
    const std::string page =
        render_html(context, tied, spec, tied_pairs, find_crossovers(tied_pairs, spec), {});
    EXPECT_EQ(count(page, "class='crossing-band'"), 2u) << page;
    EXPECT_EQ(count(page, "shaded: the crossing lies here, batch_size 10,000–1,000,000"), 2u)
        << page;
  }
  {
    // The GPU side predicted: both charts' markers say the crossing is a prediction, its range
    // an 80 % band.
    std::vector<Result> guessed = results;
    for (Result& r : guessed) {
      if (r.cell.device != Device::cuda() || r.status != CellStatus::kOk) continue;
      r.status = CellStatus::kPredicted;
      r.prediction.prediction_error = 0.01;
      r.prediction.prediction_profile = "H100";
    }
    const auto guessed_pairs = pair_results(guessed, spec);
    const std::string page = render_html(context, guessed, spec, guessed_pairs,
                                         find_crossovers(guessed_pairs, spec), {});
    EXPECT_EQ(count(page, "predicted crossover ≈ "), 2u);
    EXPECT_EQ(count(page, ">crossover ≈ "), 0u);
    EXPECT_NE(page.find(", 80 % band)"), std::string::npos);
  }
  // Bars are named by configuration, grouped, the devices side by side; no cell numbers.
  EXPECT_NE(html.find("<tspan x='"), std::string::npos);
  EXPECT_NE(html.find(">batch_size=100</tspan>"), std::string::npos);
  EXPECT_NE(html.find(">batch_size=10000</tspan>"), std::string::npos);
  EXPECT_EQ(html.find("cells (hover for the configuration)"), std::string::npos);
  EXPECT_EQ(count(html, "class='phase'"), 5u);
  EXPECT_EQ(html.find("Scaling with replicas"), std::string::npos);          // no empty section
  EXPECT_NE(html.find("no &lt;CUDA&gt; &amp; no luck"), std::string::npos);  // escaped
  EXPECT_EQ(html.find("no <CUDA>"), std::string::npos);
  EXPECT_NE(html.find("table class='sortable'"), std::string::npos);
  EXPECT_NE(html.find("<script>"), std::string::npos);
}

// Two numeric axes varying together (width and batch size): one heat map of every pair's speedup,
// each row's crossing along the axis with more values marked.
// A run with predicted cells says so at the top of the page, as report.md does, and a pair whose
// predicted band allows a tie is undecided, not a winner.
TEST(ReportHtml, PredictedCellsAreAnnouncedAndTheirTiesAreUndecided) {
  std::vector<Result> results = {made(0, "cpu", 100, 1.0), made(1, "cuda", 100, 0.9)};
  EXPECT_EQ(
      render_html(ReportContext{}, results, analyse(results, {parse_compare("device=cpu:cuda")}))
          .find("<b>Predicted:</b>"),
      std::string::npos);
  results[1].status = CellStatus::kPredicted;
  results[1].epoch_seconds_samples.clear();
  results[1].prediction.prediction_error = 1.0;  // a 2x band: 0.45-1.8 s holds 1 s
  const std::string html =
      render_html(ReportContext{}, results, analyse(results, {parse_compare("device=cpu:cuda")}));
  EXPECT_NE(html.find("<b>Predicted:</b> 1 cell(s) were not measured"), std::string::npos);
  EXPECT_NE(html.find("undecided (predicted: the band allows a tie)"), std::string::npos);
  // The table of every cell: the predicted epoch marked, its band where a measured one's interval
  // is.
  EXPECT_NE(html.find("0.9 (predicted)"), std::string::npos);
  EXPECT_NE(html.find("450 ms-1.8 s, predicted, 80 %"), std::string::npos);
  // One unit a column, said in its header; the band in it; each reason once, under the table.
  EXPECT_NE(html.find("<th>epoch s</th><th>95 % CI or band, s</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>0.45-1.8 (80 % band)</td>"), std::string::npos) << html;
  results[1].reason = "predicted by the cost model";
  const std::string noted =
      render_html(ReportContext{}, results, analyse(results, {parse_compare("device=cpu:cuda")}));
  EXPECT_NE(noted.find("<td>[1]</td></tr>"), std::string::npos) << noted;
  EXPECT_NE(noted.find("<ol class='reasons'><li>predicted by the cost model</li></ol>"),
            std::string::npos)
      << noted;
  // The recommendation agrees with the verdict: a predicted cell that may be faster than the
  // fastest measured one is said beside it, as a prediction.
  EXPECT_NE(noted.find("perhaps faster, predicted (its band allows either): "), std::string::npos)
      << noted;
  // Along an axis the predicted side is a dashed line named predicted, its tooltips marked.
  EXPECT_EQ(html.find("stroke-width='2' stroke-dasharray='6 4'"), std::string::npos);  // no line
  // One configuration is no epoch chart: its numbers are the cell table's.
  EXPECT_EQ(html.find("per configuration and device</h2>"), std::string::npos);
  results.push_back(made(2, "cpu", 10000, 4.0));
  results.push_back(made(3, "cuda", 10000, 0.5));
  results[3].status = CellStatus::kPredicted;
  results[3].epoch_seconds_samples.clear();
  results[3].prediction.prediction_error = 1.0;
  results.push_back(made(4, "cpu", 1000000, 8.0));  // two values would be two rows, not a line
  results.push_back(made(5, "cuda", 1000000, 0.5));
  results[5].status = CellStatus::kPredicted;
  results[5].epoch_seconds_samples.clear();
  results[5].prediction.prediction_error = 1.0;
  results[1].prediction.prediction_profile = results[3].prediction.prediction_profile = "H100 80GB";
  results[5].prediction.prediction_profile = "H100 80GB";
  const std::string charted =
      render_html(ReportContext{}, results, analyse(results, {parse_compare("device=cpu:cuda")}));
  EXPECT_NE(charted.find("stroke-width='2' stroke-dasharray='6 4'/>"), std::string::npos);
  // The epoch chart shows the predicted cells beside the measured ones, hollow and named so.
  EXPECT_NE(charted.find(">cuda (predicted)</text>"), std::string::npos);
  EXPECT_NE(charted.find("fill='#fff' stroke='#ff7f0e' stroke-width='2' stroke-dasharray='3 2'"),
            std::string::npos);
  EXPECT_NE(charted.find("device=cuda (predicted, H100 80GB, 80 % band)"), std::string::npos);
  EXPECT_NE(charted.find("500 ms (250 ms-1 s, predicted, 80 %) (cell 3)"), std::string::npos);
  // The speedup along the axis is a prediction too: its title, line, legend and tooltips say so.
  EXPECT_NE(charted.find("speedup of device=cuda over cpu against batch_size (predicted)</h3>"),
            std::string::npos)
      << charted;
  EXPECT_NE(charted.find("stroke='#1f77b4' stroke-width='2' stroke-dasharray='6 3'/>"),
            std::string::npos);
  EXPECT_NE(charted.find("speedup (predicted: one side by the cost model, with its band)"),
            std::string::npos);
  EXPECT_NE(charted.find("batch_size 10,000: 8x (predicted)</title>"), std::string::npos)
      << charted;
}

TEST(ReportHtml, TwoNumericAxesMakeOneSurface) {
  std::vector<Result> results;
  for (const std::int64_t batch : {32, 256}) {
    for (const int width : {16, 256, 4096}) {
      for (const int threads : {1, 0}) {
        // Two threads lose on the narrowest model and win from 256 units on.
        const double seconds = threads == 1 ? 1.0 : (width == 16 ? 2.0 : 0.5);
        Result r = made(results.size(), "cpu", batch, seconds);
        r.cell.workload = "mlp";
        r.cell.gpus = 0;
        r.cell.width = width;
        r.cell.depth = 2;
        r.cell.features = 32;
        r.cell.classes = 10;
        r.cell.threads = threads;
        results.push_back(r);
      }
    }
  }
  const CompareSpec spec = parse_compare("threads=1:0");
  const auto pairs = pair_results(results, spec);
  ASSERT_EQ(pairs.size(), 6u);
  const auto crossovers = find_crossovers(pairs, spec);
  const auto charts = surface_charts(pairs, crossovers, spec);
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_EQ(charts[0].title, "mlp: speedup of threads=0 over 1 by width and batch_size");
  const std::string& svg = charts[0].svg;
  EXPECT_EQ(count(svg, "class='surface-cell'"), 6u);
  EXPECT_EQ(count(svg, "data-winner='contender'"), 4u);
  EXPECT_EQ(count(svg, "data-winner='baseline'"), 2u);
  EXPECT_EQ(count(svg, "class='surface-crossing'"), 2u);  // one per batch size
  EXPECT_NE(svg.find(">4,096</text>"), std::string::npos);
  EXPECT_NE(svg.find(">256</text>"), std::string::npos);
  EXPECT_EQ(svg.find("*: predicted"), std::string::npos);
  // Pairs with a predicted side: the title, each square's number and tooltip, and the legend.
  std::vector<Pair> predicted = pairs;
  for (Pair& p : predicted) p.predicted = true;
  const auto marked = surface_charts(predicted, crossovers, spec);
  ASSERT_EQ(marked.size(), 1u);
  EXPECT_EQ(marked[0].title, charts[0].title + " (predicted)");
  EXPECT_EQ(count(marked[0].svg, "x*</text>"), 6u);
  EXPECT_EQ(count(marked[0].svg, " (predicted)</title>"), 6u);
  EXPECT_NE(marked[0].svg.find("*: predicted (one side by the cost model)"), std::string::npos);
  // The legend is whole: the chart is as wide as its longest line at 7 pixels a character.
  for (const auto* chart : {&charts[0], &marked[0]}) {
    const std::string& s = chart->svg;
    const double width = std::stod(s.substr(s.find("width='") + 7));
    for (std::size_t at = s.find("fill='#555'>"); at != std::string::npos;
         at = s.find("fill='#555'>", at + 1)) {
      const std::size_t from = at + 12, to = s.find("</text>", from);
      EXPECT_LE(24.0 + 7.0 * static_cast<double>(s.substr(from, to - from).size()), width)
          << s.substr(from, to - from);
    }
  }
  ReportContext context;
  const std::string html =
      render_html(context, results, spec, pairs, crossovers, recommend(results, spec, crossovers));
  EXPECT_EQ(count(html, "class='surface'"), 1u);
  const testing::Markup page = testing::read_markup(html);
  EXPECT_EQ(
      testing::foreign_markup(page, testing::renderer_markup(CROSSOVER_SOURCE_DIR), page.scripts),
      "");
  // One numeric axis alone makes no surface.
  std::vector<Result> one_batch(results.begin(), results.begin() + 6);
  const auto fewer = pair_results(one_batch, spec);
  EXPECT_TRUE(surface_charts(fewer, find_crossovers(fewer, spec), spec).empty());
  // Nor does a batch size that follows the rows (issue 54): "full" in every cell, or a batch tied
  // to each width, is no second axis — the map would be a diagonal of single cells.
  std::vector<Result> tied;
  for (const Result& r : results)
    if ((r.cell.width == 16) == (r.cell.batch_size == 32) && r.cell.width != 256) tied.push_back(r);
  const auto diagonal = pair_results(tied, spec);
  ASSERT_EQ(diagonal.size(), 2u);
  EXPECT_TRUE(surface_charts(diagonal, find_crossovers(diagonal, spec), spec).empty());
  std::vector<Result> full = one_batch;
  for (Result& r : full) {
    r.cell.batch_size = kFull;
    r.train_rows = r.cell.width * 10;  // the rows, and so the full batch, grow with the width
  }
  const auto with_full = pair_results(full, spec);
  EXPECT_TRUE(surface_charts(with_full, find_crossovers(with_full, spec), spec).empty());
}

// Strings that end an attribute, open a tag, close the title or the style, or hide in a comment.
const std::vector<std::string>& hostile_strings() {
  static const std::vector<std::string> strings = {"x' onload='alert(3)",
                                                   "x\" onmouseover=\"alert(4)",
                                                   "<img src=x onerror=alert(1)>",
                                                   "</title><script>alert(2)</script>",
                                                   "</style><svg onload=alert(5)>",
                                                   "<!-- x",
                                                   "' autofocus onfocus='alert(6)' x='",
                                                   "&lt;b&gt; & <b>bold</b>",
                                                   "</script><iframe src=javascript:alert(7)>",
                                                   "line\n<a href='x'>y</a>"};
  return strings;
}

TEST(ReportHtml, TheMarkupCheckFindsAnAttributeThatEscapedItsQuotes) {
  // The check itself: a value written unescaped into a single-quoted attribute is caught.
  const auto page = testing::read_markup(
      "<svg aria-label='x' onload='alert(3)'><text>a</text></svg><script>s</script>");
  const testing::Markup allowed = testing::renderer_markup(CROSSOVER_SOURCE_DIR);
  EXPECT_EQ(testing::foreign_markup(page, allowed, {"s"}), "attribute onload\n");
  EXPECT_NE(testing::foreign_markup(testing::read_markup("<p><img src=x></p><script>s</script>"),
                                    allowed, {"s"}),
            "");
  // What the renderer writes is allowed; no event handler is.
  EXPECT_GT(allowed.elements.count("svg"), 0u);
  EXPECT_GT(allowed.attributes.count("aria-label"), 0u);
  for (const auto& a : allowed.attributes) EXPECT_NE(a.rfind("on", 0), 0u) << a;
}

TEST(ReportHtml, HostileStringsInEveryFieldAddNoElementOrAttribute) {
  const testing::Markup allowed = testing::renderer_markup(CROSSOVER_SOURCE_DIR);
  const std::string plain = testing::hostile_report({"mnist_mlp", "cpu", "cuda", "accuracy"});
  const testing::Markup reference = testing::read_markup(plain);
  ASSERT_EQ(reference.scripts.size(), 1u);
  EXPECT_EQ(testing::foreign_markup(reference, allowed, reference.scripts), "");
  EXPECT_GE(count(plain, "<svg"), 3u);  // the charts are drawn, with their attributes
  const auto& strings = hostile_strings();
  // Each string in every field, and every field with a different string.
  for (std::size_t shift = 0; shift < strings.size(); ++shift) {
    std::vector<std::string> rotated(strings.begin() + static_cast<std::ptrdiff_t>(shift),
                                     strings.end());
    rotated.insert(rotated.end(), strings.begin(),
                   strings.begin() + static_cast<std::ptrdiff_t>(shift));
    const std::string html = testing::hostile_report(rotated);
    EXPECT_EQ(testing::foreign_markup(testing::read_markup(html), allowed, reference.scripts), "")
        << "strings from " << shift;
    EXPECT_GE(count(html, "<svg"), 3u) << shift;
    EXPECT_EQ(html.find("x' onload"), std::string::npos);
  }
  EXPECT_NE(testing::hostile_report(strings).find("x&#39; onload=&#39;alert(3)"),
            std::string::npos);
}

TEST(ReportHtml, DegenerateTimesDrawNoEndlessAxis) {
  // A zero or an infinite median is refused when a results file is read; the charts must still
  // cope with any range they are handed: one value, zero, infinity.
  for (const double median : {0.0, 1e-300, 1e300, double(INFINITY)}) {
    std::vector<Result> results = {made(0, "cpu", 100, median), made(1, "cuda", 100, median),
                                   made(2, "cpu", 1000, median), made(3, "cuda", 1000, median)};
    const CompareSpec spec = parse_compare("device=cpu:cuda");
    const auto pairs = pair_results(results, spec);
    const auto crossovers = find_crossovers(pairs, spec);
    ReportContext context;
    const std::string html = render_html(context, results, spec, pairs, crossovers,
                                         recommend(results, spec, crossovers));
    EXPECT_LT(html.size(), 1u << 20) << median;
    EXPECT_NE(html.find("</html>"), std::string::npos) << median;
  }
}

}  // namespace
}  // namespace crossover
