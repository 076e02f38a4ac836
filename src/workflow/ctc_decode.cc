#include "workflow/ctc_decode.h"

#include <cmath>

#include "base/error.h"
#include "base/half.h"

namespace ogai::workflow {
namespace {

// Logits as float32 values, whatever the float type (a copy only for half types).
struct FloatView {
  std::vector<float> owned;
  std::span<const float> values;
};

FloatView float_values(const ort::Tensor& t, const std::string& where) {
  FloatView v;
  switch (t.dtype()) {
    case DataType::kFloat32:
      v.values = t.span<float>();
      return v;
    case DataType::kFloat16:
    case DataType::kBfloat16: {
      const auto bits = t.span<std::uint16_t>();
      v.owned.resize(bits.size());
      for (std::size_t i = 0; i < bits.size(); ++i)
        v.owned[i] = t.dtype() == DataType::kFloat16 ? half_to_float(bits[i]) : bfloat16_to_float(bits[i]);
      v.values = v.owned;
      return v;
    }
    default:
      fail(ErrorCode::kInvalidArgument, where, "the logits are {}; CTC decoding reads float32, float16 or bfloat16",
           dtype_name(t.dtype()));
  }
}

// The logits' axes: which is the batch (none for rank 2), time and class, with their strides.
struct Layout {
  std::int64_t rows = 1, frames = 0, classes = 0;
  std::int64_t row_stride = 0, frame_stride = 0, class_stride = 0;
};

Layout layout_of(const ort::Shape& shape, const CtcSpec& s) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  if (rank != 2 && rank != 3)
    fail(ErrorCode::kInvalidArgument, s.where, "the logits have shape {}; CTC decoding reads rank 2 [time, class] or "
         "rank 3 (batch, time, class in the declared axis order)", ort::shape_string(shape));
  // Rank 2 is one row: the declared axes count in a [batch, ...] layout, so shift them down.
  const std::int64_t shift = rank == 2 ? 1 : 0;
  const std::int64_t time = s.time_axis - shift, cls = s.class_axis - shift;
  if (time < 0 || time >= rank || cls < 0 || cls >= rank)
    fail(ErrorCode::kInvalidArgument, s.where, "time_axis {} / class_axis {} are outside the logits' shape {}",
         s.time_axis, s.class_axis, ort::shape_string(shape));
  std::vector<std::int64_t> strides(rank, 1);
  for (std::int64_t a = rank - 2; a >= 0; --a) strides[a] = strides[a + 1] * shape[a + 1];
  Layout l;
  l.frames = shape[time];
  l.classes = shape[cls];
  l.frame_stride = strides[time];
  l.class_stride = strides[cls];
  if (rank == 3) {
    const std::int64_t batch = 3 - time - cls;  // the remaining axis
    l.rows = shape[batch];
    l.row_stride = strides[batch];
  }
  return l;
}

std::vector<std::int64_t> valid_frames(const ort::Tensor* lengths, const Layout& l, const std::string& where) {
  std::vector<std::int64_t> out(l.rows, l.frames);
  if (lengths == nullptr) return out;
  std::vector<std::int64_t> values;
  if (lengths->dtype() == DataType::kInt64) {
    const auto s = lengths->span<std::int64_t>();
    values.assign(s.begin(), s.end());
  } else if (lengths->dtype() == DataType::kInt32) {
    const auto s = lengths->span<std::int32_t>();
    values.assign(s.begin(), s.end());
  } else {
    fail(ErrorCode::kInvalidArgument, where + ".lengths", "the lengths are {}; int64 or int32 expected",
         dtype_name(lengths->dtype()));
  }
  if (static_cast<std::int64_t>(values.size()) != l.rows)
    fail(ErrorCode::kInvalidArgument, where + ".lengths", "{} lengths {} for {} rows of logits", values.size(),
         ort::shape_string(lengths->shape()), l.rows);
  for (std::int64_t r = 0; r < l.rows; ++r) {
    if (values[r] < 0 || values[r] > l.frames)
      fail(ErrorCode::kInvalidArgument, where + ".lengths", "row {} has length {}, outside [0, {}] frames", r,
           values[r], l.frames);
    out[r] = values[r];
  }
  return out;
}

// The argmax class of one frame (the lowest id among equal maxima); NaN logits are an error.
std::int64_t argmax(std::span<const float> v, std::int64_t base, const Layout& l, const std::string& where,
                    std::int64_t row, std::int64_t frame) {
  std::int64_t best = 0;
  float best_value = 0;
  for (std::int64_t c = 0; c < l.classes; ++c) {
    const float x = v[base + c * l.class_stride];
    if (std::isnan(x)) fail(ErrorCode::kInvalidArgument, where, "row {} frame {} class {} is NaN", row, frame, c);
    if (c == 0 || x > best_value) {
      best = c;
      best_value = x;
    }
  }
  return best;
}

}  // namespace

CtcDecoder::CtcDecoder(CtcSpec spec) : spec_(std::move(spec)) {
  if (spec_.time_axis == spec_.class_axis)
    fail(ErrorCode::kInvalidPackage, spec_.where, "time_axis and class_axis are both {}", spec_.time_axis);
}

std::string CtcDecoder::render(const std::vector<std::int64_t>& ids) const {
  std::vector<std::string> words(1);
  for (std::int64_t id : ids) {
    if (id < 0 || id >= static_cast<std::int64_t>(spec_.tokens.size()))
      fail(ErrorCode::kInvalidArgument, spec_.where + ".vocabulary", "class id {} is outside the vocabulary of {} "
           "tokens", id, spec_.tokens.size());
    const std::string& token = spec_.tokens[id];
    if (spec_.ignored_tokens.count(token)) continue;
    if (spec_.word_delimiter && token == *spec_.word_delimiter) {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    words.back() += token;
  }
  std::string text;
  for (const std::string& w : words) {
    if (w.empty()) continue;
    if (!text.empty()) text += ' ';
    text += w;
  }
  return text;
}

std::vector<RowTranscript> CtcDecoder::decode(const ort::Tensor& logits, const ort::Tensor* lengths) const {
  const Layout l = layout_of(logits.shape(), spec_);
  if (spec_.classes && *spec_.classes != l.classes)
    fail(ErrorCode::kInvalidArgument, spec_.where + ".vocabulary.size", "the logits have {} classes, the vocabulary "
         "declares {}", l.classes, *spec_.classes);
  if (l.classes == 0 && l.frames > 0)
    fail(ErrorCode::kInvalidArgument, spec_.where, "the logits have no classes");
  const FloatView v = float_values(logits, spec_.where);
  const std::vector<std::int64_t> frames = valid_frames(lengths, l, spec_.where);
  std::vector<RowTranscript> out(l.rows);
  for (std::int64_t r = 0; r < l.rows; ++r) {
    std::vector<std::int64_t>& ids = out[r].ids;
    std::optional<std::int64_t> previous;
    for (std::int64_t t = 0; t < frames[r]; ++t) {
      const std::int64_t id = argmax(v.values, r * l.row_stride + t * l.frame_stride, l, spec_.where, r, t);
      const bool repeat = previous && *previous == id;
      previous = id;
      if (spec_.collapse_repeats && repeat) continue;
      if (spec_.blank_removed && id == spec_.blank_id) continue;
      ids.push_back(id);
    }
    out[r].text = render(ids);
  }
  return out;
}

}  // namespace ogai::workflow
