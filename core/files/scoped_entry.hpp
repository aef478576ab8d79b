#pragma once
// One more entry in a declared list (the data sets, the run folder's files) until this ends: how
// a test declares a throw-away one and finds it wherever the list is read (docs/development.md).
// Not thread-safe: for a test's own thread, before anything reads the list concurrently.

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace crossover {

/// `T` has a `name`, unique in the list.
template <typename T>
class ScopedEntry {
 public:
  /// Throws std::invalid_argument when `list` has an entry of that name ("a data set called ...").
  ScopedEntry(std::vector<T>& list, T entry, const std::string& what)
      : list_(list), name_(entry.name) {
    if (std::any_of(list.begin(), list.end(), [&](const T& e) { return e.name == name_; }))
      throw std::invalid_argument("a " + what + " called \"" + name_ + "\" is already declared");
    list.push_back(std::move(entry));
  }
  ~ScopedEntry() {
    list_.erase(
        std::remove_if(list_.begin(), list_.end(), [this](const T& e) { return e.name == name_; }),
        list_.end());
  }
  ScopedEntry(const ScopedEntry&) = delete;
  ScopedEntry& operator=(const ScopedEntry&) = delete;

 private:
  std::vector<T>& list_;
  std::string name_;
};

}  // namespace crossover
