#pragma once
// A bounded queue filled by a background thread, so that making the next item overlaps the
// consumer's work. The data path uses it to pin batches off the training thread, as PyTorch's
// DataLoader does in its pin-memory thread. No LibTorch here: it is tested on plain values.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace crossover {

/// Runs `produce` on its own thread, keeping up to `capacity` items ready. `produce` returns
/// std::nullopt at the end. pop() hands items over in order, rethrows an exception `produce`
/// threw, and returns std::nullopt at the end. Destroying it stops the thread (after the item
/// being produced, if any), also mid-stream. Only one thread may call pop().
template <typename T>
class Prefetcher {
 public:
  Prefetcher(std::function<std::optional<T>()> produce, std::size_t capacity)
      : produce_(std::move(produce)), capacity_(capacity == 0 ? 1 : capacity) {
    thread_ = std::thread([this] { fill(); });
  }

  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  ~Prefetcher() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  /// The next item, waiting for it if needed; std::nullopt at the end.
  std::optional<T> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !ready_.empty() || done_; });
    if (!ready_.empty()) {
      std::optional<T> item(std::move(ready_.front()));
      ready_.pop_front();
      lock.unlock();
      changed_.notify_all();
      return item;
    }
    if (error_) std::rethrow_exception(error_);
    return std::nullopt;
  }

 private:
  void fill() {
    for (;;) {
      std::optional<T> item;
      try {
        item = produce_();
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
        done_ = true;
        changed_.notify_all();
        return;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      if (!item) {
        done_ = true;
        changed_.notify_all();
        return;
      }
      changed_.wait(lock, [this] { return ready_.size() < capacity_ || stop_; });
      if (stop_) return;
      ready_.push_back(std::move(*item));
      changed_.notify_all();
    }
  }

  std::function<std::optional<T>()> produce_;
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<T> ready_;
  bool done_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: it starts after every other member is ready
};

}  // namespace crossover
