// GenerationChannel's non-blocking HTTP side (when_ready / poll): the callback fires once, at
// once when something is pending, else on the worker's push; a whole answer's channel calls back
// only at the end.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "serve/engine/generation_channel.h"

namespace ogai::serve {
namespace {

TEST(GenerationChannelReady, CallsBackOnceWhenTextArrives) {
  GenerationChannel channel(/*keep_text=*/true);
  int calls = 0;
  channel.when_ready([&] { ++calls; });
  EXPECT_EQ(calls, 0);  // nothing pending yet
  EXPECT_TRUE(channel.on_token("Once"));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(channel.on_token(" upon"));
  EXPECT_EQ(calls, 1) << "one call per arming";
  GenerationChannel::Update u = channel.poll();
  EXPECT_EQ(u.text, "Once upon");
  EXPECT_EQ(u.events, 2);
  EXPECT_FALSE(u.finished());
  EXPECT_EQ(channel.poll().text, "") << "poll does not wait";
}

TEST(GenerationChannelReady, CallsBackAtOnceWhenSomethingIsPending) {
  GenerationChannel channel(true);
  channel.on_token("a");
  int calls = 0;
  channel.when_ready([&] { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(GenerationChannelReady, AWholeAnswerIsCalledBackOnlyAtTheEnd) {
  GenerationChannel channel(/*keep_text=*/false);
  int calls = 0;
  channel.when_ready([&] { ++calls; });
  channel.on_token("a");
  channel.on_token("b");
  EXPECT_EQ(calls, 0);
  GenerationResult result;
  result.text = "ab";
  channel.complete(result);
  EXPECT_EQ(calls, 1);
  GenerationChannel::Update end = channel.poll();
  ASSERT_TRUE(end.result.has_value());
  EXPECT_EQ(end.result->text, "ab");
}

TEST(GenerationChannelReady, AFailureCallsBack) {
  GenerationChannel channel(true);
  int calls = 0;
  channel.when_ready([&] { ++calls; });
  channel.fail(shutting_down());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(channel.poll().error->status, 503);
}

TEST(GenerationChannelReady, AWorkerOnAnotherThreadWakesTheCallback) {
  GenerationChannel channel(true);
  std::atomic<int> calls{0};
  std::string text;
  std::function<void()> arm = [&] {
    channel.when_ready([&] {
      ++calls;
      GenerationChannel::Update u = channel.poll();
      text += u.text;
      if (!u.finished()) arm();
    });
  };
  arm();
  std::thread worker([&] {
    for (int i = 0; i < 100; ++i) channel.on_token("x");
    channel.complete({});
  });
  worker.join();
  EXPECT_EQ(text, std::string(100, 'x'));
  EXPECT_GE(calls.load(), 1);
}

}  // namespace
}  // namespace ogai::serve
