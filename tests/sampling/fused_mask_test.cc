// The fused constraint path: a Sampler that consumes a constraint's compact allowed set inside its
// own pass picks, token for token, what an unconstrained Sampler picks from the row with -inf
// written over the forbidden ids (materialize()), over randomized logits and masks (sparse and
// dense, as bits and as lists; allowing none, one, all but one, all), in greedy mode and seeded
// sampling with temperature, top-k, top-p, min-p, typical-p and the processors; distribution()
// too. And materialize() / AllowedTokens themselves.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>

#include "base/error.h"
#include "sampling/sampler.h"

namespace ogai::sampling {
namespace {

// The set a test hands out next, as bits and (when listed) ids.
struct Script {
  std::vector<std::uint64_t> words;
  std::vector<std::int32_t> ids;
  bool listed = false;
  AllowedTokens view() const { return {words, ids, listed}; }
};

class ScriptedState final : public ConstraintState {
 public:
  explicit ScriptedState(const Script* script) : script_(script) {}
  AllowedTokens allowed() override { return script_->view(); }
  void accept(TokenId) override {}
  bool complete() const override { return false; }

 private:
  const Script* script_;
};

class Scripted final : public Constraint {
 public:
  std::unique_ptr<ConstraintState> start() const override { return std::make_unique<ScriptedState>(&script); }
  Script script;
};

enum class MaskKind { kNone, kOne, kSparse, kHalf, kDense, kAllButOne, kAll };

Script make_script(MaskKind kind, std::size_t v, std::mt19937& rng, bool listed) {
  Script s;
  s.words.assign((v + 63) / 64, 0);
  auto set = [&](std::size_t id) { s.words[id / 64] |= std::uint64_t{1} << (id % 64); };
  std::uniform_real_distribution<double> u(0, 1);
  const std::size_t pick = rng() % v;
  for (std::size_t id = 0; id < v; ++id) {
    bool on = false;
    switch (kind) {
      case MaskKind::kNone:
        break;
      case MaskKind::kOne:
        on = id == pick;
        break;
      case MaskKind::kSparse:
        on = u(rng) < 0.01 || id == pick;
        break;
      case MaskKind::kHalf:
        on = u(rng) < 0.5;
        break;
      case MaskKind::kDense:
        on = u(rng) < 0.97;
        break;
      case MaskKind::kAllButOne:
        on = id != pick;
        break;
      case MaskKind::kAll:
        on = true;
        break;
    }
    if (on) set(id);
  }
  if (rng() % 2 == 0 && kind != MaskKind::kNone) {  // bits past V (a constraint's larger vocabulary)
    s.words.push_back(~std::uint64_t{0});
  }
  s.listed = listed;
  if (listed)
    for (std::size_t id = 0; id < s.words.size() * 64; ++id)
      if ((s.words[id / 64] >> (id % 64)) & 1) s.ids.push_back(static_cast<std::int32_t>(id));
  return s;
}

std::vector<float> random_logits(std::size_t v, std::mt19937& rng, const Script& script) {
  std::normal_distribution<float> n(0.0f, 3.0f);
  std::vector<float> x(v);
  for (float& f : x) f = n(rng);
  // Ties (quantized values) and raw -inf; a NaN where the constraint forbids it, which it hides.
  for (std::size_t i = 0; i < v; i += 7) x[i] = std::round(x[i]);
  x[rng() % v] = -INFINITY;
  for (std::size_t tries = 0; tries < 8; ++tries) {
    const std::size_t at = rng() % v;
    if (!script.view().allows(at)) {
      x[at] = NAN;
      break;
    }
  }
  return x;
}

struct Config {
  const char* name;
  SamplingParams params;
};

std::vector<Config> configs() {
  std::vector<Config> out;
  auto add = [&](const char* name, auto edit) {
    SamplingParams p;
    p.seed = 11;
    edit(p);
    out.push_back({name, p});
  };
  add("greedy", [](SamplingParams& p) { p.do_sample = false; });
  add("greedy+penalties", [](SamplingParams& p) {
    p.do_sample = false;
    p.repetition_penalty = 1.5;
    p.logit_bias[3] = 8.0;
  });
  add("plain", [](SamplingParams&) {});
  add("temperature", [](SamplingParams& p) { p.temperature = 0.7; });
  add("top_k", [](SamplingParams& p) { p.top_k = 5; });
  add("top_k+top_p", [](SamplingParams& p) {
    p.top_k = 50;
    p.top_p = 0.9;
  });
  add("top_p", [](SamplingParams& p) { p.top_p = 0.8; });
  add("top_p min_keep 4", [](SamplingParams& p) {
    p.top_p = 0.3;
    p.min_tokens_to_keep = 4;
  });
  add("min_p", [](SamplingParams& p) { p.min_p = 0.1; });
  add("min_p min_keep 3", [](SamplingParams& p) {
    p.min_p = 0.2;
    p.min_tokens_to_keep = 3;
  });
  add("typical_p", [](SamplingParams& p) { p.typical_p = 0.9; });
  add("penalties", [](SamplingParams& p) {
    p.repetition_penalty = 1.3;
    p.frequency_penalty = 0.5;
    p.presence_penalty = 0.25;
    p.logit_bias[1] = 5.0;
    p.logit_bias[2] = -3.0;
  });
  add("mixed", [](SamplingParams& p) {
    p.temperature = 1.3;
    p.top_k = 1000;
    p.top_p = 0.95;
    p.min_p = 0.05;
    p.repetition_penalty = 1.2;
  });
  return out;
}

// The sampled token, or nothing when the sampler refuses the row (ogai::Error).
std::optional<TokenId> outcome(Sampler& sampler, std::vector<float>& logits) {
  try {
    return sampler.sample(logits);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// The fused Sampler and the reference (materialized rows into an unconstrained Sampler) over
// `steps` random rows and masks; both accept each chosen token.
void compare(const Config& config, std::size_t v, std::uint32_t seed, int steps) {
  auto constraint = std::make_shared<Scripted>();
  SamplingParams fused_params = config.params;
  fused_params.constraint = constraint;
  Sampler fused(fused_params, static_cast<std::int64_t>(v));
  Sampler reference(config.params, static_cast<std::int64_t>(v));
  const std::vector<TokenId> prompt = {1, 5, 9, static_cast<TokenId>(v - 1)};
  fused.reset(prompt);
  reference.reset(prompt);
  std::mt19937 rng(seed);
  int refused = 0;
  const MaskKind kinds[] = {MaskKind::kOne, MaskKind::kSparse,    MaskKind::kHalf, MaskKind::kDense,
                            MaskKind::kAll, MaskKind::kAllButOne, MaskKind::kNone};
  for (int step = 0; step < steps; ++step) {
    const MaskKind kind = kinds[static_cast<std::size_t>(step) % std::size(kinds)];
    constraint->script = make_script(kind, v, rng, rng() % 2 == 0);
    std::vector<float> a = random_logits(v, rng, constraint->script), b = a;
    const std::string where = fmt::format("{} V={} step {} mask {} listed {}", config.name, v, step,
                                          static_cast<int>(kind), constraint->script.listed);
    materialize(constraint->script.view(), b);
    const std::optional<TokenId> got = outcome(fused, a), want = outcome(reference, b);
    ASSERT_EQ(got, want) << where;  // the same token, or both refuse (nothing allowed is finite)
    if (kind == MaskKind::kNone) {
      ASSERT_FALSE(got) << where;
    }
    if (!got) {
      refused += kind != MaskKind::kNone;
      continue;
    }
    ASSERT_TRUE(constraint->script.view().allows(static_cast<std::size_t>(*got))) << where;
    fused.accept(*got);
    reference.accept(*want);
  }
  EXPECT_LE(refused, steps / 20) << config.name << " V=" << v;  // a lone allowed id drawn as -inf, rarely
}

TEST(FusedMask, SampleEqualsTheMaterializedRow) {
  for (const Config& c : configs())
    for (std::size_t v : {std::size_t{70}, std::size_t{1000}, std::size_t{4096 + 37}})
      compare(c, v, static_cast<std::uint32_t>(v), 60);
}

TEST(FusedMask, DistributionEqualsTheMaterializedRow) {
  std::mt19937 rng(5);
  for (const Config& c : configs()) {
    auto constraint = std::make_shared<Scripted>();
    SamplingParams p = c.params;
    p.constraint = constraint;
    Sampler fused(p, 3000), reference(c.params, 3000);
    for (MaskKind kind : {MaskKind::kOne, MaskKind::kSparse, MaskKind::kHalf, MaskKind::kAllButOne}) {
      constraint->script = make_script(kind, 3000, rng, kind == MaskKind::kSparse);
      std::vector<float> a = random_logits(3000, rng, constraint->script), b = a;
      materialize(constraint->script.view(), b);
      std::span<const Candidate> got = fused.distribution(a);
      std::vector<Candidate> kept(got.begin(), got.end());
      std::span<const Candidate> want = reference.distribution(b);
      ASSERT_EQ(kept.size(), want.size()) << c.name << " mask " << static_cast<int>(kind);
      for (std::size_t i = 0; i < kept.size(); ++i) {
        ASSERT_EQ(kept[i].id, want[i].id) << c.name << " at " << i;
        ASSERT_EQ(kept[i].p, want[i].p) << c.name << " at " << i;
      }
    }
  }
}

TEST(FusedMask, AllowedNaNOrInfinityIsStillAnError) {
  auto constraint = std::make_shared<Scripted>();
  constraint->script.words = {0b1011};  // ids 0, 1, 3
  for (bool greedy : {true, false}) {
    SamplingParams p;
    p.do_sample = !greedy;
    p.seed = 1;
    p.constraint = constraint;
    Sampler s(p, 8);
    std::vector<float> x = {0, NAN, 0, 1, 0, 0, 0, 0};
    EXPECT_THROW(s.sample(x), Error);
    x = {0, 1, NAN, 1, NAN, INFINITY, NAN, NAN};  // forbidden ones are never read
    const TokenId t = s.sample(x);
    EXPECT_TRUE(t == 0 || t == 1 || t == 3) << t;
  }
}

TEST(AllowedTokens, MaterializeWritesMinusInfinityOverTheForbiddenOnly) {
  std::vector<std::uint64_t> words = {~std::uint64_t{0}, 0, 0x8000000000000001ull};
  AllowedTokens allowed{words, {}, false};
  std::vector<float> x(150, 2.0f);
  x[70] = NAN;
  materialize(allowed, x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool keep = i < 64 || i == 128;  // bit 63 of word 2 is id 191, past the row
    EXPECT_EQ(x[i], keep ? 2.0f : -INFINITY) << i;
  }
  EXPECT_EQ(allowed.count(150), 65u);
  EXPECT_EQ(allowed.count(192), 66u);
  EXPECT_FALSE(allowed.allows(64 * 3));
}

}  // namespace
}  // namespace ogai::sampling
