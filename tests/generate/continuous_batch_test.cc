// Continuous batching (generate::Engine, ogai::Engine): every row of a batch equals the same
// request run alone (Model::generate), for stories260k and every fixture family, with rows that
// join and leave at different steps, different prompt lengths, seeded sampling, logprobs,
// cancellation in the middle of a row and prefix-cache hits and misses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "generate/engine.h"
#include "generate/model_impl.h"
#include "generate/package_config.h"
#include "generate/sequence_factory.h"
#include "generate/speculation_gate.h"
#include "metadata/package.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

fs::path package_path(const std::string& name) {
  if (name == "stories260k") return fs::path(OGAI_BINARY_DIR) / "packages" / name;
  return fs::path(OGAI_SOURCE_DIR) / "tests/data/packages" / name;
}

std::shared_ptr<const Model> load(const std::string& name) {
  static std::map<std::string, std::shared_ptr<const Model>> models;
  auto& m = models[name];
  if (!m) m = Model::load(package_path(name));
  return m;
}

// One request of a schedule: joins the engine before step `join`, cancelled before step `cancel`.
struct Job {
  std::string prompt;
  GenerationOptions options;
  int join = 0;
  int cancel = -1;
  std::vector<std::int32_t> ids = {};  // the prompt as token ids instead of `prompt`, when set
};

GenerationOptions greedy(int n) {
  GenerationOptions o;
  o.max_new_tokens = n;
  o.logprobs = 3;
  return o;
}

GenerationOptions sampled(int n, std::uint64_t seed) {
  GenerationOptions o = greedy(n);
  o.sampling.temperature = 0.9f;
  o.sampling.top_p = 0.9f;
  o.sampling.top_k = 40;
  o.sampling.seed = seed;
  return o;
}

struct Outcome {
  std::vector<GenerationResult> results;
  generate::EngineCounters counters;
};

// Limits under which a step prefills every waiting prompt whole (the schedules below are in steps).
generate::EngineLimits whole_prompt_limits(int max_rows = generate::EngineLimits().max_rows) {
  generate::EngineLimits limits;
  limits.max_rows = max_rows;
  limits.step_tokens = std::numeric_limits<std::size_t>::max();
  return limits;
}

Outcome run_schedule(const Model& model, const std::vector<Job>& jobs, generate::PrefixCache* prefix = nullptr,
                     int max_rows = 8, const generate::SequenceModel* on = nullptr, int sampling_threads = 0) {
  const generate::SequenceModel sm = on ? *on : model.impl().sequence_model();
  generate::EngineLimits limits = whole_prompt_limits(max_rows);
  limits.sampling_threads = sampling_threads;
  generate::Engine engine(sm, limits, prefix);
  std::vector<std::shared_ptr<generate::LiveSequence>> sequences(jobs.size());
  std::size_t added = 0;
  for (int step = 0; added < jobs.size() || !engine.idle(); ++step) {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].join == step) {
        auto ids = jobs[i].ids.empty() ? model.tokenize(jobs[i].prompt) : jobs[i].ids;
        auto request = generate::resolve_request(jobs[i].options, model.impl().config.generation,
                                                 static_cast<std::int64_t>(ids.size()));
        sequences[i] =
            generate::make_sequence({sm, request, ids, {}, model.impl().speculation(jobs[i].options.speculative)});
        engine.add(sequences[i]);
        ++added;
      }
      if (jobs[i].cancel == step && sequences[i]) sequences[i]->cancel();
    }
    engine.step();
    EXPECT_LT(step, 10000) << "the engine did not finish";
    if (step >= 10000) break;
  }
  Outcome out;
  for (auto& s : sequences) {
    EXPECT_FALSE(s->error());
    out.results.push_back(std::move(s->result()));
  }
  out.counters = engine.counters();
  return out;
}

void expect_same(const GenerationResult& batched, const GenerationResult& solo, const std::string& what) {
  EXPECT_EQ(batched.prompt_ids, solo.prompt_ids) << what;
  EXPECT_EQ(batched.ids, solo.ids) << what;
  EXPECT_EQ(batched.text, solo.text) << what;
  EXPECT_EQ(batched.finish_reason, solo.finish_reason) << what;
  ASSERT_EQ(batched.logprobs.size(), solo.logprobs.size()) << what;
  for (std::size_t i = 0; i < solo.logprobs.size(); ++i) {
    EXPECT_NEAR(batched.logprobs[i].logprob, solo.logprobs[i].logprob, 5e-4) << what << " token " << i;
    ASSERT_EQ(batched.logprobs[i].top.size(), solo.logprobs[i].top.size());
    for (std::size_t k = 0; k < solo.logprobs[i].top.size(); ++k)
      EXPECT_NEAR(batched.logprobs[i].top[k].logprob, solo.logprobs[i].top[k].logprob, 5e-4) << what;
  }
}

class ContinuousBatchTest : public ::testing::TestWithParam<std::string> {};

// Rows of different prompt lengths join at steps 0, 0, 3 and 5 and leave at different steps
// (different max_new_tokens, one seeded sampler among them).
TEST_P(ContinuousBatchTest, RowsEqualSoloRuns) {
  auto model = load(GetParam());
  const std::vector<Job> jobs = {
      {"Once upon a time", greedy(14), 0},
      {"the cat sat on the mat and the dog", greedy(9), 0},
      {"a", sampled(12, 7), 3},
      {"she said that it was a very long day in the park", sampled(6, 99), 5},
  };
  Outcome out = run_schedule(*model, jobs);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    expect_same(out.results[i], model->generate(jobs[i].prompt, jobs[i].options),
                GetParam() + " job " + std::to_string(i));
  EXPECT_GE(out.counters.max_batch, 3) << "rows were not decoded together";
  EXPECT_LT(out.counters.steps, 14u + 5u + 6u) << "fewer decode runs than one request after another";
}

// The rows of a step sampled on four threads give exactly what one thread gives (tokens, text,
// finish, logprobs bit for bit): sampled rows, a grammar-constrained row, a row cancelled mid-way.
TEST_P(ContinuousBatchTest, ParallelSamplingEqualsSerial) {
  auto model = load(GetParam());
  GenerationOptions json = sampled(10, 5);
  json.response_format = ResponseFormat{ResponseFormat::Kind::kJsonObject, ""};
  std::vector<Job> jobs = {
      {"Once upon a time", sampled(12, 1), 0},   {"the cat sat", sampled(9, 2), 0},
      {"a", sampled(12, 3), 1},                  {"she said that", greedy(8), 1},
      {"the dog ran", json, 0},                  {"in the park", sampled(14, 4), 0, 4},
  };
  const Outcome serial = run_schedule(*model, jobs, nullptr, 8, nullptr, 1);
  const Outcome parallel = run_schedule(*model, jobs, nullptr, 8, nullptr, 4);
  ASSERT_EQ(serial.results.size(), parallel.results.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string what = GetParam() + " job " + std::to_string(i);
    EXPECT_EQ(parallel.results[i].ids, serial.results[i].ids) << what;
    EXPECT_EQ(parallel.results[i].text, serial.results[i].text) << what;
    EXPECT_EQ(parallel.results[i].finish_reason, serial.results[i].finish_reason) << what;
    ASSERT_EQ(parallel.results[i].logprobs.size(), serial.results[i].logprobs.size()) << what;
    for (std::size_t t = 0; t < serial.results[i].logprobs.size(); ++t)
      EXPECT_EQ(parallel.results[i].logprobs[t].logprob, serial.results[i].logprobs[t].logprob) << what;
  }
  EXPECT_EQ(parallel.results[5].finish_reason, FinishReason::kCancelled);
  EXPECT_GE(parallel.counters.max_batch, 5) << "rows were not decoded together";
}

// A row cancelled mid-generation ends with kCancelled holding a prefix of its solo tokens; the
// other rows are unaffected.
TEST_P(ContinuousBatchTest, CancelInTheMiddleOfARow) {
  auto model = load(GetParam());
  const std::vector<Job> jobs = {
      {"Once upon a time", greedy(16), 0},
      {"the cat sat on the mat", greedy(16), 0, 5},
      {"a dog", greedy(10), 2},
  };
  Outcome out = run_schedule(*model, jobs);
  const auto solo1 = model->generate(jobs[1].prompt, jobs[1].options);
  EXPECT_EQ(out.results[1].finish_reason, FinishReason::kCancelled);
  ASSERT_LT(out.results[1].ids.size(), solo1.ids.size());
  EXPECT_TRUE(std::equal(out.results[1].ids.begin(), out.results[1].ids.end(), solo1.ids.begin()));
  expect_same(out.results[0], model->generate(jobs[0].prompt, jobs[0].options), "job 0");
  expect_same(out.results[2], model->generate(jobs[2].prompt, jobs[2].options), "job 2");
}

// A prompt that extends a finished request (a chat turn re-sent whole) reuses its KV; output
// with the hit equals output without the cache.
TEST_P(ContinuousBatchTest, PrefixCacheHitEqualsMiss) {
  auto model = load(GetParam());
  generate::PrefixCache prefix(64u << 20);
  const std::string first = "the cat sat on the mat";
  auto turn1 = run_schedule(*model, {{first, greedy(8), 0}}, &prefix).results[0];
  const std::string second = first + turn1.text + " and then";
  auto turn2 = run_schedule(*model, {{second, greedy(8), 0}, {"a", greedy(5), 0}}, &prefix).results;
  expect_same(turn2[0], model->generate(second, greedy(8)), "turn 2");
  expect_same(turn2[1], model->generate("a", greedy(5)), "unrelated");
  const auto stats = prefix.stats();
  if (GetParam() == "tiny-recurrent") {
    // Its groups say reuse.prefix_reusable: false: the cache is neither filled nor consulted.
    EXPECT_EQ(turn2[0].cached_prompt_tokens, 0);
    EXPECT_EQ(stats.hits + stats.misses + stats.entries, 0u);
    return;
  }
  EXPECT_GT(turn2[0].cached_prompt_tokens, 0);
  EXPECT_GE(stats.hits, 1u);
  EXPECT_GE(stats.misses, 1u);
}

// tiny-recurrent with every group marked reuse.prefix_reusable: true (a copy of the package):
// recurrent state is reused only at the cached entry's exact length, so a turn that re-sends the
// whole previous conversation hits with all of it, and the output equals a run without the cache.
TEST(ContinuousBatchPrefixCache, ReusableRecurrentStateHitsAtItsExactLength) {
  const fs::path source = package_path("tiny-recurrent");
  const fs::path copy = fs::path(OGAI_BINARY_DIR) / "test_tmp" / "tiny-recurrent-reusable";
  fs::remove_all(copy);
  fs::create_directories(copy);
  for (const auto& entry : fs::directory_iterator(source))
    fs::copy(entry.path(), copy / entry.path().filename(), fs::copy_options::recursive);
  std::string yaml;
  {
    std::ifstream in(source / "inference_metadata.yaml");
    std::string line;
    while (std::getline(in, line)) {
      const auto at = line.find("prefix_reusable: false");
      if (at != std::string::npos) line.replace(at, 22, "prefix_reusable: true");
      yaml += line + "\n";
      const auto replace = line.find("update: {kind: replace}");
      if (replace != std::string::npos)
        yaml += std::string(replace, ' ') + "reuse: {prefix_reusable: true, evictable_prefix: false}\n";
    }
  }
  fs::remove(copy / "inference_metadata.yaml");
  std::ofstream(copy / "inference_metadata.yaml") << yaml;
  auto model = Model::load(copy);
  generate::PrefixCache prefix(64u << 20);
  const std::string first = "the cat sat on the mat";
  auto turn1 = run_schedule(*model, {{first, greedy(8), 0}}, &prefix).results[0];
  ASSERT_EQ(prefix.stats().entries, 1u);
  std::vector<std::int32_t> held = turn1.prompt_ids;  // the finished state: every token but the last
  held.insert(held.end(), turn1.ids.begin(), turn1.ids.end() - 1);
  std::vector<std::int32_t> second = held;  // the conversation re-sent whole, then a new turn
  second.push_back(turn1.ids.back());
  for (std::int32_t id : model->tokenize(" and then")) second.push_back(id);
  auto turn2 = run_schedule(*model, {{"", greedy(8), 0, -1, second}}, &prefix).results[0];
  expect_same(turn2, model->generate(std::span<const std::int32_t>(second), greedy(8)), "turn 2");
  EXPECT_EQ(turn2.cached_prompt_tokens, static_cast<std::int64_t>(held.size()));
  // A prompt that shares only part of the entry cannot rewind the recurrent state: a miss.
  auto partial = run_schedule(*model, {{"the cat sat on a rug", greedy(4), 0}}, &prefix).results[0];
  expect_same(partial, model->generate("the cat sat on a rug", greedy(4)), "partial");
  EXPECT_EQ(partial.cached_prompt_tokens, 0);
  EXPECT_EQ(prefix.stats().hits, 1u);
}

// A prefix cache too small for every finished state evicts the least recently used ones; results
// stay those of solo runs, hit or miss.
TEST(ContinuousBatchPrefixCache, EvictionUnderASmallBoundKeepsResultsCorrect) {
  auto model = load("stories260k");
  const std::vector<std::string> prompts = {"Once upon a time", "Lily", "The little dog", "One day", "She was"};
  // Room for about two finished 20-token states of stories260k (5 layers x 2 x 4 heads x 8 x 4 bytes a position).
  generate::PrefixCache prefix(2 * 20 * 5 * 2 * 4 * 8 * 4 + 1024);
  for (int round = 0; round < 2; ++round)
    for (const auto& p : prompts) {
      auto r = run_schedule(*model, {{p + " and", greedy(12), 0}}, &prefix).results[0];
      expect_same(r, model->generate(p + " and", greedy(12)), p);
    }
  const auto stats = prefix.stats();
  EXPECT_GT(stats.evictions, 0u);
  EXPECT_LE(stats.bytes, prefix.max_bytes());
  EXPECT_LE(stats.entries, 3u);
}

// Shared-buffer storage (past and present one buffer, GroupQueryAttention writing in place): rows
// of different lengths in one buffer of row capacity x capacity, rows leaving (the last moves into
// the hole) and joining (the buffers grow): each equals the same storage run alone.
TEST(ContinuousBatchSharedBuffer, RowsEqualSoloRuns) {
  for (const char* name : {"tiny-e2b", "tiny-moe"}) {
    auto model = load(name);
    auto config = generate::make_package_config(metadata::load_package(package_path(name)));
    config.decoder.cache.mode = kv::StorageMode::kSharedBuffer;
    generate::Decoder decoder(config.decoder, {});
    const generate::SequenceModel shared{decoder, &*model->impl().tokenizer};
    const std::vector<Job> jobs = {
        {"Once upon a time", greedy(14), 0},
        {"the cat sat on the mat and the dog", greedy(5), 0},
        {"a", sampled(12, 7), 2},
        {"she said that it was a very long day in the park", greedy(9), 4},
        {"it", greedy(3), 6},
    };
    Outcome out = run_schedule(*model, jobs, nullptr, 8, &shared);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      auto ids = model->tokenize(jobs[i].prompt);
      auto request = generate::resolve_request(jobs[i].options, model->impl().config.generation,
                                               static_cast<std::int64_t>(ids.size()));
      generate::SequenceState state(decoder);
      expect_same(out.results[i], generate::generate_sequence(shared, request, ids, state, {}, {}),
                  std::string(name) + " shared job " + std::to_string(i));
    }
    EXPECT_GE(out.counters.max_batch, 3);
  }
}

// The KV budget admits a sequence only while the reservations of the admitted ones plus its own
// fit (generate/kv_reservation.h); each goes back when its sequence finishes, done or cancelled,
// so every request runs, one at a time under a budget that holds one, and equals its solo run.
TEST(ContinuousBatchKvBudget, AdmitsWhatFitsAndReleasesOnFinish) {
  auto model = load("stories260k");
  const generate::SequenceModel sm = model->impl().sequence_model();
  generate::Engine engine(sm, generate::EngineLimits{});
  engine.set_kv_budget(engine.bytes_per_position() * 40);  // one sequence of <= 30 positions, not two
  const std::vector<std::string> prompts = {"Once upon a time", "the cat sat", "a dog", "Lily and"};
  std::vector<std::shared_ptr<generate::LiveSequence>> sequences;
  for (const auto& prompt : prompts) {
    auto ids = model->tokenize(prompt);
    auto request =
        generate::resolve_request(greedy(20), model->impl().config.generation, static_cast<std::int64_t>(ids.size()));
    sequences.push_back(generate::make_sequence({sm, request, ids}));
    engine.add(sequences.back());
  }
  sequences[1]->cancel();  // cancelled while waiting: never admitted, nothing to give back
  int step = 0;
  for (; !engine.idle() && step < 1000; ++step) {
    EXPECT_LE(engine.decoding() + engine.prefilling(), 1) << "step " << step;
    if (step == 3) sequences[0]->cancel();  // cancelled while decoding: its reservation goes back
    engine.step();
  }
  ASSERT_LT(step, 1000) << "a reservation was not given back: the engine stalled";
  EXPECT_EQ(sequences[0]->result().finish_reason, FinishReason::kCancelled);
  EXPECT_EQ(sequences[1]->result().finish_reason, FinishReason::kCancelled);
  for (std::size_t i = 2; i < prompts.size(); ++i)
    expect_same(sequences[i]->result(), model->generate(prompts[i], greedy(20)), prompts[i]);
  EXPECT_EQ(engine.counters().max_batch, 1);
}

// Speculative rows in the engine alongside plain rows: package x drafter.
struct SpeculativeCase {
  std::string package;
  SpeculativeOptions::Drafter drafter;
};

GenerationOptions speculative(GenerationOptions o, SpeculativeOptions::Drafter drafter, int k = 3) {
  o.speculative.drafter = drafter;
  o.speculative.max_draft_tokens = k;
  return o;
}

void PrintTo(const SpeculativeCase& c, std::ostream* os) {
  *os << c.package << (c.drafter == SpeculativeOptions::Drafter::kNgram ? " ngram" : " assistant");
}

class SpeculativeEngineTest : public ::testing::TestWithParam<SpeculativeCase> {};

// Where speculative rows verify in the shared run (stories260k), the engine trims greedy rows'
// proposals to the width that pays for the whole batch (speculation_width.h): their tokens equal
// the solo run's, their draft counts need not. Sampled rows are never trimmed, and rows verifying
// on their own state draft exactly as alone.
bool batch_verified(const std::string& package) { return package == "stories260k"; }

void expect_same_speculative(const GenerationResult& engine, const GenerationResult& solo, const std::string& what,
                             bool counts = true) {
  expect_same(engine, solo, what);
  EXPECT_LE(engine.accepted_draft_tokens, engine.draft_tokens) << what;
  if (!counts) return;
  EXPECT_EQ(engine.draft_tokens, solo.draft_tokens) << what;
  EXPECT_EQ(engine.accepted_draft_tokens, solo.accepted_draft_tokens) << what;
}

bool compare_counts(const std::string& package, const GenerationOptions& o) {
  return !batch_verified(package) || o.sampling.seed.has_value();
}

// Speculative rows (greedy and seeded) and plain rows join at steps 0, 0, 1, 3 and 6 and leave at
// different steps; each equals the same request run alone, greedy speculative rows also equal plain
// greedy, and the plain rows still decode together in the batched run. The seeded speculative row's
// prompt repeats "Once upon a time", so that it proposes from its first step; its proposals are
// verified whatever they cost (a sampled row's are never trimmed), which widens the shared run.
TEST_P(SpeculativeEngineTest, RowsEqualSoloRuns) {
  auto model = load(GetParam().package);
  const auto d = GetParam().drafter;
  const std::vector<Job> jobs = {
      {"Once upon a time", speculative(greedy(20), d), 0},
      {"the cat sat on the mat and the dog", greedy(12), 0},
      {"Once upon a time, there was a girl. Once upon a time", speculative(sampled(15, 7), d, 2), 1},
      {"she said that it was a very long day in the park", sampled(8, 99), 1},
      {"the cat sat on the mat and the cat sat", speculative(greedy(9), d, 4), 3},
      {"it", greedy(5), 6},
  };
  Outcome out = run_schedule(*model, jobs);
  int drafted = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string what = GetParam().package + " job " + std::to_string(i);
    expect_same_speculative(out.results[i], model->generate(jobs[i].prompt, jobs[i].options), what,
                            compare_counts(GetParam().package, jobs[i].options));
    if (jobs[i].options.speculative.drafter == SpeculativeOptions::Drafter::kNone) continue;
    drafted += out.results[i].draft_tokens;
    if (d == SpeculativeOptions::Drafter::kAssistant) {
      EXPECT_GT(out.results[i].draft_tokens, 0) << what;
    }
    if (jobs[i].options.sampling.seed) continue;
    GenerationOptions plain = jobs[i].options;
    plain.speculative = {};
    const GenerationResult alone = model->generate(jobs[i].prompt, plain);
    if (GetParam().package.ends_with("fp16")) {  // float16: a K+1-token step's logprobs differ by ~1e-2
      EXPECT_EQ(out.results[i].ids, alone.ids) << what << " vs plain";
      EXPECT_EQ(out.results[i].text, alone.text) << what << " vs plain";
      continue;
    }
    expect_same(out.results[i], alone, what + " vs plain");
  }
  EXPECT_GT(drafted, 0) << "no row decoded speculatively";  // prompt lookup may find nothing for one row
  EXPECT_GT(out.counters.speculative_runs, 0u);
  EXPECT_GE(out.counters.max_batch, 2) << "plain rows were not decoded together";
}

// A speculative row cancelled mid-generation ends with kCancelled holding a prefix of its solo
// tokens; the speculative and plain rows around it are unaffected.
TEST_P(SpeculativeEngineTest, CancelInTheMiddleOfASpeculativeRow) {
  auto model = load(GetParam().package);
  const auto d = GetParam().drafter;
  GenerationOptions long_run = speculative(greedy(60), d);
  long_run.ignore_eos = true;
  const std::vector<Job> jobs = {
      {"Once upon a time", speculative(greedy(16), d), 0},
      {"the cat sat on the mat", long_run, 0, 4},
      {"a dog", greedy(10), 2},
  };
  Outcome out = run_schedule(*model, jobs);
  const auto solo1 = model->generate(jobs[1].prompt, jobs[1].options);
  EXPECT_EQ(out.results[1].finish_reason, FinishReason::kCancelled);
  ASSERT_LT(out.results[1].ids.size(), solo1.ids.size());
  EXPECT_TRUE(std::equal(out.results[1].ids.begin(), out.results[1].ids.end(), solo1.ids.begin()));
  expect_same_speculative(out.results[0], model->generate(jobs[0].prompt, jobs[0].options), "job 0",
                          compare_counts(GetParam().package, jobs[0].options));
  expect_same(out.results[2], model->generate(jobs[2].prompt, jobs[2].options), "job 2");
}

// generate_batch with speculative options: every row equals its solo speculative run.
TEST_P(SpeculativeEngineTest, BatchEqualsSolo) {
  auto model = load(GetParam().package);
  const GenerationOptions o = speculative(greedy(12), GetParam().drafter);
  const std::vector<std::string> prompts = {"Once upon a time", "the cat sat on the mat and the cat"};
  auto batch = model->generate_batch(prompts, o);
  for (std::size_t i = 0; i < prompts.size(); ++i)
    expect_same_speculative(batch[i], model->generate(prompts[i], o), prompts[i],
                            compare_counts(GetParam().package, o));
}

// A drafter that fails on its `fail_at`-th proposal.
class FailingDrafter : public generate::Drafter {
 public:
  explicit FailingDrafter(int fail_at) : fail_at_(fail_at) {}
  void propose(const generate::DraftRequest& request, std::vector<std::int32_t>& out) const override {
    if (++calls_ == fail_at_) throw Error(ErrorCode::kRuntime, "drafter", "injected failure");
    out.push_back(request.history.back());
  }

 private:
  int fail_at_;
  mutable int calls_ = 0;
};

// A speculative row whose drafter throws ends alone with that error; the plain and speculative
// rows beside it equal their solo runs.
TEST(SpeculativeEngineErrors, AFailingDrafterEndsOnlyItsRow) {
  auto model = load("stories260k");
  const generate::SequenceModel sm = model->impl().sequence_model();
  generate::Engine engine(sm, whole_prompt_limits());
  const GenerationOptions ngram = speculative(greedy(12), SpeculativeOptions::Drafter::kNgram);
  const std::vector<std::pair<std::string, GenerationOptions>> jobs = {
      {"Once upon a time", greedy(12)}, {"the cat sat on the mat", greedy(12)}, {"Lily and", ngram}};
  std::vector<std::shared_ptr<generate::LiveSequence>> sequences;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto ids = model->tokenize(jobs[i].first);
    auto request = generate::resolve_request(jobs[i].second, model->impl().config.generation,
                                             static_cast<std::int64_t>(ids.size()));
    generate::Speculation speculation;
    if (i == 1) speculation = {std::make_shared<FailingDrafter>(3), 2};
    if (i == 2) speculation = model->impl().speculation(ngram.speculative);
    sequences.push_back(generate::make_sequence({sm, request, ids, {}, speculation}));
    engine.add(sequences[i]);
  }
  for (int step = 0; !engine.idle() && step < 1000; ++step) engine.step();
  ASSERT_TRUE(sequences[1]->error());
  try {
    std::rethrow_exception(sequences[1]->error());
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "drafter");
  }
  EXPECT_FALSE(sequences[0]->error());
  EXPECT_FALSE(sequences[2]->error());
  expect_same(sequences[0]->result(), model->generate(jobs[0].first, jobs[0].second), "plain row");
  expect_same_speculative(sequences[2]->result(), model->generate(jobs[2].first, jobs[2].second), "ngram row",
                          compare_counts("stories260k", jobs[2].second));
}

// stories260k's speculative rows verify in the shared run (a left-padded append cache): three
// speculative rows and a plain one decode as one batch of four, joining and leaving at different
// steps, each equal to its solo run and (greedy) to plain decoding.
TEST(SpeculativeBatchedVerification, SpeculativeAndPlainRowsShareOneRun) {
  auto model = load("stories260k");
  const auto d = SpeculativeOptions::Drafter::kNgram;
  const std::vector<Job> jobs = {
      {"the cat sat on the mat and the cat sat on the mat", speculative(greedy(30), d, 4), 0},
      {"Once upon a time", speculative(greedy(18), d, 2), 0},
      {"the dog ran and the dog ran and the dog", speculative(sampled(14, 5), d, 3), 0},
      {"a little girl", greedy(25), 0},
      {"Lily and Tom and Lily and Tom", speculative(greedy(10), d, 4), 4},
  };
  Outcome out = run_schedule(*model, jobs);
  int drafted = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string what = "job " + std::to_string(i);
    expect_same_speculative(out.results[i], model->generate(jobs[i].prompt, jobs[i].options), what,
                            compare_counts("stories260k", jobs[i].options));
    drafted += out.results[i].draft_tokens;
    if (jobs[i].options.sampling.seed) continue;
    GenerationOptions plain = jobs[i].options;
    plain.speculative = {};
    expect_same(out.results[i], model->generate(jobs[i].prompt, plain), what + " vs plain");
  }
  EXPECT_GT(drafted, 0);
  EXPECT_GT(out.counters.speculative_runs, 0u);
  EXPECT_EQ(out.counters.max_batch, 5) << "the speculative rows did not verify in the shared run";
}

// A drafter whose proposals are never accepted (token 0, which stories260k does not generate).
class RejectedDrafter : public generate::Drafter {
 public:
  void propose(const generate::DraftRequest& request, std::vector<std::int32_t>& out) const override {
    out.insert(out.end(), static_cast<std::size_t>(request.max_tokens), 0);
  }
};

// The fall-back rules: a row whose proposals keep being rejected stops widening the shared run.
// A sampled row (never trimmed) proposes exactly what its gate allows (speculation_gate.h: pauses
// of kPauseSteps steps); a greedy row is also trimmed by the width rule (speculation_width.h) once
// its acceptance average is too low to pay, so it proposes at most that, and its tokens stay plain
// greedy's.
TEST(SpeculativeBatchedVerification, LowAcceptanceFallsBackToPlainDecoding) {
  auto model = load("stories260k");
  const generate::SequenceModel sm = model->impl().sequence_model();
  generate::Engine engine(sm, whole_prompt_limits());
  const int k = 3, n = 60;
  GenerationOptions greedy_options = greedy(n);
  greedy_options.ignore_eos = true;
  GenerationOptions sampled_options = sampled(n, 11);
  sampled_options.ignore_eos = true;
  sampled_options.sampling.top_k = 1;  // one candidate: proposal 0 is rejected with certainty
  const std::vector<std::pair<std::string, GenerationOptions>> jobs = {
      {"Once upon a time", greedy_options}, {"the cat sat on the mat", sampled_options}, {"a dog", greedy(20)}};
  std::vector<std::shared_ptr<generate::LiveSequence>> sequences;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto ids = model->tokenize(jobs[i].first);
    auto request = generate::resolve_request(jobs[i].second, model->impl().config.generation,
                                             static_cast<std::int64_t>(ids.size()));
    generate::Speculation speculation;
    if (i < 2) speculation = {std::make_shared<RejectedDrafter>(), k};
    sequences.push_back(generate::make_sequence({sm, request, ids, {}, speculation}));
    engine.add(sequences[i]);
  }
  for (int step = 0; !engine.idle() && step < 1000; ++step) engine.step();
  // What the gate allows: each step after the first token proposes min(k, tokens left - 1) while open.
  generate::SpeculationGate gate;
  int allowed = 0;
  for (int generated = 1; generated < n; ++generated) {
    const int budget = std::min(k, n - generated - 1);
    if (budget <= 0 || !gate.drafting()) continue;
    allowed += budget;
    gate.record(budget, 0);
  }
  for (std::size_t i = 0; i < 2; ++i) {
    const GenerationResult& r = sequences[i]->result();
    ASSERT_FALSE(sequences[i]->error());
    ASSERT_EQ(r.accepted_draft_tokens, 0);
    GenerationOptions plain = jobs[i].second;
    const auto alone = model->generate(jobs[i].first, plain);
    EXPECT_EQ(r.ids, alone.ids) << "row " << i;  // top_k 1: the sampled row is greedy too
    if (i == 1) {
      EXPECT_EQ(r.draft_tokens, allowed);
    }
    EXPECT_LE(r.draft_tokens, allowed) << "row " << i;
    EXPECT_LT(r.draft_tokens, k * (n - 2) / 2) << "row " << i << " kept drafting";
  }
  expect_same(sequences[2]->result(), model->generate(jobs[2].first, jobs[2].second), "plain row");
}

INSTANTIATE_TEST_SUITE_P(Drafters, SpeculativeEngineTest,
                         ::testing::Values(SpeculativeCase{"stories260k", SpeculativeOptions::Drafter::kNgram},
                                           SpeculativeCase{"tiny-recurrent", SpeculativeOptions::Drafter::kNgram},
                                           SpeculativeCase{"tiny-static", SpeculativeOptions::Drafter::kNgram},
                                           SpeculativeCase{"tiny-moe", SpeculativeOptions::Drafter::kNgram},
                                           SpeculativeCase{"tiny-e2b-fp16", SpeculativeOptions::Drafter::kNgram},
                                           SpeculativeCase{"tiny-e2b-speculative", SpeculativeOptions::Drafter::kNgram},
                                           SpeculativeCase{"tiny-e2b-speculative",
                                                           SpeculativeOptions::Drafter::kAssistant}),
                         [](const auto& info) {
                           std::string name =
                               info.param.package +
                               (info.param.drafter == SpeculativeOptions::Drafter::kNgram ? "_ngram" : "_assistant");
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

INSTANTIATE_TEST_SUITE_P(Packages, ContinuousBatchTest,
                         ::testing::Values("stories260k", "tiny-e2b", "tiny-e2b-fp16", "tiny-moe", "tiny-static",
                                           "tiny-recurrent", "tiny-e2b-speculative"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace ogai
