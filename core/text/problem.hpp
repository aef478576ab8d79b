#pragma once
// What a check found wrong, in words for a person ("nproc 2 needs parallel \"ddp\""). A check
// returns std::optional<Problem>: nothing when all is well. The constructor is explicit, so no
// text (an empty one least of all) becomes a problem, or an all-clear, by accident.

#include <optional>
#include <string>
#include <utility>

namespace crossover {

/// What is wrong, said once: the message a check's caller shows or throws.
struct Problem {
  explicit Problem(std::string what) : text(std::move(what)) {}
  std::string text;
};

/// A check's answer: a problem, or nothing when all is well.
using Found = std::optional<Problem>;

}  // namespace crossover
