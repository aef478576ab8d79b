#pragma once
// An enum's words, declared once: each enum that is written as text has a `words` table beside
// it (a constexpr function of the enum, found by argument-dependent lookup: words(Parallel{})),
// in the order its lists show them; text_of(), parse_word(), word_list() and word_from_json() read
// that table. Code compares values; the words appear only where files and reports are read or
// written.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace crossover {

/// True for an enum with a words table.
template <typename E, typename = void>
inline constexpr bool kHasWords = false;
template <typename E>
inline constexpr bool kHasWords<E, std::void_t<decltype(words(E{}))>> = std::is_enum_v<E>;

/// The word of a value: "dp", "graph", "bf16".
template <typename E, typename = std::enable_if_t<kHasWords<E>>>
std::string text_of(E value) {
  for (const auto& [v, word] : words(E{})) {
    if (v == value) return std::string(word);
  }
  return "unknown";
}

/// Every word of an enum, in declaration order (a key's choices).
template <typename E>
std::vector<std::string> word_list() {
  std::vector<std::string> out;
  for (const auto& entry : words(E{})) out.emplace_back(entry.second);
  return out;
}

/// The value a word names; nothing for any other text.
template <typename E>
std::optional<E> parse_word(std::string_view word) {
  for (const auto& [v, w] : words(E{})) {
    if (w == word) return v;
  }
  return std::nullopt;
}

/// The value a JSON word names; throws std::runtime_error naming the words it takes otherwise.
template <typename E, typename BasicJson>
E word_from_json(const BasicJson& json) {
  const auto found =
      json.is_string() ? parse_word<E>(json.template get<std::string>()) : std::optional<E>();
  if (!found) {
    std::string expected;
    for (const auto& word : word_list<E>())
      expected += (expected.empty() ? "\"" : ", \"") + word + "\"";
    throw std::runtime_error("unknown value " + json.dump() + "; expected one of " + expected);
  }
  return *found;
}

}  // namespace crossover

/// An enum's JSON as its word, in the enum's namespace: to_json writes text_of, from_json reads
/// word_from_json (and throws naming the words). nlohmann finds the pair by argument-dependent
/// lookup. One pair per enum, not a template in the enum: nlohmann's own enum conversion (to the
/// number) is such a template, and would match as well as ours.
#define CROSSOVER_JSON_AS_WORD(E)    \
  template <typename J>              \
  void to_json(J& j, E v) {          \
    j = text_of(v);                  \
  }                                  \
  template <typename J>              \
  void from_json(const J& j, E& v) { \
    v = word_from_json<E>(j);        \
  }
