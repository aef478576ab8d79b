#pragma once
// The charts of report.html, as inline SVG: time and speedup along a crossover's axis with their
// interval bands and the crossing marked, epoch time per configuration and device, the phase
// breakdown, throughput against GPU count. Text only: no I/O.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/analysis/analysis.hpp"
#include "reports/analysis/scaling.hpp"
#include "reports/charts/svg_text.hpp"

namespace crossover {

/// What a crossover is about: "iris_mlp along dataset_size (batch_size=full)".
std::string chart_subject(const Crossover& c);

/// Median epoch time (or energy or cost, spec.measure) of both sides along the crossover's axis
/// (log-log; an axis through 0 is linear, with a tick at each value measured and none between),
/// bands and crossing.
std::string time_chart(const Crossover& c, const std::vector<Pair>& pairs, const CompareSpec& spec);

/// The speedup along the crossover's axis with its band, the line y = 1 and the crossing.
std::string speedup_chart(const Crossover& c, const std::vector<Pair>& pairs,
                          const CompareSpec& spec);

/// A heat map of the speedup where two numeric axes vary together, and its title.
struct SurfaceChart {
  std::string title;
  std::string svg;
};

/// Per workload whose pairs vary along two numeric axes or more: the two with the most values
/// (x: the most), one heat map for each setting of the rest, each pair's speedup in its square
/// (orange: the contender wins, blue: the baseline, grey: a tie) and each row's crossing along x
/// marked (svg_surface.cpp).
std::vector<SurfaceChart> surface_charts(const std::vector<Pair>& pairs,
                                         const std::vector<Crossover>& crossovers,
                                         const CompareSpec& spec);

/// A search's probes (searches.json's entry): the speedup at each with its interval, numbered in
/// the order measured, coloured by winner, the final bracket shaded; "" with fewer than two.
std::string search_chart(const nlohmann::ordered_json& search);

/// Median epoch time (or energy or cost, in `measure`) per configuration of a workload, the devices
/// side by side; "" with fewer than two configurations.
std::string epoch_chart(const std::vector<Result>& results, const std::string& workload,
                        Measure measure = Measure::kTime);

/// The phase breakdown of the cells timed with `timing: "phases"`, as stacked bars; "" if none.
std::string phase_chart(const std::vector<Result>& results);

/// Each step of a workload as the cost model accounts for it: its five terms stacked (dispatch,
/// compute, memory, transfer, loader) beside the step measured; a predicted cell hatched and
/// without a measured bar; "" when no cell of the workload has a bound (svg_bounds.cpp).
std::string bound_chart(const std::vector<Result>& results, const std::string& workload);

/// Throughput against GPU count; "" when no workload ran on several counts.
std::string scaling_chart(const std::vector<ScalingRow>& rows);

}  // namespace crossover
