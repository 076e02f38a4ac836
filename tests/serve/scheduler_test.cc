// Scheduler admission (concurrency limit, bounded queue, shutdown) and the generation channel.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "serve/generation_channel.h"
#include "serve/scheduler.h"

namespace ogai::serve {
namespace {

using namespace std::chrono_literals;

// A gate tasks block on until opened.
struct Gate {
  std::promise<void> promise;
  std::shared_future<void> future = promise.get_future().share();
  void open() { promise.set_value(); }
  void wait() const { future.wait(); }
};

template <typename F>
void eventually(F condition) {
  for (int i = 0; i < 2000 && !condition(); ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(condition());
}

TEST(Scheduler, RunsAtMostWorkersAndQueuesTheRest) {
  Scheduler s(2, 2);
  Gate gate;
  std::atomic<int> active{0}, peak{0}, done{0};
  auto task = [&] {
    int now = ++active;
    int prev = peak.load();
    while (now > prev && !peak.compare_exchange_weak(prev, now)) {
    }
    gate.wait();
    --active;
    ++done;
  };
  for (int i = 0; i < 4; ++i) EXPECT_EQ(s.submit({task, {}}), Scheduler::Admission::kAccepted);
  eventually([&] { return s.running() == 2 && s.queued() == 2; });
  EXPECT_EQ(s.submit({task, {}}), Scheduler::Admission::kQueueFull);  // 2 running + 2 waiting
  gate.open();
  eventually([&] { return done == 4; });
  EXPECT_EQ(peak, 2);
  EXPECT_EQ(s.running(), 0);
  EXPECT_EQ(s.submit({task, {}}), Scheduler::Admission::kAccepted);  // room again
  eventually([&] { return done == 5; });
}

TEST(Scheduler, FifoOrder) {
  Scheduler s(1, 8);
  Gate gate;
  std::mutex m;
  std::vector<int> order;
  s.submit({[&] { gate.wait(); }, {}});
  for (int i = 0; i < 5; ++i)
    s.submit({[&, i] {
                std::lock_guard lock(m);
                order.push_back(i);
              },
              {}});
  gate.open();
  eventually([&] {
    std::lock_guard lock(m);
    return order.size() == 5;
  });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Scheduler, ShutdownDropsWaitingTasksAndRefusesNewOnes) {
  Gate gate;
  std::atomic<int> ran{0}, dropped{0};
  {
    Scheduler s(1, 4);
    s.submit({[&] { gate.wait(); ++ran; }, [&] { ++dropped; }});
    eventually([&] { return s.running() == 1; });
    for (int i = 0; i < 3; ++i) s.submit({[&] { ++ran; }, [&] { ++dropped; }});
    s.shutdown();
    EXPECT_TRUE(s.stopping());
    EXPECT_EQ(dropped, 3);
    EXPECT_EQ(s.submit({[&] { ++ran; }, {}}), Scheduler::Admission::kStopping);
    gate.open();
  }  // the destructor joins the running task
  EXPECT_EQ(ran, 1);
}

TEST(Scheduler, ZeroQueueAdmitsOnlyFreeWorkers) {
  Scheduler s(1, 0);
  Gate gate;
  EXPECT_EQ(s.submit({[&] { gate.wait(); }, {}}), Scheduler::Admission::kAccepted);
  EXPECT_EQ(s.submit({[] {}, {}}), Scheduler::Admission::kQueueFull);
  gate.open();
}

TEST(Scheduler, RejectsBadSizes) {
  EXPECT_THROW(Scheduler(0, 1), Error);
  EXPECT_THROW(Scheduler(1, -1), Error);
}

TEST(GenerationChannel, StreamsTextThenTheEnd) {
  GenerationChannel c(/*keep_text=*/true);
  std::thread worker([&] {
    EXPECT_TRUE(c.on_token("Once"));
    EXPECT_TRUE(c.on_token(" upon"));
    GenerationResult r;
    r.text = "Once upon";
    c.complete(r);
  });
  std::string text;
  GenerationChannel::Update u;
  do {
    u = c.wait();
    text += u.text;
  } while (!u.finished());
  worker.join();
  EXPECT_EQ(text, "Once upon");
  EXPECT_EQ(u.result->text, "Once upon");
  EXPECT_FALSE(c.wait().finished());  // the end is handed over once
}

TEST(GenerationChannel, CancelStopsTheWorker) {
  GenerationChannel c(true);
  EXPECT_TRUE(c.on_token("a"));
  c.cancel();
  EXPECT_TRUE(c.cancelled());
  EXPECT_FALSE(c.on_token("b"));
}

TEST(GenerationChannel, WholeModeKeepsOnlyTheEnd) {
  GenerationChannel c(/*keep_text=*/false);
  EXPECT_TRUE(c.on_token("a"));
  c.fail(shutting_down());
  auto u = c.wait_finished();
  EXPECT_EQ(u.text, "");
  ASSERT_TRUE(u.error);
  EXPECT_EQ(u.error->status, 503);
}

}  // namespace
}  // namespace ogai::serve
