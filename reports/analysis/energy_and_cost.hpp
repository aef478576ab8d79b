#pragma once
// The crossover in joules and in money as well as in seconds: results as the energy or the cost
// of an epoch sees them, so that the one analysis (pairs, bootstrap, crossovers) states where a
// device wins on each measure.

#include <string>
#include <vector>

#include "core/records/results.hpp"
#include "reports/analysis/pairing.hpp"

namespace crossover {

/// Whether an ok result carries `measure` ("time" always; "energy" when its energy was read,
/// "cost" when its device has a price).
bool has_measure(const Result& result, Measure measure);

/// `results` as `measure` sees them: each ok cell's epoch median, samples, quartiles and interval
/// scaled to joules (its mean power over the timed epochs times each epoch's time) or to money
/// (its price per second times it), and its throughput to samples per joule or per unit of money;
/// a cell without the measure becomes `skipped` with the reason, so it pairs with nothing.
std::vector<Result> in_measure(const std::vector<Result>& results, Measure measure);

/// "on energy (joules per epoch)", "on cost (money per epoch)": how statements in a measure start.
std::string measure_words(Measure measure);

/// An epoch's value in its measure, for tables: "12.3 ms" (time), "4.56 J", "850 mJ" or "66 uJ"
/// (energy), "3.5e-05" (cost, in the units of the prices).
std::string format_measure(double value, Measure measure);

/// What a table's epoch column holds: "epoch time", "energy per epoch", "cost per epoch".
std::string measure_noun(Measure measure);

/// A throughput in the measure: "1.2e+05 samples/s", "3,400 samples/J", "2e+09 samples per unit of
/// money" (in_measure turns samples_per_second into samples per joule or per unit of money).
std::string throughput_text(double samples_per_unit, Measure measure);

/// Where the energy of a run's ok cells came from, in one line for people: "energy: not measured
/// (no powercap at /sys/class/powercap; docs/energy.md says where it is)" or "energy: 12 cells
/// rapl (the whole CPU package ...), 12 cells nvml"; "" without ok cells that carry an
/// energy_source (results of a crossover before energy was measured). Notes are read from the
/// results file: only printable characters that Markdown and HTML leave alone reach the line.
/// The counted cells in one line, or "" when none was counted: how many, by which counter and
/// instruction set, that their times were the counter's, and the command that gates on them.
std::string counted_summary(const std::vector<Result>& results);

std::string energy_summary(const std::vector<Result>& results);

/// The crossovers in the other measures in words, one per line: "iris_mlp: on energy (joules per
/// epoch), cuda wins from dataset_size 5,785 on ..." — what every report adds to its crossovers.
std::vector<std::string> measure_statements(const ComparisonFindings& findings);

/// Where a workload has no crossover statement (no numeric axis varies among its pairs), each
/// pair's own verdict, one per line: "iris_mlp cpu … bf16: 0.3723x [0.3675, 0.3779] against fp32,
/// fp32 faster" — what every report lists under its crossovers.
std::vector<std::string> pair_verdicts(const ComparisonFindings& findings);

/// by_measure, machine-readable: {"energy": [{workload, axis, from, crossing, statement, cells}]}.
nlohmann::ordered_json measures_json(const ComparisonFindings& findings);

/// The crossovers of `spec` in every measure but spec.measure that some ok cell of `results`
/// measured, each found as in time on the results in that measure (ComparisonFindings.by_measure).
std::vector<std::pair<Measure, std::vector<Crossover>>> crossovers_by_measure(
    const std::vector<Result>& results, CompareSpec spec);

/// A crossover statement in another measure than time: its "speedup" words become "ratio" (the
/// ratio is of joules or of money there).
std::string statement_in(const std::string& statement, Measure measure);

}  // namespace crossover
