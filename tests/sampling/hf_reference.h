// A deliberately plain reference for the tests: HF's warpers written over the dense vocabulary,
// with -inf masking and full sorts, exactly as their formulas read (docs/sampling.md). It shares
// no code with src/sampling, so agreement is evidence, not tautology. Ties in sorts are broken
// by lower id first in "best" order, the rule ogai documents.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ogai::sampling::reference {

inline std::vector<double> softmax(const std::vector<float>& x) {
  double m = -INFINITY;
  for (float v : x) m = std::max(m, static_cast<double>(v));
  std::vector<double> p(x.size());
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += p[i] = std::exp(static_cast<double>(x[i]) - m);
  for (double& v : p) v /= sum;
  return p;
}

// Ids sorted best first: higher score, then lower id.
inline std::vector<size_t> best_first(const std::vector<float>& x) {
  std::vector<size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] > x[b]; });
  return order;
}

inline void temperature(std::vector<float>& x, float t) {
  for (float& v : x) v /= t;
}

inline void top_k(std::vector<float>& x, size_t k, size_t min_keep) {
  k = std::min(std::max(k, min_keep), x.size());
  std::vector<float> sorted = x;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  float kth = sorted[k - 1];
  for (float& v : x) if (v < kth) v = -INFINITY;
}

// HF: sort ascending, cumulative softmax, remove cumulative <= 1 - top_p, keep the last min_keep.
inline void top_p(std::vector<float>& x, double p, size_t min_keep) {
  std::vector<size_t> order = best_first(x);
  std::reverse(order.begin(), order.end());  // ascending
  std::vector<double> probs = softmax(x);
  double cumulative = 0;
  std::vector<bool> remove(x.size());
  for (size_t j = 0; j < order.size(); ++j) {
    cumulative += probs[order[j]];
    remove[order[j]] = cumulative <= 1.0 - p && j + min_keep < order.size();
  }
  for (size_t i = 0; i < x.size(); ++i) if (remove[i]) x[i] = -INFINITY;
}

inline void min_p(std::vector<float>& x, double min_p, size_t min_keep) {
  std::vector<double> probs = softmax(x);
  double top = *std::max_element(probs.begin(), probs.end());
  std::vector<size_t> order = best_first(x);
  std::vector<bool> remove(x.size());
  for (size_t j = 0; j < order.size(); ++j) remove[order[j]] = probs[order[j]] < min_p * top && j >= min_keep;
  for (size_t i = 0; i < x.size(); ++i) if (remove[i]) x[i] = -INFINITY;
}

inline void typical_p(std::vector<float>& x, double mass, size_t min_keep) {
  std::vector<double> probs = softmax(x);
  double entropy = 0;
  for (double p : probs) if (p > 0) entropy -= p * std::log(p);
  std::vector<double> score(x.size());
  for (size_t i = 0; i < x.size(); ++i) score[i] = probs[i] > 0 ? std::fabs(-std::log(probs[i]) - entropy) : INFINITY;
  std::vector<size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] < score[b]; });
  size_t last = 0;
  double cumulative = 0;
  for (size_t j = 0; j < order.size(); ++j) {
    cumulative += probs[order[j]];
    if (cumulative < mass) last = j + 1;
  }
  last = std::min(last, order.size() - 1);
  double threshold = score[order[last]];
  for (size_t j = min_keep; j < order.size(); ++j) {
    if (score[order[j]] > threshold) x[order[j]] = -INFINITY;
  }
}

}  // namespace ogai::sampling::reference
