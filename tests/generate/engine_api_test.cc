// The public ogai::Engine: submissions from many threads, streaming, cancellation, n choices and
// statistics; every result equals Model::generate with the same options.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <filesystem>
#include <thread>

#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const Model> stories() {
  static auto model = Model::load(fs::path(OGAI_BINARY_DIR) / "packages" / "stories260k");
  return model;
}

GenerationOptions options(int n, std::optional<std::uint64_t> seed = std::nullopt) {
  GenerationOptions o;
  o.max_new_tokens = n;
  if (seed) {
    o.sampling.temperature = 0.8f;
    o.sampling.top_p = 0.95f;
    o.sampling.seed = *seed;
  }
  return o;
}

const std::vector<std::string> kPrompts = {"Once upon a time", "Lily", "The little dog", "One day, a boy named Tim",
                                           "She", "The sun was", "Mom said", "They played"};

TEST(EngineApiTest, ConcurrentSubmissionsEqualSoloAndRunBatched) {
  auto model = stories();
  Engine engine(model, {.max_sequences = 8});
  std::vector<std::shared_ptr<GenerationHandle>> handles(kPrompts.size());
  std::vector<std::string> streamed(kPrompts.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < kPrompts.size(); ++i)
    threads.emplace_back([&, i] {
      handles[i] = engine.submit(kPrompts[i], options(30 + 5 * static_cast<int>(i), i % 2 ? std::optional<std::uint64_t>(i) : std::nullopt),
                                 [&, i](const StreamEvent& e) {
                                   streamed[i] += e.text;
                                   return true;
                                 });
    });
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < kPrompts.size(); ++i) {
    GenerationResult r = handles[i]->wait();
    auto solo = model->generate(kPrompts[i], options(30 + 5 * static_cast<int>(i), i % 2 ? std::optional<std::uint64_t>(i) : std::nullopt));
    EXPECT_EQ(r.ids, solo.ids) << kPrompts[i];
    EXPECT_EQ(r.text, solo.text);
    EXPECT_EQ(streamed[i], r.text);
    EXPECT_TRUE(handles[i]->done());
  }
  EngineStats stats = engine.stats();
  EXPECT_GE(stats.max_batch, 2) << "requests were not decoded together";
  EXPECT_GT(stats.steps, 0u);
  EXPECT_EQ(stats.running, 0);
  EXPECT_GT(stats.bytes_per_token, 0u);
}

TEST(EngineApiTest, CancelFreesTheRow) {
  auto model = stories();
  Engine engine(model, {.max_sequences = 2});
  std::atomic<int> tokens{0};
  auto handle = engine.submit("Once upon a time", options(400), [&](const StreamEvent&) {
    ++tokens;
    return true;
  });
  while (tokens.load() < 3) std::this_thread::yield();
  handle->cancel();
  GenerationResult r = handle->wait();
  EXPECT_EQ(r.finish_reason, FinishReason::kCancelled);
  EXPECT_LT(r.ids.size(), 400u);
  // The engine keeps serving after a cancellation.
  auto next = engine.submit("Lily", options(10));
  EXPECT_EQ(next->wait().ids, model->generate("Lily", options(10)).ids);
}

TEST(EngineApiTest, StreamCallbackReturningFalseCancels) {
  auto model = stories();
  Engine engine(model);
  int seen = 0;
  auto handle = engine.submit("Once upon a time", options(50), [&](const StreamEvent&) { return ++seen < 5; });
  GenerationResult r = handle->wait();
  EXPECT_EQ(r.finish_reason, FinishReason::kCancelled);
  EXPECT_EQ(r.ids.size(), 5u);
}

TEST(EngineApiTest, NChoicesShareThePrefillAndEqualSoloSeeds) {
  auto model = stories();
  Engine engine(model, {.max_sequences = 4});
  auto prompt = model->tokenize("Once upon a time");
  GenerationOptions o = options(25, 41);
  o.logprobs = 2;
  auto handles = engine.submit_n(prompt, o, 3);
  ASSERT_EQ(handles.size(), 3u);
  std::set<std::vector<std::int32_t>> distinct;
  for (int i = 0; i < 3; ++i) {
    GenerationResult r = handles[static_cast<std::size_t>(i)]->wait();
    GenerationOptions solo = o;
    solo.sampling.seed = 41 + static_cast<std::uint64_t>(i);
    auto expected = model->generate(prompt, solo);
    EXPECT_EQ(r.ids, expected.ids) << "choice " << i;
    ASSERT_EQ(r.logprobs.size(), expected.logprobs.size());
    for (std::size_t k = 0; k < r.logprobs.size(); ++k) EXPECT_NEAR(r.logprobs[k].logprob, expected.logprobs[k].logprob, 1e-4);
    distinct.insert(r.ids);
  }
  EXPECT_GE(distinct.size(), 2u) << "different seeds gave the same choices";
  EXPECT_EQ(engine.stats().prefill_tokens, prompt.size()) << "the prompt was prefilled more than once";
}

TEST(EngineApiTest, PrefixCacheAcrossRequests) {
  auto model = stories();
  Engine engine(model, {.max_sequences = 4});
  const std::string system = "Once upon a time, there was a little girl named Lily. She loved to play outside.";
  auto first = engine.submit(system + " One day", options(10))->wait();
  auto second = engine.submit(system + " Her mom", options(10))->wait();
  EXPECT_EQ(first.cached_prompt_tokens, 0);
  EXPECT_GT(second.cached_prompt_tokens, 10);
  EXPECT_EQ(second.ids, model->generate(system + " Her mom", options(10)).ids);
  EngineStats stats = engine.stats();
  EXPECT_EQ(stats.prefix_hits, 1u);
  EXPECT_GE(stats.prefix_misses, 1u);
  EXPECT_GT(stats.prefix_cache_bytes, 0u);
}

TEST(EngineApiTest, BadRequestsFailAtSubmit) {
  auto model = stories();
  Engine engine(model);
  GenerationOptions bad = options(10);
  bad.sampling.top_p = 2.0f;
  EXPECT_THROW(engine.submit("Lily", bad), Error);
  GenerationOptions spec = options(10);
  spec.speculative.drafter = SpeculativeOptions::Drafter::kAssistant;  // stories260k has no proposer
  try {
    engine.submit("Lily", spec);
    FAIL() << "an assistant drafter the package lacks was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(e.where(), "speculative");
  }
  spec.speculative.drafter = SpeculativeOptions::Drafter::kNgram;
  spec.logprobs = 1;
  spec.prompt_logprobs = true;
  try {
    engine.submit("Lily", spec);
    FAIL() << "prompt logprobs with speculative decoding were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
  EXPECT_THROW(engine.submit_n(model->tokenize("Lily"), options(5), 0), Error);
  EXPECT_THROW(Engine(model, {.max_sequences = 0}), Error);
  // A request that fails does not stop the others.
  EXPECT_EQ(engine.submit("Lily", options(5))->wait().ids.size(), 5u);
}

// Speculative requests (n-gram and the package's assistant, greedy and seeded) decode in the same
// engine as plain ones, submitted at once from many threads: each equals Model::generate with its
// options (greedy speculative also equals plain greedy), with its draft counts, streamed text and
// a handle cancelled in the middle.
TEST(EngineApiTest, SpeculativeSubmissionsEqualSolo) {
  auto model = Model::load(fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b-speculative");
  Engine engine(model, {.max_sequences = 8});
  using Drafter = SpeculativeOptions::Drafter;
  std::vector<GenerationOptions> requests;
  for (Drafter d : {Drafter::kNone, Drafter::kNgram, Drafter::kAssistant})
    for (auto seed : {std::optional<std::uint64_t>(), std::optional<std::uint64_t>(5)}) {
      GenerationOptions o = options(24, seed);
      o.speculative.drafter = d;
      o.speculative.max_draft_tokens = d == Drafter::kNgram ? 3 : 0;
      o.speculative.ngram_max = 1;  // the fixture's random text repeats single tokens only
      requests.push_back(o);
    }
  std::vector<std::shared_ptr<GenerationHandle>> handles(requests.size());
  std::vector<std::string> streamed(requests.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < requests.size(); ++i)
    threads.emplace_back([&, i] {
      handles[i] = engine.submit(kPrompts[i], requests[i], [&, i](const StreamEvent& e) {
        streamed[i] += e.text;
        return true;
      });
    });
  for (auto& t : threads) t.join();
  GenerationOptions cancelled = requests[4];  // assistant, greedy
  cancelled.max_new_tokens = 400;
  cancelled.ignore_eos = true;
  std::atomic<int> events{0};
  auto doomed = engine.submit("Once upon a time", cancelled, [&](const StreamEvent&) {
    if (++events == 6) return false;  // cancels from the stream callback, mid-generation
    return true;
  });
  for (std::size_t i = 0; i < requests.size(); ++i) {
    GenerationResult r = handles[i]->wait();
    auto solo = model->generate(kPrompts[i], requests[i]);
    EXPECT_EQ(r.ids, solo.ids) << "request " << i;
    EXPECT_EQ(r.text, solo.text);
    EXPECT_EQ(streamed[i], r.text);
    EXPECT_EQ(r.draft_tokens, solo.draft_tokens) << "request " << i;
    EXPECT_EQ(r.accepted_draft_tokens, solo.accepted_draft_tokens);
    if (requests[i].speculative.drafter != Drafter::kNone) {
      EXPECT_GT(r.draft_tokens, 0) << "request " << i << " did not decode speculatively";
      EXPECT_GT(r.timings.decode_ms + r.timings.prefill_ms, 0.0);
    }
    if (!requests[i].sampling.seed) {
      GenerationOptions plain = requests[i];
      plain.speculative = {};
      EXPECT_EQ(r.ids, model->generate(kPrompts[i], plain).ids) << "request " << i;
    }
  }
  GenerationResult stopped = doomed->wait();
  EXPECT_EQ(stopped.finish_reason, FinishReason::kCancelled);
  EXPECT_LT(stopped.ids.size(), 400u);
  auto whole = model->generate("Once upon a time", cancelled);
  ASSERT_LE(stopped.ids.size(), whole.ids.size());
  EXPECT_TRUE(std::equal(stopped.ids.begin(), stopped.ids.end(), whole.ids.begin()));
  // n choices of a speculative request share one prefill; each equals its solo run.
  GenerationOptions seeded = requests[5];  // assistant, seed 5
  auto choices = engine.submit_n(model->tokenize(kPrompts[0]), seeded, 3);
  for (int c = 0; c < 3; ++c) {
    GenerationOptions one = seeded;
    one.sampling.seed = *seeded.sampling.seed + static_cast<std::uint64_t>(c);
    EXPECT_EQ(choices[static_cast<std::size_t>(c)]->wait().ids, model->generate(kPrompts[0], one).ids) << "choice " << c;
  }
}

// A callback that throws fails its own request (or is logged, for on_done); the engine goes on.
TEST(EngineApiTest, ThrowingCallbacksDoNotStopTheEngine) {
  auto model = stories();
  Engine engine(model);
  auto bad = engine.submit("Lily", options(10), [](const StreamEvent&) -> bool { throw std::runtime_error("boom"); });
  EXPECT_THROW(bad->wait(), std::runtime_error);
  std::atomic<bool> called{false};
  auto noisy = engine.submit("Lily", options(5), {}, [&](GenerationHandle&) {
    called = true;
    throw std::runtime_error("done callback failed");
  });
  EXPECT_EQ(noisy->wait().ids.size(), 5u);
  EXPECT_EQ(engine.submit("Lily", options(5))->wait().ids, model->generate("Lily", options(5)).ids);
  EXPECT_TRUE(called);
}

// Callbacks that hold the submitter's object, which holds the handle (the server's Job does):
// once the generation ended the engine drops them, so no reference cycle outlives it.
TEST(EngineApiTest, EndedGenerationsReleaseTheirCallbacks) {
  auto model = stories();
  Engine engine(model);
  struct Holder {
    std::shared_ptr<GenerationHandle> handle;
  };
  auto holder = std::make_shared<Holder>();
  std::weak_ptr<Holder> weak = holder;
  holder->handle = engine.submit("Lily", options(5), [holder](const StreamEvent&) { return true; },
                                 [holder](GenerationHandle&) {});
  EXPECT_EQ(holder->handle->wait().ids.size(), 5u);
  holder->handle->cancel();  // after the end: a no-op
  holder.reset();
  for (int i = 0; i < 2000 && !weak.expired(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(weak.expired()) << "the callbacks still hold the submitter's object";
}

TEST(EngineApiTest, DestroyingTheEngineCancelsWhatRuns) {
  auto model = stories();
  std::shared_ptr<GenerationHandle> handle;
  {
    Engine engine(model);
    handle = engine.submit("Once upon a time", options(400));
  }
  GenerationResult r = handle->wait();
  EXPECT_EQ(r.finish_reason, FinishReason::kCancelled);
}

}  // namespace
}  // namespace ogai
