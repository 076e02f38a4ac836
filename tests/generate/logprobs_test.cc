// Token log-probabilities (GenerationOptions::logprobs) on real packages: every reported value
// equals an independent log-softmax of the raw logits from a cache-free recompute of the whole
// sequence; sampling and penalties do not change what is reported; batches, speculative decoding
// and streaming report the same entries; off costs nothing and reports nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <span>

#include "generate/decoder.h"
#include "generate/package_config.h"
#include "generate/token_logprobs.h"
#include "metadata/package.h"
#include "sampling/sampler.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kStories = fs::path(OGAI_BINARY_DIR) / "packages" / "stories260k";
const fs::path kTinyE2b = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b";

// Log-softmax of the raw logits after `sequence`, computed here in double from a fresh decoder
// step over the whole sequence (no KV cache, no sampler).
class Reference {
 public:
  explicit Reference(const fs::path& package)
      : decoder_(generate::make_package_config(metadata::load_package(package)).decoder, {}) {}

  std::vector<double> log_softmax(const std::vector<std::int32_t>& sequence) const {
    std::vector<TokenId> ids(sequence.begin(), sequence.end());
    kv::KvCache cache(decoder_.spec().cache, 1);
    generate::AttentionState attention(1);
    auto out = decoder_.step(ids, static_cast<std::int64_t>(ids.size()), {}, attention, cache);
    std::vector<float> scratch;
    auto row = out.row_logits(0, static_cast<std::int64_t>(ids.size()) - 1, scratch);
    double max = -INFINITY, sum = 0;
    for (float x : row) max = std::max(max, static_cast<double>(x));
    for (float x : row) sum += std::exp(x - max);
    std::vector<double> lp(row.size());
    for (std::size_t i = 0; i < row.size(); ++i) lp[i] = row[i] - max - std::log(sum);
    return lp;
  }

 private:
  generate::Decoder decoder_;
};

GenerationOptions with_logprobs(int n, int top) {
  GenerationOptions o;
  o.max_new_tokens = n;
  o.logprobs = top;
  return o;
}

// Every entry of `r` against the reference, and the invariants of an entry.
void expect_matches_reference(const Reference& ref, const GenerationResult& r, int top, double tolerance = 1e-4) {
  ASSERT_EQ(r.logprobs.size(), r.ids.size());
  std::vector<std::int32_t> sequence = r.prompt_ids;
  for (std::size_t i = 0; i < r.ids.size(); ++i) {
    SCOPED_TRACE("position " + std::to_string(i));
    const TokenLogprobs& e = r.logprobs[i];
    const std::vector<double> lp = ref.log_softmax(sequence);
    double mass = 0;
    for (double v : lp) mass += std::exp(v);
    EXPECT_NEAR(mass, 1.0, 1e-6);
    EXPECT_EQ(e.id, r.ids[i]);
    EXPECT_LE(e.logprob, 0.0f);
    EXPECT_NEAR(e.logprob, lp[static_cast<std::size_t>(e.id)], tolerance);
    ASSERT_EQ(e.top.size(), static_cast<std::size_t>(top));
    for (std::size_t k = 0; k < e.top.size(); ++k) {
      EXPECT_NEAR(e.top[k].logprob, lp[static_cast<std::size_t>(e.top[k].id)], tolerance);
      if (k > 0) {
        EXPECT_GE(e.top[k - 1].logprob, e.top[k].logprob);
      }
    }
    // No token outside the list is likelier than its last entry.
    if (top > 0) {
      std::size_t above = 0;
      for (double v : lp) above += v > e.top.back().logprob + tolerance;
      EXPECT_LT(above, static_cast<std::size_t>(top));
    }
    sequence.push_back(r.ids[i]);
  }
}

void expect_greedy_invariants(const fs::path& package, const char* prompt) {
  SCOPED_TRACE(package.string());
  auto model = Model::load(package);
  GenerationOptions o = with_logprobs(12, 5);
  o.ignore_eos = true;
  auto r = model->generate(prompt, o);
  ASSERT_EQ(r.logprobs.size(), 12u);
  for (const auto& e : r.logprobs) {
    ASSERT_FALSE(e.top.empty());
    EXPECT_EQ(e.id, e.top[0].id);  // greedy picks the most likely token
    EXPECT_EQ(e.logprob, e.top[0].logprob);
  }
  expect_matches_reference(Reference(package), r, 5);
  // Turning logprobs on changes nothing else.
  o.logprobs.reset();
  auto plain = model->generate(prompt, o);
  EXPECT_EQ(plain.ids, r.ids);
  EXPECT_TRUE(plain.logprobs.empty());
}

TEST(LogprobsTest, GreedyStoriesMatchesRawLogSoftmax) { expect_greedy_invariants(kStories, "Once upon a time"); }
TEST(LogprobsTest, GreedyTinyE2bMatchesRawLogSoftmax) { expect_greedy_invariants(kTinyE2b, "hello world"); }

// Float16 logits are converted into a scratch row; the raw values must survive the sampler there too.
TEST(LogprobsTest, Float16GraphReportsTheConvertedRow) {
  const fs::path package = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b-fp16";
  auto model = Model::load(package);
  GenerationOptions o = with_logprobs(8, 3);
  o.ignore_eos = true;
  o.sampling.logit_bias = {{7, 100.0f}};  // forces id 7, usually not the raw top
  auto r = model->generate("hello world", o);
  ASSERT_EQ(r.logprobs.size(), 8u);
  Reference ref(package);
  auto lp = ref.log_softmax(r.prompt_ids);  // the first position has no cache: the same row
  EXPECT_EQ(r.ids[0], 7);
  EXPECT_NEAR(r.logprobs[0].logprob, lp[7], 1e-4);
  EXPECT_NEAR(r.logprobs[0].top[0].logprob, *std::max_element(lp.begin(), lp.end()), 1e-4);
}

TEST(LogprobsTest, SamplingReportsRawLogitsAndIsReproducible) {
  auto model = Model::load(kStories);
  GenerationOptions o = with_logprobs(16, 3);
  o.sampling.temperature = 0.5f;
  o.sampling.seed = 7;
  auto a = model->generate("Lily", o);
  auto b = model->generate("Lily", o);
  EXPECT_EQ(a.ids, b.ids);
  ASSERT_EQ(a.logprobs.size(), b.logprobs.size());
  for (std::size_t i = 0; i < a.logprobs.size(); ++i) EXPECT_EQ(a.logprobs[i].logprob, b.logprobs[i].logprob);
  Reference ref(kStories);
  expect_matches_reference(ref, a, 3);
  // The processed distribution (temperature 0.5) differs from what is reported.
  double largest_gap = 0;
  std::vector<std::int32_t> sequence = a.prompt_ids;
  for (std::size_t i = 0; i < a.ids.size(); ++i) {
    auto lp = ref.log_softmax(sequence);
    double max = -INFINITY, sum = 0;
    for (double v : lp) max = std::max(max, v / 0.5);
    for (double v : lp) sum += std::exp(v / 0.5 - max);
    const double processed = lp[static_cast<std::size_t>(a.ids[i])] / 0.5 - max - std::log(sum);
    largest_gap = std::max(largest_gap, std::abs(processed - a.logprobs[i].logprob));
    sequence.push_back(a.ids[i]);
  }
  EXPECT_GT(largest_gap, 1e-2);
  // Same seed without logprobs: the same tokens.
  o.logprobs.reset();
  EXPECT_EQ(model->generate("Lily", o).ids, a.ids);
}

TEST(LogprobsTest, PenaltiesDoNotChangeTheReportedValues) {
  auto model = Model::load(kStories);
  GenerationOptions o = with_logprobs(20, 2);
  o.sampling.repetition_penalty = 1.8f;
  o.sampling.logit_bias = {{261, 100.0f}};  // "▁a" wins every step
  auto r = model->generate("Once upon a time", o);
  expect_matches_reference(Reference(kStories), r, 2);
  bool chose_below_top = false;
  for (const auto& e : r.logprobs) chose_below_top |= e.id != e.top[0].id;
  EXPECT_TRUE(chose_below_top) << "the penalties never changed the choice; the test shows nothing";
}

TEST(LogprobsTest, StreamEventsCarryTheResultEntries) {
  auto model = Model::load(kStories);
  std::vector<TokenLogprobs> seen;
  int closing = 0;
  GenerationOptions o = with_logprobs(10, 4);
  auto r = model->generate("Once upon a time", o, [&](const StreamEvent& e) {
    if (e.logprobs) {
      EXPECT_EQ(e.logprobs->id, e.token);
      seen.push_back(*e.logprobs);
    } else {
      ++closing;
    }
    return true;
  });
  ASSERT_EQ(seen.size(), r.logprobs.size());
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].id, r.logprobs[i].id);
    EXPECT_EQ(seen[i].logprob, r.logprobs[i].logprob);
  }
  EXPECT_LE(closing, 1);
  // Off: no entries anywhere.
  GenerationOptions plain;
  plain.max_new_tokens = 5;
  auto off = model->generate("Once upon a time", plain, [](const StreamEvent& e) {
    EXPECT_EQ(e.logprobs, nullptr);
    return true;
  });
  EXPECT_TRUE(off.logprobs.empty());
}

TEST(LogprobsTest, BatchRowsEqualEachAlone) {
  auto model = Model::load(kStories);
  GenerationOptions o = with_logprobs(8, 3);
  std::vector<std::string> prompts = {"Once upon a time", "The dog", "Lily and Ben went to the park"};
  auto rows = model->generate_batch(prompts, o);
  ASSERT_EQ(rows.size(), prompts.size());
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    auto alone = model->generate(prompts[i], o);
    ASSERT_EQ(rows[i].ids, alone.ids);
    ASSERT_EQ(rows[i].logprobs.size(), alone.logprobs.size());
    for (std::size_t k = 0; k < alone.logprobs.size(); ++k) {
      EXPECT_NEAR(rows[i].logprobs[k].logprob, alone.logprobs[k].logprob, 1e-4);
      ASSERT_EQ(rows[i].logprobs[k].top.size(), 3u);
      EXPECT_EQ(rows[i].logprobs[k].top[0].id, alone.logprobs[k].top[0].id);
    }
  }
}

TEST(LogprobsTest, SpeculativeReportsTheVerificationLogits) {
  auto model = Model::load(kStories);
  GenerationOptions o = with_logprobs(120, 2);
  const char* prompt = "Lily and Ben went to the park. Lily and Ben";
  auto plain = model->generate(prompt, o);
  o.speculative.drafter = SpeculativeOptions::Drafter::kNgram;
  auto spec = model->generate(prompt, o);
  ASSERT_EQ(spec.ids, plain.ids);
  EXPECT_GT(spec.accepted_draft_tokens, 0);
  ASSERT_EQ(spec.logprobs.size(), plain.logprobs.size());
  for (std::size_t i = 0; i < plain.logprobs.size(); ++i) {
    EXPECT_NEAR(spec.logprobs[i].logprob, plain.logprobs[i].logprob, 1e-4) << i;
    EXPECT_EQ(spec.logprobs[i].top[0].id, plain.logprobs[i].top[0].id) << i;
  }
}

TEST(LogprobsTest, OutOfRangeCountIsAClearError) {
  auto model = Model::load(kStories);
  for (int bad : {-1, 21}) {
    try {
      model->generate("Once", with_logprobs(2, bad));
      FAIL() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_EQ(e.where(), "logprobs");
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(model->generate("Once", with_logprobs(2, 20)).logprobs.at(0).top.size(), 20u);
}

TEST(LogprobsTest, ComputationRanksTiesByLowerIdAndIgnoresMinusInfinity) {
  const std::vector<float> logits = {1.0f, 3.0f, 3.0f, -INFINITY, 2.0f};
  auto e = generate::compute_token_logprobs(logits, 0, 5);
  const double lse = 3.0 + std::log(2.0 + std::exp(-1.0) + std::exp(-2.0));
  EXPECT_NEAR(e.logprob, 1.0 - lse, 1e-6);
  ASSERT_EQ(e.top.size(), 5u);
  std::vector<std::int32_t> order;
  for (const auto& t : e.top) order.push_back(t.id);
  EXPECT_EQ(order, (std::vector<std::int32_t>{1, 2, 4, 0, 3}));
  EXPECT_NEAR(e.top[0].logprob, 3.0 - lse, 1e-6);
  EXPECT_EQ(e.top[4].logprob, -INFINITY);
  EXPECT_TRUE(generate::compute_token_logprobs(logits, 2, 0).top.empty());
  // Large logits do not overflow.
  auto big = generate::compute_token_logprobs(std::vector<float>{1000.0f, 1000.0f}, 1, 1);
  EXPECT_NEAR(big.logprob, -std::log(2.0), 1e-6);
  EXPECT_EQ(big.top[0].id, 0);
}

// LogprobRecorder scans the row in one pass (copy, max, top-N); its entries equal the reference
// computation bit for bit, and the copy it hands the sampler equals the row, on rows with ties,
// -inf, a late maximum and lengths that are not multiples of its blocks.
TEST(LogprobsTest, RecorderEqualsTheReferenceComputation) {
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  for (std::size_t v : {1u, 7u, 64u, 100u, 1000u, 4161u}) {
    for (int shape = 0; shape < 4; ++shape) {
      std::vector<float> row(v);
      for (std::size_t i = 0; i < v; ++i) {
        const double u = next();
        row[i] = shape == 0 ? static_cast<float>(u * 8.0)                       // spread
                 : shape == 1 ? static_cast<float>(static_cast<int>(u * 4.0))  // many ties
                 : shape == 2 ? (u < 0.3 ? -INFINITY : static_cast<float>(u))  // -inf
                              : static_cast<float>(u) - 20.0f;                   // low, max at the end
      }
      if (shape == 3) row[v - 1] = 5.0f;
      for (int top : {0, 1, 5, 20}) {
        generate::LogprobRecorder recorder(top);
        std::vector<float> raw = row;
        std::span<float> copy = recorder.observe(raw);
        ASSERT_TRUE(std::equal(copy.begin(), copy.end(), row.begin(), row.end(),
                               [](float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }));
        const TokenId chosen = static_cast<TokenId>(v / 2);
        std::fill(copy.begin(), copy.end(), 0.0f);  // the sampler overwrites its copy
        const TokenLogprobs* got = recorder.entry(chosen);
        const TokenLogprobs want = generate::compute_token_logprobs(row, chosen, top);
        SCOPED_TRACE("v " + std::to_string(v) + " shape " + std::to_string(shape) + " top " + std::to_string(top));
        ASSERT_NE(got, nullptr);
        EXPECT_EQ(got->id, want.id);
        EXPECT_EQ(got->logprob, want.logprob);
        // And within float rounding of a log-softmax in double (the one-pass sum rescales).
        double max = -INFINITY, sum = 0;
        for (float x : row) max = std::max(max, static_cast<double>(x));
        for (float x : row) sum += std::exp(static_cast<double>(x) - max);
        const double exact = (row[static_cast<std::size_t>(chosen)] - max) - std::log(sum);
        if (std::isfinite(exact)) {
          EXPECT_NEAR(got->logprob, exact, 4e-7 * (1.0 + std::fabs(exact)));
        } else {
          EXPECT_EQ(got->logprob, -INFINITY);
        }
        ASSERT_EQ(got->top.size(), want.top.size());
        for (std::size_t k = 0; k < want.top.size(); ++k) {
          EXPECT_EQ(got->top[k].id, want.top[k].id);
          EXPECT_EQ(got->top[k].logprob, want.top[k].logprob);
        }
      }
    }
  }
}

TEST(LogprobsTest, TokenBytesAreTheTokensTextInContext) {
  auto model = Model::load(kStories);
  EXPECT_EQ(model->token_bytes(383), " there");  // "▁there", not at the start of a text
  EXPECT_EQ(model->token_bytes(13), "\n");       // <0x0A>
  EXPECT_EQ(model->token_bytes(229), "\xE2");    // <0xE2>: the exact byte, not U+FFFD
  EXPECT_EQ(model->token_bytes(100000), "");
  auto r = model->generate("Once upon a time", with_logprobs(30, 0));
  std::string joined;
  for (auto id : r.ids) joined += model->token_bytes(id);
  EXPECT_EQ(joined, r.text);
}

// The decode loop's cheaper form (live_sequence.cc): a sampler that leaves its row gets the raw
// row itself (no copy), and one whose dense weights are the raw row's softmax terms hands its sum
// over (no exponential pass of the recorder's own): the same ids, and logprobs within float
// rounding of the reference and of a log-softmax in double.
TEST(LogprobsTest, RecorderReusesTheSamplersRowAndSum) {
  for (std::size_t v : {100u, 4161u}) {
    std::vector<float> row(v);
    std::uint64_t state = 99 + v;
    for (float& x : row) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      x = static_cast<float>(static_cast<double>(state >> 11) * 0x1.0p-53 * 12.0);
    }
    row[3] = -INFINITY;
    for (double top_p : {1.0, 0.9}) {
      sampling::SamplingParams params;
      params.seed = 5;
      params.top_p = top_p;
      sampling::Sampler sampler(params, static_cast<std::int64_t>(v));
      ASSERT_TRUE(sampler.leaves_row());
      generate::LogprobRecorder recorder(5);
      std::vector<float> raw = row;
      std::span<float> given = recorder.observe(raw, sampler.leaves_row());
      EXPECT_EQ(given.data(), raw.data());  // no copy
      const TokenId chosen = sampler.sample(given);
      const auto sum = sampler.raw_softmax_sum();
      ASSERT_TRUE(sum.has_value());
      const TokenLogprobs got = *recorder.entry(chosen, sum);
      const TokenLogprobs want = generate::compute_token_logprobs(row, chosen, 5);
      double max = -INFINITY, total = 0;
      for (float x : row) max = std::max(max, static_cast<double>(x));
      for (float x : row) total += std::exp(static_cast<double>(x) - max);
      const double exact = (row[static_cast<std::size_t>(chosen)] - max) - std::log(total);
      EXPECT_EQ(got.id, chosen);
      EXPECT_NEAR(got.logprob, exact, 4e-7 * (1.0 + std::fabs(exact)));
      EXPECT_NEAR(got.logprob, want.logprob, 4e-7 * (1.0 + std::fabs(exact)));
      ASSERT_EQ(got.top.size(), want.top.size());
      for (std::size_t k = 0; k < want.top.size(); ++k) {
        EXPECT_EQ(got.top[k].id, want.top[k].id);
        EXPECT_NEAR(got.top[k].logprob, want.top[k].logprob, 4e-7 * (1.0 + std::fabs(want.top[k].logprob)));
      }
    }
  }
}

}  // namespace
}  // namespace ogai
