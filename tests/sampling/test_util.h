// Helpers shared by the sampling tests: random logits and dense views of distributions.
#pragma once

#include <cmath>
#include <span>
#include <vector>

#include "sampling/candidates.h"
#include "sampling/rng.h"
#include "tests/sampling/hf_reference.h"

namespace ogai::sampling::testing {

// Gaussian logits with standard deviation `scale` (Box-Muller over Rng), no exact ties in practice.
inline std::vector<float> random_logits(size_t n, uint64_t seed, double scale = 2.0) {
  Rng rng(seed);
  std::vector<float> x(n);
  for (float& v : x) {
    double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
    v = static_cast<float>(scale * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
  return x;
}

// The candidates' probabilities as a dense vector over the vocabulary (0 for filtered ids).
inline std::vector<double> dense(std::span<const Candidate> items, size_t vocab) {
  std::vector<double> p(vocab, 0.0);
  for (const Candidate& c : items) p[c.id] = c.p;
  return p;
}

// The reference's masked logits as a probability vector.
inline std::vector<double> reference_probs(const std::vector<float>& masked) {
  return reference::softmax(masked);
}

}  // namespace ogai::sampling::testing
