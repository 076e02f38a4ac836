// Chi-square goodness-of-fit helpers shared by the sampling and speculative-sampling tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ogai::sampling::testing {

// Upper alpha = 0.001 quantile of chi-square with df degrees of freedom (Wilson-Hilferty; within
// about 1% of the exact quantile for df >= 3).
inline double chi_square_critical(int df) {
  const double z = 3.090232306;  // standard normal 0.999 quantile
  double a = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

struct Fit {
  double statistic = 0;
  int df = 0;
  int64_t impossible = 0;  // draws of tokens the distribution gives probability 0
};

// Pearson's statistic of observed counts against probabilities, pooling cells with expected
// count < 5 into one cell.
inline Fit chi_square(const std::vector<int64_t>& counts, const std::vector<double>& probs, int64_t n) {
  Fit fit;
  double pooled_expected = 0, pooled_observed = 0;
  int cells = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    double expected = probs[i] * static_cast<double>(n);
    if (probs[i] == 0.0) {
      fit.impossible += counts[i];
    } else if (expected < 5.0) {
      pooled_expected += expected;
      pooled_observed += static_cast<double>(counts[i]);
    } else {
      double d = static_cast<double>(counts[i]) - expected;
      fit.statistic += d * d / expected;
      ++cells;
    }
  }
  if (pooled_expected > 0) {
    double d = pooled_observed - pooled_expected;
    fit.statistic += d * d / std::max(pooled_expected, 1e-9);
    ++cells;
  }
  fit.df = cells - 1;
  return fit;
}

// Two-sample chi-square test of homogeneity for two histograms over the same cells with equal
// sample sizes: sum (a - b)^2 / (a + b), df = cells - 1, pooling cells with a + b < 10 into one.
inline Fit chi_square_two_sample(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  Fit fit;
  double pooled_a = 0, pooled_b = 0;
  int cells = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double x = static_cast<double>(a[i]), y = static_cast<double>(b[i]);
    if (x + y == 0) continue;
    if (x + y < 10) {
      pooled_a += x;
      pooled_b += y;
      continue;
    }
    fit.statistic += (x - y) * (x - y) / (x + y);
    ++cells;
  }
  if (pooled_a + pooled_b > 0) {
    fit.statistic += (pooled_a - pooled_b) * (pooled_a - pooled_b) / (pooled_a + pooled_b);
    ++cells;
  }
  fit.df = cells - 1;
  return fit;
}

}  // namespace ogai::sampling::testing
