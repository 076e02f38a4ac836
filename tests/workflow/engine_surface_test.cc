// Looped workflow packages through the generation API (Model::generate, ogai::Engine): the ids
// equal a direct interpreter run (what `ogai run` prints) greedy and seeded; concurrent requests
// equal solo ones; streamed text equals the whole; finish reasons; a request failing mid-run ends
// alone. Also the resumable run (workflow/run.h) itself: one loop trip per step().
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "ogai/engine.h"
#include "ogai/model.h"
#include "support.h"
#include "workflow/run.h"

namespace ogai::workflow::testing {
namespace {

// What `ogai run DECODER --input request.input_ids=[[...]] --max-new-tokens N [--seed S
// --temperature 1]` emits into tokens.row.0.
std::vector<std::int64_t> interpreted(const std::vector<std::int64_t>& prompt, std::int64_t n,
                                      std::optional<std::int64_t> seed, bool sample) {
  RunRequest r;
  r.tensors.emplace("request.input_ids", i64(prompt, {1, static_cast<std::int64_t>(prompt.size())}));
  r.max_new_tokens = n;
  r.seed = seed;
  if (sample) r.temperature = 1.0;
  const auto result = run(program("decoder"), std::move(r));
  const ort::Tensor* tokens = result.first("tokens");
  return tokens ? ints(*tokens) : std::vector<std::int64_t>{};
}

std::vector<std::int64_t> wide(const std::vector<std::int32_t>& v) { return {v.begin(), v.end()}; }

std::shared_ptr<const Model> decoder_model(std::vector<std::string> inputs = {}) {
  LoadOptions options;
  options.workflow_inputs = std::move(inputs);
  return Model::load(fixture("decoder"), options);
}

GenerationOptions seeded(int n, std::uint64_t seed) {
  GenerationOptions o;
  o.max_new_tokens = n;
  o.sampling.temperature = 1.0f;
  o.sampling.seed = seed;
  return o;
}

const std::vector<std::int32_t> kPrompt{4, 5};

TEST(WorkflowRun, StepsOneLoopTripAtATime) {
  RunRequest r;
  r.prompt_tokens = std::vector<TokenId>{4, 5};
  r.max_new_tokens = 4;
  r.seed = 7;
  r.temperature = 1.0;
  std::vector<std::int64_t> seen;
  workflow::Run stepper(program("decoder"), std::move(r),
                        [&](const std::string& out, std::int64_t, const ort::Tensor& chunk) {
                          if (out == "tokens")
                            for (auto v : ints(chunk)) seen.push_back(v);
                        });
  std::vector<std::size_t> after;
  while (stepper.step()) after.push_back(seen.size());
  EXPECT_EQ(after, (std::vector<std::size_t>{1, 2, 3, 4})) << "one emitted id per trip, published during its step";
  EXPECT_TRUE(stepper.finished());
  const auto result = stepper.result();
  EXPECT_EQ(ints(*result.first("tokens")), seen);
  EXPECT_EQ(seen, interpreted({4, 5}, 4, 7, true));
}

TEST(WorkflowModel, LoadsWithTheInterpreter) {
  auto model = decoder_model();
  EXPECT_TRUE(model->info().runs_workflow);
  EXPECT_FALSE(model->info().has_tokenizer);
  EXPECT_EQ(model->detokenize(std::vector<std::int32_t>{111, 1, 80}), "111 1 80");
  try {
    model->tokenize("hello");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("no tokenizer"), std::string::npos) << e.what();
  }
}

TEST(WorkflowModel, GenerateEqualsTheInterpreterSeededAndGreedy) {
  auto model = decoder_model();
  const auto r = model->generate(kPrompt, seeded(5, 7));
  EXPECT_EQ(wide(r.ids), (std::vector<std::int64_t>{111, 1, 80, 49, 3})) << "the reference's seed-7 ids";
  EXPECT_EQ(wide(r.ids), interpreted({4, 5}, 5, 7, true));
  EXPECT_EQ(r.text, "111 1 80 49 3");
  EXPECT_EQ(r.finish_reason, FinishReason::kLength);
  GenerationOptions greedy;
  greedy.max_new_tokens = 4;
  const auto g = model->generate(std::vector<std::int32_t>{6, 0}, greedy);
  EXPECT_EQ(wide(g.ids), interpreted({6, 0}, 4, std::nullopt, false));
  EXPECT_EQ(g.ids.size(), 4u);
}

TEST(WorkflowModel, StreamedPiecesMakeTheWholeText) {
  auto model = decoder_model();
  std::string streamed;
  int events = 0;
  const auto r = model->generate(kPrompt, seeded(5, 7), [&](const StreamEvent& e) {
    streamed += e.text;
    ++events;
    return true;
  });
  EXPECT_EQ(streamed, r.text);
  EXPECT_EQ(events, 5);
}

TEST(WorkflowModel, EosAndStopStringsFinishWithStop) {
  // The workflow's own EOS table (application input eos_ids) ends it after 80: its termination rule.
  auto model = decoder_model({"eos_ids=[[80]]"});
  const auto r = model->generate(kPrompt, seeded(5, 7));
  EXPECT_EQ(wide(r.ids), (std::vector<std::int64_t>{111, 1, 80}));
  EXPECT_EQ(r.finish_reason, FinishReason::kStop);
  auto plain = decoder_model();
  GenerationOptions o = seeded(5, 7);
  o.stop = {" 80"};
  const auto s = plain->generate(kPrompt, o);
  EXPECT_EQ(s.text, "111 1");
  EXPECT_EQ(s.finish_reason, FinishReason::kStop);
}

// The workflow's EOS in the last trip its budget allows is still an EOS ending: its termination
// predicate's table names the token (termination.h), whatever the budget.
TEST(WorkflowModel, EosInTheLastAllowedTripFinishesWithStop) {
  auto model = decoder_model({"eos_ids=[[80]]"});
  const auto last = model->generate(kPrompt, seeded(3, 7));
  EXPECT_EQ(wide(last.ids), (std::vector<std::int64_t>{111, 1, 80}));
  EXPECT_EQ(last.finish_reason, FinishReason::kStop) << "80 is the workflow's EOS, sampled in trip 3 of 3";
  const auto before = model->generate(kPrompt, seeded(2, 7));
  EXPECT_EQ(wide(before.ids), (std::vector<std::int64_t>{111, 1}));
  EXPECT_EQ(before.finish_reason, FinishReason::kLength) << "the budget ended it one trip before its EOS";
  GenerationOptions ignoring = seeded(3, 7);
  ignoring.ignore_eos = true;
  const auto ignored = model->generate(kPrompt, ignoring);
  EXPECT_EQ(ignored.finish_reason, FinishReason::kLength) << "ignore_eos: the loop ran every trip it was given";
  auto other_table = decoder_model({"eos_ids=[[49]]"});
  const auto no_eos = other_table->generate(kPrompt, seeded(3, 7));
  EXPECT_EQ(wide(no_eos.ids), (std::vector<std::int64_t>{111, 1, 80}));
  EXPECT_EQ(no_eos.finish_reason, FinishReason::kLength) << "80 is not in this table";
}

TEST(WorkflowModel, RefusesWhatItsGraphsCannotDo) {
  auto model = decoder_model();
  GenerationOptions o = seeded(3, 7);
  o.logprobs = 1;
  try {
    model->generate(kPrompt, o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("logprobs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("exposes no logits"), std::string::npos) << e.what();
  }
  EXPECT_THROW(decoder_model({"nope=[1]"}), Error);
}

TEST(WorkflowEngine, ConcurrentRequestsEqualSoloOnes) {
  auto model = decoder_model();
  std::vector<std::vector<std::int32_t>> solo;
  for (std::uint64_t seed = 0; seed < 4; ++seed) solo.push_back(model->generate(kPrompt, seeded(6, seed)).ids);
  Engine engine(model);
  std::vector<std::shared_ptr<GenerationHandle>> handles;
  std::vector<std::string> streamed(4);
  for (std::uint64_t seed = 0; seed < 4; ++seed)
    handles.push_back(engine.submit(kPrompt, seeded(6, seed), [&, seed](const StreamEvent& e) {
      streamed[seed] += e.text;
      return true;
    }));
  for (std::size_t i = 0; i < handles.size(); ++i) {
    const auto r = handles[i]->wait();
    EXPECT_EQ(r.ids, solo[i]) << "seed " << i;
    EXPECT_EQ(streamed[i], r.text);
  }
  EXPECT_GE(engine.stats().max_batch, 2) << "the requests progressed together";
  // n choices: choice i uses seed + i.
  auto choices = engine.submit_n(kPrompt, seeded(6, 1), 3);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(choices[static_cast<std::size_t>(i)]->wait().ids, solo[static_cast<std::size_t>(i + 1)]);
}

TEST(WorkflowEngine, AFailingRunEndsOnlyItsRequest) {
  // package.max_context bounds the decoder cache (8192 by default; it starts at prompt +
  // max_new_tokens positions and grows one per trip): 10 positions fit 3 ids after a 2-token
  // prompt; 9 ids fail at their first trip with the recurrence check naming the cell.
  auto model = decoder_model({"package.max_context=[10]"});
  Engine engine(model);
  auto ok = engine.submit(kPrompt, seeded(3, 7));
  auto bad = engine.submit(kPrompt, seeded(9, 7));
  auto ok2 = engine.submit(std::vector<std::int32_t>{6}, seeded(3, 1));
  EXPECT_EQ(wide(ok->wait().ids), interpreted({4, 5}, 3, 7, true));
  try {
    bad->wait();
    FAIL() << "the long request should fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("over its max 10"), std::string::npos) << e.what();
  }
  EXPECT_EQ(wide(ok2->wait().ids), interpreted({6}, 3, 1, true));
}

// Through ogai::Engine (the server's path): a long streamed reply whose every event carries only
// its own id's text (the stream never re-sends earlier text: O(new text) per chunk), and the
// ways a looped workflow ends: its budget (length), the package's EOS id (eos, "stop" on the
// server), the workflow's own EOS table (stop), a stop string (stop).
TEST(WorkflowEngine, LongStreamsSendOnlyNewTextAndFinishReasonsAreRight) {
  auto model = decoder_model();
  Engine engine(model);
  const int n = 300;
  GenerationOptions long_reply;  // greedy: this prompt never reaches the workflow's EOS (127)
  long_reply.max_new_tokens = n;
  std::vector<std::string> events;
  auto h = engine.submit(kPrompt, long_reply, [&](const StreamEvent& e) {
    events.emplace_back(e.text);
    return true;
  });
  const auto r = h->wait();
  ASSERT_EQ(r.ids.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(r.finish_reason, FinishReason::kLength);
  std::string joined;
  std::size_t longest = 0;
  for (const auto& t : events) joined += t, longest = std::max(longest, t.size());
  EXPECT_EQ(joined, r.text);
  EXPECT_LE(longest, std::string(" 2147483647").size()) << "an event carried more than one id's text";
  EXPECT_EQ(events.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(wide(r.ids), interpreted({4, 5}, n, std::nullopt, false));
  // The package's EOS id (2, its tokenizer's) ends the seed-7 reply after 47 ids, long before its
  // budget: ogai's stop rule (the server says "stop"); the interpreter alone runs on past it.
  const auto on_eos = engine.submit(kPrompt, seeded(n, 7))->wait();
  ASSERT_EQ(on_eos.ids.size(), 47u);
  EXPECT_EQ(on_eos.ids.back(), 2);
  EXPECT_EQ(on_eos.finish_reason, FinishReason::kEos);
  const auto alone = interpreted({4, 5}, n, 7, true);
  EXPECT_EQ(wide(on_eos.ids), std::vector<std::int64_t>(alone.begin(), alone.begin() + 47));
  auto eos_model = decoder_model({"eos_ids=[[80]]"});
  Engine eos_engine(eos_model);
  const auto e = eos_engine.submit(kPrompt, seeded(5, 7))->wait();
  EXPECT_EQ(wide(e.ids), (std::vector<std::int64_t>{111, 1, 80}));
  EXPECT_EQ(e.finish_reason, FinishReason::kStop) << "the workflow ended on its EOS before its budget";
  GenerationOptions o = seeded(5, 7);
  o.stop = {" 80"};
  const auto s = engine.submit(kPrompt, o)->wait();
  EXPECT_EQ(s.text, "111 1");
  EXPECT_EQ(s.finish_reason, FinishReason::kStop);
}

TEST(WorkflowEngine, CancelEndsTheRequest) {
  auto model = decoder_model();
  Engine engine(model);
  auto h = engine.submit(kPrompt, seeded(2000, 7), [](const StreamEvent&) { return false; });
  const auto r = h->wait();
  EXPECT_EQ(r.finish_reason, FinishReason::kCancelled);
  EXPECT_EQ(r.ids.size(), 1u);
}

}  // namespace
}  // namespace ogai::workflow::testing
