#include "workflow/lora_overlay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "base/error.h"
#include "workflow/tensor_ops.h"

namespace ogai::workflow {
namespace {

const ort::Tensor& need(const ValueLookup& lookup, const std::string& name, const std::string& what) {
  const ort::Tensor* t = lookup(name);
  if (!t)
    fail(ErrorCode::kInvalidArgument, what,
         "adapter selection input '{}' is absent (pass the selection tensors, or name adapters per row)", name);
  return *t;
}

std::vector<std::int64_t> ints(const ort::Tensor& t, const std::string& name, std::size_t count, const std::string& what) {
  if (t.dtype() != DataType::kInt64)
    fail(ErrorCode::kInvalidArgument, what, "adapter selection input '{}' must be int64, got {}", name, dtype_name(t.dtype()));
  if (static_cast<std::size_t>(t.element_count()) != count)
    fail(ErrorCode::kInvalidArgument, what, "adapter selection input '{}' has shape {}; expected {} values", name,
         ort::shape_string(t.shape()), count);
  auto s = t.span<std::int64_t>();
  return {s.begin(), s.end()};
}

std::vector<float> floats(const ort::Tensor& t, const std::string& name, std::size_t count, const std::string& what) {
  if (t.dtype() != DataType::kFloat32)
    fail(ErrorCode::kInvalidArgument, what, "adapter selection input '{}' must be float32, got {}", name, dtype_name(t.dtype()));
  if (static_cast<std::size_t>(t.element_count()) != count)
    fail(ErrorCode::kInvalidArgument, what, "adapter selection input '{}' has shape {}; expected {} values", name,
         ort::shape_string(t.shape()), count);
  auto s = t.span<float>();
  return {s.begin(), s.end()};
}

std::vector<LoraActivation> row_of(const LoraContract& c, std::size_t r, std::int64_t count, const std::int64_t* ids,
                                   const float* scales, const std::string& what) {
  const auto k = static_cast<std::size_t>(c.max_adapters);
  if (count < 0 || static_cast<std::size_t>(count) > k)
    fail(ErrorCode::kInvalidArgument, what, "'{}' row {} is {}; expected 0..{} (max_adapters)", c.counts, r, count, k);
  std::vector<LoraActivation> row;
  for (std::size_t s = 0; s < k; ++s) {
    if (s < static_cast<std::size_t>(count)) {
      const LoraArtifact* a = c.by_index(ids[s]);
      if (!a) fail(ErrorCode::kInvalidArgument, what, "'{}' row {} slot {} is adapter index {}, which no artifact declares", c.segments, r, s, ids[s]);
      row.push_back({a->alias, scales[s]});
    } else if (ids[s] != -1 || scales[s] != 0.0f) {
      fail(ErrorCode::kInvalidArgument, what, "row {} slot {} is unused (count {}) and must be padded with index -1 and scale 0; got {} and {}",
           r, s, count, ids[s], scales[s]);
    }
  }
  return row;
}

}  // namespace

LoraSelection lora_rows(const LoraContract& c, const ValueLookup& lookup, const std::string& what) {
  const ort::Tensor& counts_t = need(lookup, c.counts, what);
  if (counts_t.shape().size() != 1)
    fail(ErrorCode::kInvalidArgument, what, "'{}' must be int64[batch], got shape {}", c.counts, ort::shape_string(counts_t.shape()));
  const auto batch = static_cast<std::size_t>(counts_t.element_count());
  const auto k = static_cast<std::size_t>(c.max_adapters);
  const auto counts = ints(counts_t, c.counts, batch, what);
  const auto ids = ints(need(lookup, c.segments, what), c.segments, batch * k, what);
  const auto scales = floats(need(lookup, c.scales, what), c.scales, batch * k, what);
  LoraSelection out;
  out.active.assign(batch, true);
  if (c.active) {
    const ort::Tensor& t = need(lookup, *c.active, what);
    if (static_cast<std::size_t>(t.element_count()) != batch)
      fail(ErrorCode::kInvalidArgument, what, "'{}' has shape {}; expected {} rows", *c.active, ort::shape_string(t.shape()), batch);
    out.active = bool_values(t, what + " '" + *c.active + "'");
  }
  for (std::size_t r = 0; r < batch; ++r) out.rows.push_back(row_of(c, r, counts[r], &ids[r * k], &scales[r * k], what));
  return out;
}

std::vector<std::pair<std::string, ort::Tensor>> lora_selection_tensors(const LoraContract& c, const LoraRows& rows,
                                                                         const std::string& what) {
  const auto k = static_cast<std::size_t>(c.max_adapters);
  const auto b = static_cast<std::int64_t>(rows.size());
  std::vector<std::int64_t> ids(rows.size() * k, -1), counts(rows.size(), 0);
  std::vector<float> scales(rows.size() * k, 0.0f);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() > k)
      fail(ErrorCode::kInvalidArgument, what, "row {} names {} adapters; adapters.selection.max_adapters is {}", r, rows[r].size(), k);
    counts[r] = static_cast<std::int64_t>(rows[r].size());
    for (std::size_t s = 0; s < rows[r].size(); ++s) {
      const LoraArtifact* a = c.by_alias(rows[r][s].alias);
      if (!a) fail(ErrorCode::kInvalidArgument, what, "row {} names unknown adapter '{}' (declared: {})", r, rows[r][s].alias, c.aliases());
      ids[r * k + s] = a->index;
      scales[r * k + s] = rows[r][s].scale;
    }
  }
  const auto kk = static_cast<std::int64_t>(k);
  std::vector<std::pair<std::string, ort::Tensor>> out;
  out.emplace_back(c.segments, ort::Tensor::copy_of(std::span<const std::int64_t>(ids), {b, kk}));
  out.emplace_back(c.counts, ort::Tensor::copy_of(std::span<const std::int64_t>(counts), {b}));
  out.emplace_back(c.scales, ort::Tensor::copy_of(std::span<const float>(scales), {b, kk}));
  if (c.active) {
    ort::Tensor active = ort::Tensor::allocate(DataType::kBool, {b});
    for (auto& v : active.span<bool>()) v = true;
    out.emplace_back(*c.active, std::move(active));
  }
  return out;
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char ch : s) {
    if (ch == sep) out.emplace_back();
    else out.back() += ch;
  }
  return out;
}

LoraActivation parse_entry(const std::string& entry, std::size_t row, const std::string& what) {
  const auto colon = entry.find(':');
  LoraActivation a{entry.substr(0, colon), 1.0f};
  if (a.alias.empty()) fail(ErrorCode::kInvalidArgument, what, "row {}: '{}' names no adapter (expected NAME[:SCALE])", row, entry);
  if (colon == std::string::npos) return a;
  const std::string scale = entry.substr(colon + 1);
  char* end = nullptr;
  a.scale = std::strtof(scale.c_str(), &end);
  if (scale.empty() || end != scale.c_str() + scale.size())
    fail(ErrorCode::kInvalidArgument, what, "row {}: scale '{}' of adapter '{}' is not a number", row, scale, a.alias);
  return a;
}

}  // namespace

LoraRows parse_lora_rows(const std::string& spec, const std::string& what) {
  if (spec.size() > (1u << 20)) fail(ErrorCode::kInvalidArgument, what, "the adapter list is longer than 1 MiB");
  LoraRows rows;
  for (const std::string& row : split(spec, ';')) {
    rows.emplace_back();
    if (row.empty() || row == "-") continue;
    for (const std::string& entry : split(row, ',')) rows.back().push_back(parse_entry(entry, rows.size() - 1, what));
  }
  return rows;
}

namespace {

// y[o] += scale * factor * sum_r B[o, r] * (sum_f A[r, f] x[f]), in the reference's order.
void add_update(const LoraFactors& f, float scale, const float* x, float* y, std::vector<float>& low) {
  low.assign(static_cast<std::size_t>(f.rank), 0.0f);
  for (std::int64_t r = 0; r < f.rank; ++r)
    for (std::int64_t i = 0; i < f.input_features; ++i) low[r] += x[i] * f.a[r * f.input_features + i];
  for (std::int64_t o = 0; o < f.output_features; ++o) {
    float delta = 0.0f;
    for (std::int64_t r = 0; r < f.rank; ++r) delta += f.b[o * f.rank + r] * low[r];
    y[o] += scale * f.factor * delta;
  }
}

}  // namespace

ort::Tensor apply_overlay(const PreparedRows& rows, const std::string& component, const std::string& initializer,
                          const ort::Tensor& x, std::int64_t out_features, const std::string& what) {
  if (x.dtype() != DataType::kFloat32)
    fail(ErrorCode::kInvalidArgument, what, "the overlay input must be float32 (the portable overlay runs on the host), got {}",
         dtype_name(x.dtype()));
  const auto& shape = x.shape();
  if (shape.size() < 2) fail(ErrorCode::kInvalidArgument, what, "the overlay input must be [batch, ..., features], got shape {}", ort::shape_string(shape));
  const std::int64_t batch = shape[0], in = shape.back(), out = out_features > 0 ? out_features : in;
  if (static_cast<std::int64_t>(rows.size()) != batch)
    fail(ErrorCode::kInvalidArgument, what, "the adapter selection has {} rows but the overlay input has batch {}", rows.size(), batch);
  const std::int64_t inner = batch ? x.element_count() / (batch * std::max<std::int64_t>(in, 1)) : 0;
  ort::Shape out_shape = shape;
  out_shape.back() = out;
  ort::Tensor y = ort::Tensor::zeros(DataType::kFloat32, out_shape);
  const float* src = x.span<float>().data();
  float* dst = y.span<float>().data();
  std::vector<float> low;
  for (std::int64_t r = 0; r < batch; ++r) {
    if (rows[r].empty() && in != out)
      fail(ErrorCode::kInvalidArgument, what, "row {} selects no adapter, but the target maps {} features to {}: there is no base to pass through", r, in, out);
    std::vector<const LoraFactors*> factors;
    for (const auto& p : rows[r]) {
      auto it = p.weights->targets.find({component, initializer});
      if (it == p.weights->targets.end())
        fail(ErrorCode::kInvalidArgument, what, "adapter '{}' (row {}) does not target parameter '{}.{}'", p.weights->alias, r, component, initializer);
      if (it->second.input_features != in || it->second.output_features != out)
        fail(ErrorCode::kInvalidArgument, what, "adapter '{}' target '{}.{}' expects [{}, {}] features, the overlay has [{}, {}]",
             p.weights->alias, component, initializer, it->second.input_features, it->second.output_features, in, out);
      factors.push_back(&it->second);
    }
    for (std::int64_t m = 0; m < inner; ++m) {
      const float* xr = src + (r * inner + m) * in;
      float* yr = dst + (r * inner + m) * out;
      if (in == out) std::copy(xr, xr + in, yr);
      for (std::size_t i = 0; i < factors.size(); ++i) add_update(*factors[i], rows[r][i].scale, xr, yr, low);
    }
  }
  return y;
}

}  // namespace ogai::workflow
