// Scheduler admission (concurrency limit, bounded queue, shutdown) and the generation channel.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <filesystem>
#include <thread>

#include "serve/engine/generation_channel.h"
#include "serve/engine/scheduler.h"

namespace ogai::serve {
namespace {

using namespace std::chrono_literals;

template <typename F>
void eventually(F condition) {
  for (int i = 0; i < 5000 && !condition(); ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(condition());
}

std::shared_ptr<const Model> stories() {
  static auto model = Model::load(std::filesystem::path(OGAI_BINARY_DIR) / "packages" / "stories260k");
  return model;
}

// A submission of `tokens` greedy tokens whose stream is slow (5 ms a token, on the engine's
// thread) until `gate` opens, so it stays running; its end is counted in `ended`.
Scheduler::Submission blocked(std::shared_future<void> gate, std::atomic<int>& ended, int tokens = 100, int n = 1) {
  Scheduler::Submission s;
  s.prompt = stories()->tokenize("Once upon a time");
  s.options.max_new_tokens = tokens;
  s.n = n;
  s.on_token = [gate](int, const StreamEvent&) {
    if (gate.wait_for(5ms) != std::future_status::ready) return true;
    return true;
  };
  s.on_done = [&ended](int, GenerationHandle&) { ++ended; };
  return s;
}

TEST(Scheduler, AdmitsRowsPlusQueueAndRefusesBeyond) {
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  std::atomic<int> ended{0};
  Scheduler s(stories(), 2, 2);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(s.submit(blocked(gate, ended)), Scheduler::Admission::kAccepted);
  EXPECT_EQ(s.submit(blocked(gate, ended)), Scheduler::Admission::kQueueFull);  // 2 rows + 2 waiting
  eventually([&] { return s.running() == 2 && s.queued() == 2; });
  open.set_value();
  eventually([&] { return ended == 4; });
  EXPECT_EQ(s.running(), 0);
  EXPECT_EQ(s.queued(), 0);
  EXPECT_EQ(s.submit(blocked(gate, ended)), Scheduler::Admission::kAccepted);  // room again
  s.join();
  EXPECT_EQ(ended, 5);
}

TEST(Scheduler, ChoicesCountAsRows) {
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  std::atomic<int> ended{0};
  Scheduler s(stories(), 3, 0);
  EXPECT_EQ(s.submit(blocked(gate, ended, 8, 3)), Scheduler::Admission::kAccepted);
  EXPECT_EQ(s.submit(blocked(gate, ended)), Scheduler::Admission::kQueueFull);
  EXPECT_THROW(s.submit(blocked(gate, ended, 8, 4)), Error);  // n beyond max_concurrent
  open.set_value();
  s.join();
  EXPECT_EQ(ended, 3);
}

// A queued request whose client went away frees its place at once, not when it would have run.
TEST(Scheduler, CancelledWhileQueuedFreesItsPlace) {
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  std::atomic<int> ended{0};
  Scheduler s(stories(), 1, 1);
  EXPECT_EQ(s.submit(blocked(gate, ended, 50)), Scheduler::Admission::kAccepted);
  std::vector<std::shared_ptr<GenerationHandle>> queued;
  EXPECT_EQ(s.submit(blocked(gate, ended), &queued), Scheduler::Admission::kAccepted);
  EXPECT_EQ(s.submit(blocked(gate, ended)), Scheduler::Admission::kQueueFull);
  queued.front()->cancel();
  eventually([&] { return ended == 1; });
  EXPECT_EQ(queued.front()->wait().finish_reason, FinishReason::kCancelled);
  EXPECT_EQ(s.submit(blocked(gate, ended)), Scheduler::Admission::kAccepted);
  open.set_value();
  s.join();
}

TEST(Scheduler, ShutdownCancelsEverythingAndRefusesNewWork) {
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  std::atomic<int> ended{0};
  Scheduler s(stories(), 1, 2);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s.submit(blocked(gate, ended, 200)), Scheduler::Admission::kAccepted);
  s.shutdown();
  EXPECT_TRUE(s.stopping());
  EXPECT_EQ(s.submit(blocked(gate, ended)), Scheduler::Admission::kStopping);
  open.set_value();
  s.join();
  EXPECT_EQ(ended, 3);
}

TEST(Scheduler, RejectsBadSizes) {
  EXPECT_THROW(Scheduler(stories(), 0, 1), Error);
  EXPECT_THROW(Scheduler(stories(), 1, -1), Error);
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
