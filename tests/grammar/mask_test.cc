// Token masks: for random grammar states reached by random allowed tokens, the trie-walk mask
// equals a brute-force check of every token's bytes against the automaton, on real vocabularies
// (Llama-2 SentencePiece with byte fallback, GPT-2 byte level, stories260k), with masks computed
// and masks taken from the cache shared by a constraint's sequences. And the Sampler hook:
// greedy, sampled and distribution() only ever yield allowed tokens, end tokens only when complete.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "base/error.h"
#include "grammar/grammar_constraint.h"
#include "grammar/response_format.h"
#include "sampling/sampler.h"
#include "tokenizer/tokenizer.h"

namespace ogai::grammar {
namespace {

const std::string kShared = OGAI_SHARED_DIR;

std::shared_ptr<const Vocabulary> vocabulary(const std::string& dir) {
  static std::map<std::string, std::shared_ptr<const Vocabulary>> cache;
  auto& v = cache[dir];
  if (!v) v = Vocabulary::from_tokenizer(tokenizer::Tokenizer::load(kShared + dir));
  return v;
}

ResponseFormat schema_format(std::string text) { return {ResponseFormat::Kind::kJsonSchema, std::move(text), true}; }

const char* kPerson = R"({"type":"object","properties":{"name":{"type":"string","maxLength":12},
  "age":{"type":"integer","minimum":0,"maximum":150},"tags":{"type":"array","items":{"enum":["a","bc","d\"e"]},"maxItems":4},
  "born":{"type":"string","format":"date"},"score":{"type":"number"}},"required":["name","age"],"additionalProperties":false})";

std::vector<ResponseFormat> formats() {
  return {schema_format(kPerson),
          {ResponseFormat::Kind::kJsonObject, "", true},
          {ResponseFormat::Kind::kRegex, R"((\d{1,3}\.){3}\d{1,3}|[A-Z][a-z]+ [A-Z][a-z]+!)", true},
          {ResponseFormat::Kind::kGrammar, "root ::= \"<\" [a-z \\u00e9]* \">\" (\"\\n\" root)?", true}};
}

constexpr TokenId kEos = 2;

void check_random_states(const std::string& vocab_dir, std::uint32_t seed) {
  auto vocab = vocabulary(vocab_dir);
  std::mt19937 rng(seed);
  for (const ResponseFormat& f : formats()) {
    GrammarConstraint constraint(compile_response_format(f), vocab, {kEos});
    // Several sequences of one constraint: later ones take masks from the shared cache.
    for (int run = 0; run < 3; ++run) {
      auto state = constraint.start_state();
      for (int step = 0; step < 40 && !state->ended(); ++step) {
        const auto& words = state->allowed_text_tokens();
        std::vector<std::int64_t> allowed;
        for (std::size_t id = 0; id < vocab->size(); ++id) {
          const bool bit = (words[id >> 6] >> (id & 63)) & 1;
          const bool brute = static_cast<TokenId>(id) != kEos && state->allows_by_walk(static_cast<TokenId>(id));
          ASSERT_EQ(bit, brute) << vocab_dir << " format " << static_cast<int>(f.kind) << " step " << step << " id "
                                << id;
          if (bit) allowed.push_back(static_cast<std::int64_t>(id));
        }
        EXPECT_EQ(state->allows_by_walk(kEos), state->complete());
        if (state->complete() && (allowed.empty() || rng() % 4 == 0)) {
          state->accept(kEos);
          break;
        }
        ASSERT_FALSE(allowed.empty()) << "a dead end before completion";
        state->accept(allowed[rng() % allowed.size()]);
      }
    }
  }
}

TEST(Mask, EqualsBruteForceOnLlama2) { check_random_states("/tokenizers/llama2", 1); }
TEST(Mask, EqualsBruteForceOnGpt2) { check_random_states("/tokenizers/gpt2", 2); }
TEST(Mask, EqualsBruteForceOnStories260k) {
  for (std::uint32_t seed = 3; seed < 8; ++seed) check_random_states("/models/stories260k", seed);
}

// GPT-2's tokens plus tokens that reach every part of the plain-run split (plain_runs.h): plain
// runs of 0 to 70 bytes before a quote, an escape, a newline or UTF-8; all-plain tokens longer than
// PlainRuns::kMaxRun; tokens that close a string and go on with JSON structure.
std::shared_ptr<const Vocabulary> split_vocabulary() {
  static std::shared_ptr<const Vocabulary> v = [] {
    auto base = vocabulary("/tokenizers/gpt2");
    std::vector<std::string> bytes;
    for (std::size_t i = 0; i < base->size(); ++i) bytes.push_back(base->bytes(static_cast<std::int64_t>(i)));
    for (std::size_t run : {1, 2, 5, 11, 31, 32, 33, 40, 70})
      for (const char* tail : {"", "\"", "\",", "\"}", "\\n", "\\\"", "\n", "\xc3\xa9", "\xc3\xa9\"", "\",\"a\":"})
        for (char fill : {'a', ' ', '7'}) bytes.push_back(std::string(run, fill) + tail);
    return std::make_shared<const Vocabulary>(std::move(bytes));
  }();
  return v;
}

// Masks by the run paths (plain bytes, letters) and by the whole trie, on the same random token
// sequences, both equal to brute force; each path must actually have been taken.
TEST(Mask, PlainRunPathEqualsWholeTrieAndBruteForce) {
  auto vocab = split_vocabulary();
  const std::vector<ResponseFormat> cases = {
      schema_format(R"({"type":"object","properties":{"a":{"type":"string","maxLength":5},
        "b":{"type":"string","minLength":3,"maxLength":40},"c":{"type":"string"},
        "d":{"type":"array","items":{"type":"string","maxLength":34}}},"required":["a","b","c","d"],
        "additionalProperties":false})"),
      {ResponseFormat::Kind::kRegex, R"("[^"\\]{0,45}"(, "[^"]*")*)", true},
      {ResponseFormat::Kind::kGrammar, "root ::= [ -~]{2,36} \"\\n\" root?", true},
      schema_format(kPerson),
      schema_format(R"({"type":"array","items":{"type":"string","format":"email"},"maxItems":3})"),
      schema_format(R"({"type":"array","items":{"type":"string","format":"hostname"},"maxItems":3})")};
  std::mt19937 rng(11);
  std::size_t plain_runs = 0, letter_runs = 0, whole = 0;
  for (const ResponseFormat& f : cases) {
    auto compiled = compile_response_format(f);
    GrammarConstraint fast(compiled, vocab, {50256}), slow(compiled, vocab, {50256}, MaskPath::kWholeTrie);
    for (int run = 0; run < 4; ++run) {
      auto a = fast.start_state(), b = slow.start_state();
      for (int step = 0; step < 30; ++step) {
        const TokenMask& got = a->allowed_text_tokens();
        ASSERT_EQ(got, b->allowed_text_tokens()) << f.text << " step " << step;
        std::vector<std::int64_t> allowed;
        for (std::size_t id = 0; id < vocab->size(); ++id) {
          const bool bit = (got[id >> 6] >> (id & 63)) & 1;
          ASSERT_EQ(bit, id != 50256 && a->allows_by_walk(static_cast<std::int64_t>(id)))
              << f.text << " step " << step << " token '" << vocab->bytes(static_cast<std::int64_t>(id)) << "'";
          if (bit) allowed.push_back(static_cast<std::int64_t>(id));
        }
        if (allowed.empty() || (a->complete() && rng() % 4 == 0)) break;
        // Half the time a long token (the split's own), to reach the ends of counted strings.
        std::int64_t pick = allowed[rng() % allowed.size()];
        if (rng() % 2 == 0 && allowed.back() >= 50257) pick = allowed[allowed.size() - 1 - rng() % 8 % allowed.size()];
        a->accept(pick);
        b->accept(pick);
      }
      plain_runs += a->run_masks(RunSplit::Kind::kPlain);
      letter_runs += a->run_masks(RunSplit::Kind::kLetter);
      whole += a->whole_trie_masks();
      EXPECT_EQ(b->run_masks(), 0u);
    }
  }
  EXPECT_GT(plain_runs, 20u);
  EXPECT_GT(letter_runs, 5u);
  EXPECT_GT(whole, 5u);
}

// Logits of a sampler step: random, so the grammar alone decides what is allowed.
std::vector<float> random_logits(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<float> d(0, 3);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::string run_sampler(const sampling::SamplingParams& params, const Vocabulary& vocab, std::mt19937& rng,
                        bool use_distribution, bool& ended) {
  sampling::Sampler sampler(params, static_cast<std::int64_t>(vocab.size()) + 7);  // logits wider than the vocabulary
  sampler.reset({});
  std::string text;
  ended = false;
  for (int i = 0; i < 150; ++i) {
    auto logits = random_logits(vocab.size() + 7, rng);
    std::int64_t token;
    if (use_distribution) {
      auto dist = sampler.distribution(logits);
      for (const auto& c : dist) EXPECT_LT(static_cast<std::size_t>(c.id), vocab.size());
      std::uniform_real_distribution<double> u(0, 1);
      double target = u(rng), acc = 0;
      token = dist.back().id;
      for (const auto& c : dist)
        if ((acc += c.p) > target) {
          token = c.id;
          break;
        }
      sampler.accept(token);
    } else {
      token = sampler.next(logits);
    }
    if (token == kEos) {
      ended = true;
      break;
    }
    text += vocab.bytes(token);
  }
  return text;
}

TEST(SamplerHook, GreedySampledAndDistributionStayInTheGrammar) {
  auto vocab = vocabulary("/tokenizers/llama2");
  ResponseFormat f{ResponseFormat::Kind::kRegex, "[a-c]{2,6}(-[0-9]+)?", true};
  auto compiled = compile_response_format(f);
  sampling::SamplingParams params;
  params.constraint = std::make_shared<GrammarConstraint>(compiled, vocab, std::vector<TokenId>{kEos});
  std::mt19937 rng(7);
  int ended_count = 0;
  for (int mode = 0; mode < 3; ++mode) {
    params.do_sample = mode != 0;
    params.temperature = mode == 0 ? 0.0 : 0.9;
    params.top_p = mode == 2 ? 0.9 : 1.0;
    for (int run = 0; run < 10; ++run) {
      bool ended = false;
      const std::string text = run_sampler(params, *vocab, rng, mode == 2, ended);
      Matcher m(compiled);
      const auto s = m.walk(m.initial(), text);
      ASSERT_NE(s, Matcher::kDead) << text;
      if (ended) {
        EXPECT_TRUE(m.accepting(s)) << text;  // EOS only once complete
        ++ended_count;
      }
    }
  }
  EXPECT_GT(ended_count, 5);
}

// The Sampler consumes allowed() inside its own pass over the row; an unconstrained Sampler given
// the row mask() materialized picks the same tokens (greedy and seeded sampling, penalties), with
// the logits wider than the vocabulary, over every format's states (listed and bit sets, EOS).
TEST(SamplerHook, FusedSamplingEqualsTheMaskedRow) {
  auto vocab = vocabulary("/tokenizers/gpt2");
  const auto v = static_cast<std::int64_t>(vocab->size()) + 7;
  std::mt19937 rng(3);
  int ended = 0;
  for (const ResponseFormat& f : formats()) {
    auto constraint =
        std::make_shared<GrammarConstraint>(compile_response_format(f), vocab, std::vector<TokenId>{kEos});
    for (int mode = 0; mode < 4; ++mode) {
      sampling::SamplingParams p;
      p.seed = 9;
      p.do_sample = mode != 0;
      p.temperature = mode == 1 ? 0.8 : 1.0;
      p.top_p = mode == 1 ? 0.9 : 1.0;
      p.top_k = mode == 2 ? 20 : 0;
      p.min_p = mode == 2 ? 0.05 : 0.0;
      p.repetition_penalty = mode == 2 ? 1.3 : 1.0;
      sampling::SamplingParams constrained = p;
      constrained.constraint = constraint;
      sampling::Sampler fused(constrained, v), reference(p, v);
      auto state = constraint->start_state();  // the reference's grammar state
      for (int step = 0; step < 60; ++step) {
        std::vector<float> a = random_logits(static_cast<std::size_t>(v), rng), b = a;
        state->mask(b);
        const TokenId want = reference.sample(b), got = fused.sample(a);
        ASSERT_EQ(got, want) << "format " << static_cast<int>(f.kind) << " mode " << mode << " step " << step;
        fused.accept(got);
        reference.accept(want);
        state->accept(want);
        if (want == kEos) {
          ++ended;
          break;
        }
      }
    }
  }
  EXPECT_GT(ended, 0);
}

// Once the text is complete and nothing may extend it, EOS is the one token allowed (a listed
// set of one) and every mode picks it, however low its logit.
TEST(SamplerHook, EndTokenAloneIsAllowedWhenNothingElseMayFollow) {
  auto vocab = vocabulary("/tokenizers/gpt2");
  ResponseFormat f{ResponseFormat::Kind::kRegex, "x", true};
  auto constraint = std::make_shared<GrammarConstraint>(compile_response_format(f), vocab, std::vector<TokenId>{50256});
  auto state = constraint->start_state();
  state->accept(87);  // "x"
  const sampling::AllowedTokens allowed = state->allowed();
  ASSERT_TRUE(allowed.listed);
  EXPECT_EQ(std::vector<std::int32_t>(allowed.ids.begin(), allowed.ids.end()), std::vector<std::int32_t>{50256});
  EXPECT_EQ(allowed.count(vocab->size()), 1u);
  std::mt19937 rng(4);
  for (int mode = 0; mode < 3; ++mode) {
    sampling::SamplingParams p;
    p.do_sample = mode != 0;
    p.top_k = mode == 2 ? 5 : 0;
    p.constraint = constraint;
    sampling::Sampler sampler(p, static_cast<std::int64_t>(vocab->size()));
    sampler.accept(87);
    std::vector<float> logits = random_logits(vocab->size(), rng);
    logits[50256] = -50.0f;
    EXPECT_EQ(sampler.sample(logits), 50256) << mode;
  }
}

TEST(SamplerHook, AcceptOfAForbiddenTokenThrowsAndResetRestarts) {
  auto vocab = vocabulary("/tokenizers/gpt2");
  ResponseFormat f{ResponseFormat::Kind::kRegex, "x+", true};
  sampling::SamplingParams params;
  params.constraint =
      std::make_shared<GrammarConstraint>(compile_response_format(f), vocab, std::vector<TokenId>{50256});
  sampling::Sampler sampler(params, static_cast<std::int64_t>(vocab->size()));
  EXPECT_FALSE(sampler.constraint()->complete());
  EXPECT_THROW(sampler.accept(50256), Error);  // EOS before anything
  sampler.accept(87);                          // "x"
  EXPECT_TRUE(sampler.constraint()->complete());
  EXPECT_THROW(sampler.accept(88), Error);  // "y"
  sampler.reset({});
  EXPECT_FALSE(sampler.constraint()->complete());
}

}  // namespace
}  // namespace ogai::grammar
