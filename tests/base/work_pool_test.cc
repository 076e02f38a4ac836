// WorkPool (base/work_pool.h): every index runs exactly once per loop, on more than one thread when
// the pool has them, loop after loop (workers that wake late never run a finished loop's function).
#include "base/work_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ogai {
namespace {

TEST(WorkPool, EveryIndexExactlyOncePerLoop) {
  for (std::size_t threads : {1u, 2u, 4u}) {
    WorkPool pool(threads);
    for (std::size_t n : {0u, 1u, 2u, 3u, 17u, 256u}) {
      for (int loop = 0; loop < 50; ++loop) {
        std::vector<std::atomic<int>> hits(n);
        pool.for_each(n, [&](std::size_t i) { hits[i].fetch_add(1); });
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << threads << " threads, n " << n << ", i " << i;
      }
    }
  }
}

TEST(WorkPool, UsesSeveralThreadsWhenItHasThem) {
  WorkPool pool(4);
  std::mutex mu;
  std::set<std::thread::id> seen;
  for (int loop = 0; loop < 200 && seen.size() < 2; ++loop)
    pool.for_each(64, [&](std::size_t) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      std::lock_guard<std::mutex> lock(mu);
      seen.insert(std::this_thread::get_id());
    });
  EXPECT_GE(seen.size(), 2u);
  WorkPool inline_pool(1);
  std::set<std::thread::id> one;
  inline_pool.for_each(8, [&](std::size_t) { one.insert(std::this_thread::get_id()); });
  EXPECT_EQ(one, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(WorkPool, ManyShortLoopsDoNotMixUp) {
  WorkPool pool(3);
  std::atomic<long> total{0};
  for (int loop = 0; loop < 5000; ++loop) {
    const long base = loop * 1000;
    pool.for_each(5, [&, base](std::size_t i) { total.fetch_add(base + static_cast<long>(i)); });
  }
  long expected = 0;
  for (int loop = 0; loop < 5000; ++loop) expected += 5L * loop * 1000 + 10;
  EXPECT_EQ(total.load(), expected);
}

}  // namespace
}  // namespace ogai
