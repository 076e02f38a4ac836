// Candidates: the tokens still in play after filtering, as a reusable scratch list.
//
// The warpers of HF transformers set filtered logits to -inf over the whole vocabulary; ogai keeps
// the survivors (finite logits) in a compact list instead, so that after top-k the remaining steps
// cost O(k), not O(V). A token with logit -inf has probability 0 in both views, so the resulting
// distribution is the same.
//
// The list is in one of three orders. kById (ascending id) and kByRank (logit descending, ties by
// ascending id) are canonical: they depend only on the logits, not on the sort algorithm of the
// standard library, which keeps seeded draws identical across platforms. kUnspecified lists are
// put in id order before a draw.
//
// Memory: reserve(V) allocates the list once and gather_top_k sizes its heap on first use;
// nothing allocates after that. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampling/allowed_tokens.h"

namespace ogai::sampling {

struct Candidate {
  float logit;  // processed score
  float p;      // probability after normalize(); a weight proportional to it after
                // ensure_weights() (see weights_valid())
  float key;    // scratch sort key (typical-p)
  int32_t id;   // token id
};

enum class CandidateOrder { kById, kByRank, kUnspecified };

// Rank order: higher logit first; equal logits by lower id (torch.argmax's tie rule).
inline bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

class Candidates {
 public:
  void reserve(size_t vocab_size);
  size_t capacity() const { return items_.size(); }

  // Every token with a finite logit, in id order. Throws ogai::Error on NaN or +inf.
  void gather_all(std::span<const float> logits);
  // HF top-k: the k highest logits and every logit equal to the k-th (k >= 1), in id order, in
  // O(V log k) without sorting. Throws ogai::Error on NaN or +inf.
  void gather_top_k(std::span<const float> logits, size_t k);
  // The same over the ids `allowed` (constraint.h), forbidden ids counted as -inf: the lists
  // equal those of the row with -inf materialized. O(V / 64 + allowed blocks * 64), or O(allowed)
  // for a listed set (plus O(log k) per heap entry for top-k).
  void gather_all(std::span<const float> logits, const AllowedTokens& allowed);
  void gather_top_k(std::span<const float> logits, size_t k, const AllowedTokens& allowed);
  // HF temperature then top-k, reading the raw row once: the list equals gather_top_k of the row
  // divided by `temperature` (> 0), with logit = x / temperature. One pass: a vector max per
  // block of 64 skips every block no value of which can enter the heap; the values that can are
  // listed as they come (those at most a few ulps below the heap's floor too, which division can
  // round onto the k-th value) and the list is cut to the k-th value at the end. O(V) plus
  // O(log k) per heap entry; `allowed` null: unconstrained.
  void gather_top_k(std::span<const float> logits, size_t k, float temperature, const AllowedTokens* allowed);

  // Every token with logit >= threshold, in id order, with p = weights[id] (weights from
  // DenseWeights, so p is valid). Logits are assumed already checked (no NaN/+inf).
  void gather_at_least(std::span<const float> logits, std::span<const float> weights, float threshold);

  // Softmax of the logits into p (max-subtracted exp_nonpositive, double sum).
  void normalize();
  // Ensures p holds weights proportional to the softmax of the current list (normalized or
  // not): after normalize(), removing entries keeps them valid, so a draw needs no second pass.
  void ensure_weights();
  bool weights_valid() const { return weights_valid_; }
  // Sum of p over the live items, block by block (8 items, pairwise inside) in list order.
  double total_weight() const;
  // The first index whose cumulative p (summed as total_weight() does) exceeds target; when
  // rounding leaves target at the very top, the last item with p > 0; size() when all p are 0.
  size_t find_cumulative(double target) const;
  // Sorts items [from, to) into rank order, given that [0, from) already holds the `from`
  // best-ranked items in order. O(n) selection plus O((to - from) log(to - from)).
  void extend_rank_prefix(size_t from, size_t to);
  // Puts the list in id order (no-op when it is).
  void sort_by_id();

  std::span<Candidate> items() { return {items_.data(), size_}; }
  std::span<const Candidate> items() const { return {items_.data(), size_}; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Keeps the first n items (n <= size()).
  void truncate(size_t n) { size_ = n; }
  CandidateOrder order() const { return order_; }
  void set_order(CandidateOrder order) { order_ = order; }

 private:
  void push(float logit, int32_t id) { items_[size_++] = Candidate{logit, 0.0f, 0.0f, id}; }

  double exp_weights();  // p = exp(logit - max) for every live item; returns their sum
  void start_list();     // empty, in id order, weights invalid
  // The top-k passes over the logits `visit(fn)` hands to fn(x, id) in ascending id order.
  template <class Visit>
  void top_k_passes(Visit&& visit, size_t k);
  // Divides the listed logits by temperature (!= 1); throws when one overflows to infinity.
  void divide(float temperature);
  // Offers x (id) to the top-k heap and list of gather_top_k's single pass.
  struct TopK;

  std::vector<Candidate> items_;  // [V] capacity; the first size_ are live
  std::vector<float> heap_;       // [k] scratch min-heap of gather_top_k
  size_t size_ = 0;
  bool weights_valid_ = false;  // p proportional to exp(logit - max) over the live items
  CandidateOrder order_ = CandidateOrder::kById;
};

// Throws the ogai::Error for a NaN or +inf logit at `id`.
[[noreturn]] void fail_bad_logit(float value, size_t id);

}  // namespace ogai::sampling
