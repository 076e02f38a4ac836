// Tensor contracts of the v1 metadata (§2.3): dtype, rank, optional shape and batch layout, plus
// the small helpers every rule uses to compare them. Plain value types; thread-safe to read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/dtype.h"

namespace ogai::metadata {

// A map as written in the document: (name, value) pairs in document order. Names are unique (the
// tree reader refuses duplicate keys).
template <class T>
using NamedMap = std::vector<std::pair<std::string, T>>;

template <class T>
const T* find_named(const NamedMap<T>& map, std::string_view name) {
  for (const auto& [key, value] : map)
    if (key == name) return &value;
  return nullptr;
}

// One declared dimension: a fixed size (>= 0) or a symbol ("batch").
struct ShapeDim {
  std::int64_t value = -1;  // >= 0 when fixed
  std::string symbol;       // non-empty when symbolic
  bool is_fixed() const { return value >= 0; }
  bool operator==(const ShapeDim&) const = default;
};

struct BatchLayout {
  enum class Kind { kShared, kRequestAligned, kRequestExpanded, kTokenPacked, kRuntimeSequenceState };
  Kind kind = Kind::kShared;
  std::int64_t axis = 0;    // request_aligned / request_expanded / token_packed
  std::int64_t factor = 1;  // request_expanded
  std::string offsets, owner;  // token_packed companions
  bool operator==(const BatchLayout&) const = default;
  bool is_request_aligned() const { return kind == Kind::kRequestAligned; }
};

const char* batch_layout_name(BatchLayout::Kind kind);

struct TensorContract {
  std::string dtype;  // as written; see canonical_dtype()
  std::int64_t rank = 0;
  std::optional<std::vector<ShapeDim>> shape;  // when present, size() == rank (V-TYPE)
  bool optional = false;
  BatchLayout batch_layout;
};

// The ONNX element type for a metadata dtype name or alias ("fp16", "half", "bf16",
// "fp8_e4m3fn", ...); nullopt for names outside the v1 vocabulary.
std::optional<DataType> canonical_dtype(std::string_view name);

// "float16[batch, 2, past_sequence, 8]" for messages.
std::string contract_text(const TensorContract& contract);

// Whether two contracts can carry the same value: equal dtype (aliases normalized), equal rank,
// equal fixed dims where both sides fix a dim. `skip_axis` (>= 0) is ignored in the dim check.
// Unknown dtypes compare by spelling.
bool contracts_compatible(const TensorContract& a, const TensorContract& b, std::int64_t skip_axis = -1);

}  // namespace ogai::metadata
