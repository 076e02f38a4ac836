// The Sampler's constraint hook with a stand-in constraint (even ids only, and id 7 once three
// tokens were accepted): masked before the processors in greedy and sampled mode and in
// distribution(); accept() advances the state; reset() restarts it.
#include <gtest/gtest.h>

#include <cmath>

#include "sampling/sampler.h"

namespace ogai::sampling {
namespace {

class EvenState final : public ConstraintState {
 public:
  explicit EvenState(int* starts) { ++*starts; }
  AllowedTokens allowed() override {
    words_.assign(2, 0x5555555555555555ull);  // even ids of [0, 128)
    if (accepted_ >= 3) words_[0] |= std::uint64_t{1} << 7;
    return {words_, {}, false};
  }
  void accept(TokenId token) override {
    if (token % 2 == 1 && !(token == 7 && accepted_ >= 3)) throw std::runtime_error("forbidden token");
    ++accepted_;
  }
  bool complete() const override { return accepted_ >= 3; }

 private:
  int accepted_ = 0;
  std::vector<std::uint64_t> words_;
};

class Even final : public Constraint {
 public:
  std::unique_ptr<ConstraintState> start() const override { return std::make_unique<EvenState>(&starts); }
  mutable int starts = 0;
};

TEST(ConstraintHook, GreedyPicksTheBestAllowedToken) {
  SamplingParams p;
  p.do_sample = false;
  auto c = std::make_shared<Even>();
  p.constraint = c;
  Sampler s(p, 8);
  std::vector<float> logits = {0, 5, 1, 9, 2, 0, 0, 8};  // best overall: 3, then 7 (both odd)
  EXPECT_EQ(s.next(logits), 4);
  logits = {0, 5, 1, 9, 2, 0, 0, 8};
  EXPECT_EQ(s.next(logits), 4);
  logits = {0, 5, 1, 9, 2, 0, 0, 8};
  EXPECT_EQ(s.next(logits), 4);
  EXPECT_TRUE(s.constraint()->complete());
  logits = {0, 5, 1, 9, 2, 0, 0, 8};
  EXPECT_EQ(s.next(logits), 7);  // allowed now
  EXPECT_EQ(c->starts, 1);
  s.reset({});
  EXPECT_EQ(c->starts, 2);
  EXPECT_FALSE(s.constraint()->complete());
}

TEST(ConstraintHook, SampledDrawsAndDistributionOnlyHoldAllowedTokens) {
  SamplingParams p;
  p.temperature = 1.5;
  p.seed = 3;
  p.logit_bias[1] = 100.0;  // the bias cannot lift a masked token
  p.constraint = std::make_shared<Even>();
  Sampler s(p, 64);
  for (int i = 0; i < 200; ++i) {
    std::vector<float> logits(64, 1.0f);
    const TokenId t = s.sample(logits);
    EXPECT_EQ(t % 2, 0);
  }
  std::vector<float> logits(64, 1.0f);
  auto dist = s.distribution(logits);
  EXPECT_EQ(dist.size(), 32u);
  for (const auto& c : dist) EXPECT_EQ(c.id % 2, 0);
  EXPECT_THROW(s.accept(1), std::runtime_error);
}

TEST(ConstraintHook, NoConstraintNoState) {
  Sampler s(SamplingParams{}, 4);
  EXPECT_EQ(s.constraint(), nullptr);
}

}  // namespace
}  // namespace ogai::sampling
