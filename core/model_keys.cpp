// The generic `mlp` workload's model keys: its input features, classes, hidden width and depth,
// so that a grid can sweep how much work one step does. Every other workload's model is fixed
// by its seed: the keys are 0 there, and setting one is a grid problem.
#include <string>

#include "core/key_builder.hpp"

namespace crossover::key_builder {

void declare_model_keys(Keys& keys) {
  struct ModelKey {
    const char* name;
    int Cell::*field;
    int fallback;  ///< the mlp workload's default
    double min;
    bool numeric_axis;
    const char* means;
  };
  const ModelKey model_keys[] = {
      {"features", &Cell::features, 32, 1, true, "input features of the synthetic rows"},
      {"classes", &Cell::classes, 10, 2, false, "classes of the synthetic rows (the output width)"},
      {"width", &Cell::width, 256, 1, true, "units in each hidden layer"},
      {"depth", &Cell::depth, 2, 0, true, "hidden layers (0: a linear model)"},
  };
  for (const ModelKey& k : model_keys) {
    const std::string name = k.name;
    const auto field = k.field;
    const int fallback = k.fallback;
    Declare key(name, kInteger, field);
    key.normalise([field, fallback](Cell& c) {
         if (c.workload == "mlp" && c.*field == 0) c.*field = fallback;
       })
        .problem([name, field](const Cell& c) -> std::string {
          if (c.workload == "mlp" || c.*field == 0) return "";
          return name + " sizes the generic workload \"mlp\" alone; " + c.workload +
                 "'s model is its seed's (crossover list)";
        })
        .range(k.min, 1e6)
        .added_later()
        .expects(k.min == 0 ? "a whole number from 0" : "a positive whole number")
        .means(std::string("workload `mlp`: ") + k.means + "; 0 for every other workload")
        .defaults_to("`" + std::to_string(fallback) + "` for `mlp`");
    if (k.numeric_axis) key.numeric_axis();
    keys.push_back(key);
  }
}

}  // namespace crossover::key_builder
