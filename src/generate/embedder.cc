#include "generate/embedder.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/error.h"
#include "base/half.h"
#include "generate/index_feed.h"
#include "kv/kv_cache.h"

namespace ogai::generate {
namespace {

constexpr std::int64_t kPaddingPosition = 1;  // what the decoder feeds at masked positions

bool is_float(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16 || t == DataType::kBfloat16; }

std::string row_name(std::size_t i) { return "input[" + std::to_string(i) + "]"; }

// The feeds of one run: right-padded rows of `width` positions.
struct Feeds {
  std::vector<TokenId> tokens;
  std::vector<std::int64_t> mask, positions, lengths;  // lengths: [write indices, cache lengths]
  std::vector<std::int64_t> wide_ids;                  // the tokens for an int64 port
  std::vector<TokenId> narrow[2];                      // mask, positions for int32 ports
};

Feeds build_feeds(std::span<const std::vector<TokenId>> inputs, std::span<const std::size_t> rows, std::int64_t width) {
  const std::size_t b = rows.size(), w = static_cast<std::size_t>(width);
  Feeds f;
  f.tokens.assign(b * w, 0);
  f.mask.assign(b * w, 0);
  f.positions.assign(b * w, kPaddingPosition);
  for (std::size_t r = 0; r < b; ++r) {
    const auto& ids = inputs[rows[r]];
    for (std::size_t p = 0; p < ids.size(); ++p) {
      f.tokens[r * w + p] = ids[p];
      f.mask[r * w + p] = 1;
      f.positions[r * w + p] = static_cast<std::int64_t>(p);
    }
  }
  f.lengths.assign(b, 0);          // write at the start of every row's (empty) cache
  f.lengths.resize(2 * b, width);  // valid lengths after the run, as Decoder::step counts them
  return f;
}

// Position `pos` of row `row` of `hidden` [batch, seq, h], added into `sum` (double).
void add_position(const ort::Tensor& hidden, std::int64_t row, std::int64_t pos, std::vector<double>& sum,
                  std::vector<float>& scratch) {
  const auto& shape = hidden.shape();
  const std::size_t h = static_cast<std::size_t>(shape[2]);
  const std::size_t offset = static_cast<std::size_t>((row * shape[1] + pos) * shape[2]);
  const auto* bytes = static_cast<const std::uint8_t*>(hidden.raw_data()) + offset * dtype_size(hidden.dtype());
  scratch.resize(h);
  convert_floats(bytes, hidden.dtype(), scratch.data(), DataType::kFloat32, h);
  for (std::size_t i = 0; i < h; ++i) sum[i] += scratch[i];
}

}  // namespace

Embedder::Embedder(const Decoder& decoder, std::string hidden_output)
    : decoder_(decoder), hidden_output_(std::move(hidden_output)) {
  const ort::Session& s = decoder_.session();
  const ort::PortInfo* port = s.find_output(hidden_output_);
  if (port == nullptr)
    fail(ErrorCode::kInvalidPackage, s.origin(), "the hidden_states port '{}' is not an output of the graph",
         hidden_output_);
  if (!is_float(port->dtype) || port->shape.size() != 3)
    fail(ErrorCode::kInvalidPackage, s.origin(),
         "the hidden_states output '{}' is {} of rank {}, expected float32, float16 or bfloat16 [batch, seq, hidden]",
         hidden_output_, dtype_name(port->dtype), port->shape.size());
  width_ = std::max<std::int64_t>(port->shape[2], 0);
  const ort::PortInfo* tokens = s.find_input(decoder_.spec().token_input);
  batches_ = tokens == nullptr || tokens->shape.empty() || tokens->shape[0] != 1;
}

void Embedder::check(std::span<const std::vector<TokenId>> inputs) const {
  const DecoderSpec& spec = decoder_.spec();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& ids = inputs[i];
    if (ids.empty()) fail(ErrorCode::kInvalidArgument, row_name(i), "the input has no tokens");
    const auto n = static_cast<std::int64_t>(ids.size());
    if (spec.max_length > 0 && n > spec.max_length)
      fail(ErrorCode::kInvalidArgument, row_name(i),
           "the input has {} tokens, more than the model's context of {} "
           "positions",
           n, spec.max_length);
    for (std::size_t j = 0; j < ids.size(); ++j)
      if (ids[j] < 0 || (spec.vocab_size > 0 && ids[j] >= spec.vocab_size))
        fail(ErrorCode::kInvalidArgument, row_name(i), "token {} ({}) is not a token id in [0, {})", j, ids[j],
             spec.vocab_size);
  }
}

void Embedder::run(std::span<const std::vector<TokenId>> inputs, std::span<const std::size_t> rows, Pooling pooling,
                   std::vector<std::vector<float>>& out) const {
  const DecoderSpec& spec = decoder_.spec();
  const auto batch = static_cast<std::int64_t>(rows.size());
  std::int64_t seq = 0;
  for (std::size_t r : rows) seq = std::max(seq, static_cast<std::int64_t>(inputs[r].size()));
  Feeds f = build_feeds(inputs, rows, seq);
  std::vector<std::string> names;
  std::vector<ort::Tensor> owned;
  owned.reserve(6);
  names.push_back(spec.token_input);
  owned.push_back(ids_feed(spec.token_dtype, {batch, seq}, f.tokens, f.wide_ids, spec.token_input));
  if (!spec.mask_input.empty()) {
    names.push_back(spec.mask_input);
    owned.push_back(index_feed(spec.mask_dtype, {batch, seq}, f.mask, f.narrow[0], spec.mask_input));
  }
  if (!spec.position_input.empty()) {
    names.push_back(spec.position_input);
    owned.push_back(index_feed(spec.position_dtype, {batch, seq}, f.positions, f.narrow[1], spec.position_input));
  }
  if (!spec.write_indices_input.empty()) {
    names.push_back(spec.write_indices_input);
    owned.push_back(ort::Tensor::view(DataType::kInt64, {batch}, f.lengths.data()));
  }
  if (!spec.cache_lengths_input.empty()) {
    names.push_back(spec.cache_lengths_input);
    owned.push_back(ort::Tensor::view(DataType::kInt64, {batch}, f.lengths.data() + batch));
  }
  std::int64_t one_row = 1;  // a cut graph computes one row of logits (unread; the hidden state is)
  if (!decoder_.keep_input().empty()) {
    names.push_back(decoder_.keep_input());
    owned.push_back(ort::Tensor::view(DataType::kInt64, {1}, &one_row));
  }
  kv::KvCache cache(spec.cache, batch);  // empty pasts; the presents are produced and dropped
  cache.reserve(seq);
  std::vector<const ort::Tensor*> feeds;
  for (const auto& t : owned) feeds.push_back(&t);
  for (const auto& past : cache.pasts()) feeds.push_back(&past);
  std::vector<std::string> output_names{hidden_output_};
  for (const auto& pair : spec.cache.pairs) {
    names.push_back(pair.input);
    output_names.push_back(pair.output);
  }
  std::vector<ort::Tensor> outputs(output_names.size());
  cache.bind_presents(std::span<ort::Tensor>(outputs).subspan(1));
  decoder_.session().run_into(names, feeds, output_names, outputs);
  const ort::Tensor& hidden = outputs[0];
  const auto& shape = hidden.shape();
  if (shape.size() != 3 || shape[0] != batch || shape[1] != seq || shape[2] <= 0 || (width_ > 0 && shape[2] != width_))
    fail(ErrorCode::kInvalidPackage, decoder_.session().origin(),
         "the hidden_states output '{}' is {}, expected "
         "[{}, {}, hidden]",
         hidden_output_, ort::shape_string(shape), batch, seq);
  std::vector<double> sum;
  std::vector<float> scratch;
  for (std::int64_t r = 0; r < batch; ++r) {
    const auto n = static_cast<std::int64_t>(inputs[rows[static_cast<std::size_t>(r)]].size());
    sum.assign(static_cast<std::size_t>(shape[2]), 0.0);
    const std::int64_t first = pooling == Pooling::kLast ? n - 1 : 0;
    for (std::int64_t p = first; p < n; ++p) add_position(hidden, r, p, sum, scratch);
    auto& v = out[rows[static_cast<std::size_t>(r)]];
    v.resize(sum.size());
    const double count = static_cast<double>(n - first);
    for (std::size_t i = 0; i < sum.size(); ++i) v[i] = static_cast<float>(sum[i] / count);
  }
}

std::vector<std::vector<float>> Embedder::embed(std::span<const std::vector<TokenId>> inputs, Pooling pooling,
                                                bool normalize, const std::function<bool()>& cancelled) const {
  check(inputs);
  std::vector<std::vector<float>> out(inputs.size());
  std::vector<std::size_t> order(inputs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return inputs[a].size() < inputs[b].size(); });
  std::size_t begin = 0;
  while (begin < order.size()) {
    std::size_t end = begin + 1;
    // Sorted by length: the run's width is its last row's length.
    while (batches_ && end < order.size() && static_cast<std::int64_t>(end - begin) < kMaxRows &&
           static_cast<std::int64_t>(end - begin + 1) * static_cast<std::int64_t>(inputs[order[end]].size()) <=
               kBatchTokens)
      ++end;
    if (cancelled && cancelled()) fail(ErrorCode::kCancelled, "embed", "cancelled: the caller left");
    run(inputs, std::span<const std::size_t>(order).subspan(begin, end - begin), pooling, out);
    begin = end;
  }
  if (normalize)
    for (auto& v : out) {
      double norm = 0;
      for (float x : v) norm += static_cast<double>(x) * x;
      norm = std::sqrt(norm);
      if (norm > 0)
        for (float& x : v) x = static_cast<float>(x / norm);
    }
  return out;
}

}  // namespace ogai::generate
