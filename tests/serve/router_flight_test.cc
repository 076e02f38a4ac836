// The router's cross-model cap (src/serve/router/flight_gate.h, `--models-parallel`): at most N
// requests hold a place, at most Q more wait in arrival order, the next is refused; a freed place
// goes to the oldest waiting request; close() drops the waiting ones and refuses later ones.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "serve/router/flight_gate.h"

namespace ogai::serve::router {
namespace {

// Records which requests started and keeps their slots until released.
struct Requests {
  std::vector<int> started;
  std::vector<std::shared_ptr<FlightSlot>> slots;
  FlightGate::Start start(int id) {
    return [this, id](std::shared_ptr<FlightSlot> slot) {
      started.push_back(id);
      slots.push_back(std::move(slot));
    };
  }
  void release(int id) {  // frees the slot of the request that started as `id`
    for (std::size_t i = 0; i < started.size(); ++i)
      if (started[i] == id) slots[i].reset();
  }
};

TEST(FlightGate, AdmitsUpToTheCapQueuesUpToTheQueueAndRefusesTheNext) {
  FlightGate gate(2, 2);
  Requests r;
  EXPECT_TRUE(gate.enter(r.start(1)));
  EXPECT_TRUE(gate.enter(r.start(2)));
  EXPECT_TRUE(gate.enter(r.start(3)));  // waits
  EXPECT_TRUE(gate.enter(r.start(4)));  // waits
  EXPECT_FALSE(gate.enter(r.start(5)));  // queue full: refused, never started
  EXPECT_EQ(r.started, (std::vector<int>{1, 2}));
  EXPECT_EQ(gate.in_flight(), 2u);
  EXPECT_EQ(gate.waiting(), 2u);
}

TEST(FlightGate, AFreedPlaceGoesToTheOldestWaitingRequest) {
  FlightGate gate(1, 3);
  Requests r;
  for (int id = 1; id <= 4; ++id) ASSERT_TRUE(gate.enter(r.start(id)));
  EXPECT_EQ(r.started, (std::vector<int>{1}));
  r.release(1);
  EXPECT_EQ(r.started, (std::vector<int>{1, 2}));
  EXPECT_EQ(gate.in_flight(), 1u);
  EXPECT_EQ(gate.waiting(), 2u);
  r.release(2);
  r.release(3);
  EXPECT_EQ(r.started, (std::vector<int>{1, 2, 3, 4}));
  r.release(4);
  EXPECT_EQ(gate.in_flight(), 0u);
  EXPECT_EQ(gate.waiting(), 0u);
  EXPECT_TRUE(gate.enter(r.start(5)));  // room again: starts at once
  EXPECT_EQ(r.started.back(), 5);
}

TEST(FlightGate, ZeroMeansNoCap) {
  FlightGate gate(0, 1);
  Requests r;
  for (int id = 1; id <= 100; ++id) ASSERT_TRUE(gate.enter(r.start(id)));
  EXPECT_EQ(r.started.size(), 100u);
  EXPECT_EQ(gate.waiting(), 0u);
}

TEST(FlightGate, CloseDropsTheWaitingAndRefusesLaterRequests) {
  FlightGate gate(1, 4);
  Requests r;
  ASSERT_TRUE(gate.enter(r.start(1)));
  ASSERT_TRUE(gate.enter(r.start(2)));
  gate.close();
  EXPECT_EQ(gate.waiting(), 0u);
  EXPECT_FALSE(gate.enter(r.start(3)));
  r.release(1);  // starts nothing: 2 was dropped
  EXPECT_EQ(r.started, (std::vector<int>{1}));
  EXPECT_EQ(gate.in_flight(), 0u);
}

TEST(FlightGate, NeverMoreInFlightThanTheCapUnderThreads) {
  FlightGate gate(3, 1000);
  std::atomic<int> running{0}, most{0}, done{0};
  std::vector<std::thread> threads;
  // Each start runs its request on a thread of its own, which frees the slot when it ends.
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      for (int k = 0; k < 50; ++k) {
        ASSERT_TRUE(gate.enter([&](std::shared_ptr<FlightSlot> slot) {
          const int now = ++running;
          int seen = most.load();
          while (now > seen && !most.compare_exchange_weak(seen, now)) {}
          --running;
          ++done;
          slot.reset();  // may start a waiting request on this thread
        }));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(done.load(), 400);
  EXPECT_LE(most.load(), 3);
  EXPECT_EQ(gate.in_flight(), 0u);
  EXPECT_EQ(gate.waiting(), 0u);
}

}  // namespace
}  // namespace ogai::serve::router
