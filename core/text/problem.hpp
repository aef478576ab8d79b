#pragma once
// What a check found wrong, in words for a person ("nproc 2 needs parallel \"ddp\""). A check
// returns std::optional<Problem>: nothing when all is well. The constructor is explicit, so no
// text (an empty one least of all) becomes a problem, or an all-clear, by accident.

#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace crossover {

/// What is wrong, said once: the message a check's caller shows or throws.
struct Problem {
  explicit Problem(std::string what) : text(std::move(what)) {}
  std::string text;
};

/// A check's answer: a problem, or nothing when all is well.
using Found = std::optional<Problem>;

/// What went wrong in `f()`: nothing when it returned, else the message of the `Caught` it threw
/// (any std::exception by default; others pass on). The one way a part that may fail and degrade
/// (an optional file, a fallback) turns an exception into a value:
/// `if (const Found why = problem_of([&] { catalog = load_catalog(); })) ...`.
template <typename Caught = std::exception, typename F>
Found problem_of(F&& f) {
  try {
    f();
  } catch (const Caught& e) {
    return Problem(e.what());
  }
  return std::nullopt;
}

/// What `f()` returns, or the `Caught` it threw (others pass on): an expected-like result, for a
/// failure that carries more than its message, such as a grid's issues:
/// `auto loaded = attempt<GridError>([&] { return load(path); });` then
/// `if (const GridError* error = std::get_if<GridError>(&loaded)) ...`.
template <typename Caught, typename F>
auto attempt(F&& f) -> std::variant<decltype(f()), Caught> {
  try {
    return f();
  } catch (const Caught& e) {
    return e;
  }
}

}  // namespace crossover
