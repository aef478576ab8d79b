#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "workloads/data/prefetch.hpp"

namespace crossover {
namespace {

TEST(Prefetcher, HandsOverEveryItemInOrderThenTheEnd) {
  int next = 0;
  Prefetcher<int> queue(
      [&]() -> std::optional<int> {
        if (next == 100) return std::nullopt;
        return next++;
      },
      2);
  std::vector<int> seen;
  while (const auto item = queue.pop()) seen.push_back(*item);
  ASSERT_EQ(seen.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(seen[static_cast<std::size_t>(i)], i);
  EXPECT_FALSE(queue.pop().has_value());  // the end stays the end
}

TEST(Prefetcher, RunsAheadButAtMostCapacityItems) {
  std::atomic<int> produced{0};
  Prefetcher<int> queue(
      [&]() -> std::optional<int> {
        if (produced == 50) return std::nullopt;
        return produced++;
      },
      3);
  // Nothing is consumed yet: the producer fills the 3 places, makes one more item and waits with
  // it. Waiting for that (bounded, so a starved thread cannot hang the test) shows it runs ahead.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (produced.load() < 4 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(produced.load(), 4);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(produced.load(), 4);  // and no further while nobody takes an item
  int consumed = 0;
  while (queue.pop()) {
    ++consumed;
    EXPECT_LE(produced.load() - consumed, 3 + 1);
  }
  EXPECT_EQ(consumed, 50);
}

TEST(Prefetcher, RethrowsTheProducersErrorAfterTheItemsBeforeIt) {
  int next = 0;
  Prefetcher<int> queue(
      [&]() -> std::optional<int> {
        if (next == 3) throw std::runtime_error("cannot pin: out of memory");
        return next++;
      },
      2);
  EXPECT_EQ(queue.pop(), 0);
  EXPECT_EQ(queue.pop(), 1);
  EXPECT_EQ(queue.pop(), 2);
  try {
    queue.pop();
    FAIL() << "expected the producer's exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot pin: out of memory");
  }
}

TEST(Prefetcher, StopsItsThreadWhenDestroyedMidStream) {
  std::atomic<int> produced{0};
  {
    Prefetcher<int> queue([&]() -> std::optional<int> { return produced++; }, 2);
    EXPECT_EQ(queue.pop(), 0);
  }  // an endless producer: the destructor must stop it rather than wait for the end
  const int after = produced.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(produced.load(), after);  // nothing runs on after the queue is gone
  EXPECT_LE(after, 1 + 2 + 1);
}

}  // namespace
}  // namespace crossover
