// The sampler's selection and histogram paths against the sampler they replaced
// (legacy_sampler.h, the previous src/sampling kept verbatim):
//   - greedy, top-k 1 and every top-k chain draw the same tokens from the same seed;
//   - temperature + top-k lists equal the old lists (also where division rounds two logits
//     onto the k-th value);
//   - the tokens top-p and typical-p keep are exactly the old survivors, on peaked, Gaussian,
//     uniform, constant and two-valued rows, with -inf and with masks, both by the histogram cut
//     (nucleus.h) and by the per-token tests the rejection draws ask (cut_test.h);
//   - every sampled mode's draws fit the old distribution() (chi-square, alpha 0.001, over
//     several seeds) and never pick a token the old chain gives probability 0.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "sampling/cut_test.h"
#include "sampling/dense_weights.h"
#include "sampling/nucleus.h"
#include "sampling/sampler.h"
#include "tests/sampling/chi_square.h"
#include "tests/sampling/legacy_sampler.h"
#include "tests/sampling/test_util.h"

namespace ogai::sampling {
namespace {

using testing::chi_square;
using testing::chi_square_critical;
using testing::random_logits;

// Row shapes: a peaked head over a Gaussian tail, Gaussian, uniform [0, 1), constant, two values,
// and Gaussian with some -inf.
std::vector<float> make_row(int shape, std::size_t v, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> x;
  switch (shape) {
    case 0:  // peaked, like a trained model's
      x = random_logits(v, seed, 1.5);
      for (int i = 0; i < 6; ++i) x[rng.next() % v] += 9.0f + static_cast<float>(i);
      break;
    case 1:
      x = random_logits(v, seed, 2.0);
      break;
    case 2:
      x.resize(v);
      for (float& e : x) e = static_cast<float>(rng.uniform());
      break;
    case 3:
      x.assign(v, 0.25f);
      break;
    case 4:
      x.resize(v);
      for (float& e : x) e = rng.uniform() < 0.1 ? 3.0f : 1.0f;
      break;
    default:
      x = random_logits(v, seed, 2.0);
      for (std::size_t i = 0; i < v; i += 7) x[i] = -INFINITY;
      break;
  }
  return x;
}

constexpr int kShapes = 6;

std::set<TokenId> old_support(const SamplingParams& p, const std::vector<float>& row) {
  legacy::Sampler old(p, static_cast<std::int64_t>(row.size()));
  std::vector<float> copy = row;
  std::set<TokenId> ids;
  for (const auto& c : old.distribution(copy))
    if (c.p > 0.0f) ids.insert(c.id);
  return ids;
}

TEST(FastPaths, GreedyTopK1AndTopKChainsDrawTheOldTokens) {
  for (std::size_t v : {100u, 4096u, 40001u}) {
    for (int shape = 0; shape < kShapes; ++shape) {
      const std::vector<float> row = make_row(shape, v, 10 + v + shape);
      for (int mode = 0; mode < 4; ++mode) {
        SamplingParams p;
        p.seed = 7;
        if (mode == 0) p.do_sample = false;
        if (mode == 1) p.top_k = 1;
        if (mode == 2) p.temperature = 0.7, p.top_k = 50;
        if (mode == 3) p.temperature = 1.3, p.top_k = 40, p.top_p = 0.9, p.min_p = 0.01, p.repetition_penalty = 1.2;
        Sampler now(p, static_cast<std::int64_t>(v));
        legacy::Sampler old(p, static_cast<std::int64_t>(v));
        const std::vector<TokenId> prompt = {1, 2, 3};
        now.reset(prompt);
        old.reset(prompt);
        for (int i = 0; i < 30; ++i) {
          std::vector<float> a = row, b = row;
          const TokenId t = now.sample(a);
          ASSERT_EQ(t, old.sample(b)) << "v " << v << " shape " << shape << " mode " << mode << " draw " << i;
          now.accept(t);
          old.accept(t);
        }
      }
    }
  }
}

TEST(FastPaths, TemperatureTopKListEqualsTheOldList) {
  for (float t : {0.3f, 0.8f, 1.0f, 3.0f, 7.0f}) {
    for (int shape = 0; shape < kShapes; ++shape) {
      std::vector<float> row = make_row(shape, 5000, 77 + shape);
      // Neighbouring floats just below a large value: division can round some onto one quotient.
      for (int i = 0; i < 40; ++i) row[100 + i] = std::nextafter(row[99 + i] > 5.0f ? row[99 + i] : 20.0f, 0.0f);
      for (std::size_t k : {1u, 5u, 20u, 41u, 300u}) {
        Candidates now;
        now.reserve(row.size());
        now.gather_top_k(row, k, t, nullptr);
        legacy::Candidates old;
        old.reserve(row.size());
        std::vector<float> divided = row;
        legacy::apply_temperature(divided, t);
        old.gather_top_k(divided, k);
        ASSERT_EQ(now.size(), old.size()) << "T " << t << " shape " << shape << " k " << k;
        for (std::size_t i = 0; i < now.size(); ++i) {
          ASSERT_EQ(now.items()[i].id, old.items()[i].id);
          ASSERT_EQ(now.items()[i].logit, old.items()[i].logit);
        }
      }
    }
  }
}

// The ids a KeptSet keeps (weight > 0), over the processed row y.
std::set<TokenId> kept_ids(const DenseWeights& dense, const KeptSet& kept, std::span<const float> y,
                           std::span<const float> scores) {
  std::set<TokenId> ids;
  std::span<const float> w = dense.weights();
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!(w[i] > 0.0f)) continue;
    bool in = true;
    if (kept.rank_cut) {
      in = w[i] > kept.cut_w ||
           (w[i] == kept.cut_w && (y[i] > kept.cut_y || (y[i] == kept.cut_y && static_cast<std::int64_t>(i) <= kept.cut_id)));
    }
    if (kept.score_cut) in = in && scores[i] <= kept.max_score;
    if (w[i] < kept.min_w) in = false;
    if (in) ids.insert(static_cast<TokenId>(i));
  }
  return ids;
}

TEST(FastPaths, TopPAndTypicalKeepExactlyTheOldSurvivors) {
  for (std::size_t v : {64u, 1000u, 4096u, 9999u}) {
    for (int shape = 0; shape < kShapes; ++shape) {
      for (float t : {1.0f, 0.6f}) {
        const std::vector<float> row = make_row(shape, v, 500 + v + shape);
        for (double mass : {0.05, 0.5, 0.9, 0.95, 0.999}) {
          for (bool typical : {false, true}) {
            SamplingParams p;
            p.temperature = t;
            (typical ? p.typical_p : p.top_p) = mass;
            // Typical-p reads the processed row; top-p the raw one with the temperature.
            std::vector<float> y = row, raw = row;
            DenseWeights dense;
            dense.reserve(v);
            dense.compute(y, t, 0.0, nullptr, true);
            NucleusCut cut;
            KeptSet kept;
            std::vector<float> scores(v);
            if (typical) {
              cut.typical_p(dense, y, mass, scores, kept);
            } else {
              dense.compute(raw, t, 0.0, nullptr, false);
              ASSERT_EQ(raw, row);  // not written
              cut.top_p(dense, raw, t, mass, kept);
            }
            EXPECT_EQ(kept_ids(dense, kept, y, scores), old_support(p, row))
                << "v " << v << " shape " << shape << " T " << t << " mass " << mass << " typical " << typical;
          }
        }
      }
    }
  }
}

// weight_ranked_above() gives the same sums with and without the block maxima, for every token.
TEST(FastPaths, BlockMaximaChangeNoRankedSum) {
  for (int shape = 0; shape < kShapes; ++shape) {
    std::vector<float> row = make_row(shape, 1000, 61 + shape);
    DenseWeights plain, skipping;
    plain.reserve(row.size());
    skipping.reserve(row.size());
    skipping.keep_block_maxima(true);
    plain.compute(row, 0.7f, 0.0, nullptr, false);
    skipping.compute(row, 0.7f, 0.0, nullptr, false);
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto id = static_cast<std::int64_t>(i);
      ASSERT_EQ(weight_ranked_above(plain, id, row, 0.7f), weight_ranked_above(skipping, id, row, 0.7f))
          << "shape " << shape << " id " << i;
    }
  }
}

// The per-token tests of cut_test.h (what the sampler's rejection draws ask) keep exactly the
// old survivors, token by token, on every row shape, with and without temperature.
TEST(FastPaths, CutTestsKeepExactlyTheOldSurvivors) {
  for (std::size_t v : {64u, 1000u, 2051u}) {
    for (int shape = 0; shape < kShapes; ++shape) {
      for (float t : {1.0f, 0.6f}) {
        const std::vector<float> row = make_row(shape, v, 700 + v + shape);
        for (double mass : {0.05, 0.5, 0.9, 0.999}) {
          for (bool typical : {false, true}) {
            SamplingParams p;
            p.temperature = t;
            (typical ? p.typical_p : p.top_p) = mass;
            std::vector<float> y = row, raw = row;
            DenseWeights dense;
            dense.reserve(v);
            std::set<TokenId> kept;
            if (typical) {
              dense.compute(y, t, 0.0, nullptr, true);
              const TypicalScore f = typical_score(dense, y);
              const double need = mass * dense.total();
              for (std::size_t i = 0; i < v; ++i)
                if (dense.weights()[i] > 0.0f && weight_scored_below(dense, f(y[i]), y, f) < need)
                  kept.insert(static_cast<TokenId>(i));
            } else {
              // Half the rows with the block maxima (blocks below the token passed over).
              dense.keep_block_maxima(shape % 2 == 0);
              dense.compute(raw, t, 0.0, nullptr, false);
              ASSERT_EQ(dense.block_maxima().empty(), shape % 2 != 0);
              const double need = mass * dense.total();
              for (std::size_t i = 0; i < v; ++i)
                if (dense.weights()[i] > 0.0f && weight_ranked_above(dense, static_cast<std::int64_t>(i), raw, t) < need)
                  kept.insert(static_cast<TokenId>(i));
            }
            EXPECT_EQ(kept, old_support(p, row))
                << "v " << v << " shape " << shape << " T " << t << " mass " << mass << " typical " << typical;
          }
        }
      }
    }
  }
}

// weight_scored_below() finds the tokens by an interval of logits; it equals the sum over the
// tokens whose score is below, one score at a time, for every token's score (and ones between).
TEST(FastPaths, ScoredBelowEqualsTheScoreByScoreSum) {
  for (int shape = 0; shape < kShapes; ++shape) {
    for (float t : {1.0f, 0.45f, 2.5f}) {
      std::vector<float> y = make_row(shape, 700, 31 + shape);
      DenseWeights dense;
      dense.reserve(y.size());
      dense.compute(y, t, 0.0, nullptr, true);
      const TypicalScore f = typical_score(dense, y);
      std::vector<float> probes;
      for (float v : y) probes.push_back(f(v));
      for (float s : {0.0f, 1e-6f, 0.5f, 3.0f, 1e9f, INFINITY}) probes.push_back(s);
      for (std::size_t i = 0; i < y.size(); i += 3) probes.push_back(std::nextafter(f(y[i]), INFINITY));
      for (float s : probes) {
        double expected = 0.0;
        for (std::size_t j = 0; j < y.size(); ++j)
          if (f(y[j]) < s) expected += dense.weights()[j];
        ASSERT_NEAR(weight_scored_below(dense, s, y, f), expected, 1e-12 * (1.0 + expected))
            << "shape " << shape << " T " << t << " score " << s;
      }
    }
  }
}

struct Mode {
  const char* name;
  SamplingParams params;
};

std::vector<Mode> sampled_modes() {
  auto make = [](auto change) {
    SamplingParams p;
    change(p);
    return p;
  };
  return {
      {"T 1", make([](auto&) {})},
      {"T 0.8", make([](auto& p) { p.temperature = 0.8; })},
      {"min_p", make([](auto& p) { p.temperature = 0.8, p.min_p = 0.05; })},
      {"top_p", make([](auto& p) { p.temperature = 0.8, p.top_p = 0.9; })},
      {"top_p + min_p", make([](auto& p) { p.top_p = 0.95, p.min_p = 0.1; })},
      {"typical", make([](auto& p) { p.temperature = 1.2, p.typical_p = 0.8; })},
      {"typical 0.2 (cut tests refuse often)", make([](auto& p) { p.typical_p = 0.2; })},
      {"top_p 0.1 (cut tests refuse often)", make([](auto& p) { p.top_p = 0.1; })},
      {"top_p + min_p 0.5", make([](auto& p) { p.top_p = 0.9, p.min_p = 0.5; })},
      {"top_k + top_p", make([](auto& p) { p.temperature = 0.8, p.top_k = 30, p.top_p = 0.9; })},
      {"penalties + bias + top_p", make([](auto& p) {
         p.top_p = 0.9, p.repetition_penalty = 1.3, p.frequency_penalty = 0.5, p.presence_penalty = 0.3;
         p.logit_bias = {{5, 4.0}, {6, -3.0}};
       })},
      {"min_tokens_to_keep 3 (candidate path)", make([](auto& p) { p.top_p = 0.5, p.min_tokens_to_keep = 3; })},
  };
}

TEST(FastPaths, EverySampledModeFitsTheOldDistribution) {
  const std::size_t v = 2000;  // not a multiple of 64
  for (int shape : {0, 1, 2, 5}) {
    const std::vector<float> row = make_row(shape, v, 900 + shape);
    for (const Mode& mode : sampled_modes()) {
      const std::vector<TokenId> prompt = {5, 7, 7, 9};
      const std::vector<TokenId> generated = {5, 11, 11};
      legacy::Sampler old(mode.params, static_cast<std::int64_t>(v));
      old.reset(prompt);
      for (TokenId t : generated) old.accept(t);
      std::vector<float> copy = row;
      std::vector<double> probs(v, 0.0);
      for (const auto& c : old.distribution(copy)) probs[static_cast<std::size_t>(c.id)] = c.p;
      std::vector<std::int64_t> counts(v, 0);
      const int seeds = 8, per_seed = 700;
      for (int s = 0; s < seeds; ++s) {
        SamplingParams p = mode.params;
        p.seed = 1000 + static_cast<std::uint64_t>(s);
        Sampler now(p, static_cast<std::int64_t>(v));
        now.reset(prompt);
        for (TokenId t : generated) now.accept(t);
        for (int i = 0; i < per_seed; ++i) {
          std::vector<float> r = row;
          ++counts[static_cast<std::size_t>(now.sample(r))];
        }
      }
      const auto fit = chi_square(counts, probs, seeds * per_seed);
      EXPECT_EQ(fit.impossible, 0) << mode.name << " shape " << shape;
      if (fit.df >= 1) {
        EXPECT_LT(fit.statistic, chi_square_critical(fit.df)) << mode.name << " shape " << shape;
      }
    }
  }
}

TEST(FastPaths, MaskedRowsKeepTheOldSurvivors) {
  const std::size_t v = 5000;
  for (int shape : {0, 2}) {
    std::vector<float> row = make_row(shape, v, 4242 + shape);
    Rng rng(3);
    for (std::size_t i = 0; i < v; ++i)
      if (rng.uniform() < 0.6) row[i] = -INFINITY;  // as a grammar mask materialized
    for (double top_p : {0.3, 0.9}) {
      SamplingParams p;
      p.temperature = 0.9;
      p.top_p = top_p;
      std::vector<float> y = row;
      DenseWeights dense;
      dense.reserve(v);
      dense.compute(y, 0.9f, 0.0, nullptr, true);
      NucleusCut cut;
      KeptSet kept;
      cut.top_p(dense, y, 1.0f, top_p, kept);
      EXPECT_EQ(kept_ids(dense, kept, y, {}), old_support(p, row)) << "shape " << shape << " top_p " << top_p;
    }
  }
}

}  // namespace
}  // namespace ogai::sampling
