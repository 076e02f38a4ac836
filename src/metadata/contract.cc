#include "metadata/contract.h"

#include <fmt/format.h>

#include <map>

#include "metadata/parse_internal.h"

namespace ogai::metadata {

const char* batch_layout_name(BatchLayout::Kind kind) {
  switch (kind) {
    case BatchLayout::Kind::kShared: return "shared";
    case BatchLayout::Kind::kRequestAligned: return "request_aligned";
    case BatchLayout::Kind::kRequestExpanded: return "request_expanded";
    case BatchLayout::Kind::kTokenPacked: return "token_packed";
    case BatchLayout::Kind::kRuntimeSequenceState: return "runtime_sequence_state";
  }
  return "?";
}

std::optional<DataType> canonical_dtype(std::string_view name) {
  static const std::map<std::string_view, DataType> kNames = {
      {"float32", DataType::kFloat32}, {"fp32", DataType::kFloat32},
      {"float16", DataType::kFloat16}, {"fp16", DataType::kFloat16}, {"half", DataType::kFloat16},
      {"bfloat16", DataType::kBfloat16}, {"bf16", DataType::kBfloat16},
      {"float8_e4m3fn", DataType::kFloat8E4M3FN}, {"fp8_e4m3fn", DataType::kFloat8E4M3FN},
      {"float8_e4m3", DataType::kFloat8E4M3FN}, {"fp8_e4m3", DataType::kFloat8E4M3FN},
      {"float8_e5m2", DataType::kFloat8E5M2}, {"fp8_e5m2", DataType::kFloat8E5M2},
      {"int8", DataType::kInt8}, {"int16", DataType::kInt16}, {"int32", DataType::kInt32},
      {"int64", DataType::kInt64}, {"uint8", DataType::kUint8}, {"uint16", DataType::kUint16},
      {"uint32", DataType::kUint32}, {"uint64", DataType::kUint64}, {"bool", DataType::kBool},
  };
  auto it = kNames.find(name);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

std::string contract_text(const TensorContract& c) {
  if (!c.shape) return fmt::format("{} rank {}", c.dtype, c.rank);
  std::vector<std::string> dims;
  for (const auto& d : *c.shape) dims.push_back(d.is_fixed() ? std::to_string(d.value) : d.symbol);
  return fmt::format("{}[{}]", c.dtype, fmt::join(dims, ", "));
}

bool contracts_compatible(const TensorContract& a, const TensorContract& b, std::int64_t skip_axis) {
  auto da = canonical_dtype(a.dtype), db = canonical_dtype(b.dtype);
  if (da && db ? *da != *db : a.dtype != b.dtype) return false;
  if (a.rank != b.rank) return false;
  if (!a.shape || !b.shape) return true;
  for (std::size_t i = 0; i < a.shape->size() && i < b.shape->size(); ++i) {
    if (static_cast<std::int64_t>(i) == skip_axis) continue;
    const ShapeDim &x = (*a.shape)[i], &y = (*b.shape)[i];
    if (x.is_fixed() && y.is_fixed() && x.value != y.value) return false;
  }
  return true;
}

namespace detail {
namespace {

BatchLayout read_batch_layout(Reader& r, const Node* node, const std::string& path) {
  BatchLayout layout;
  Fields f(r, node, path);
  if (!f.present()) return layout;
  auto kind = f.choice("kind", {"shared", "request_aligned", "request_expanded", "token_packed",
                                "runtime_sequence_state"}, true);
  layout.kind = static_cast<BatchLayout::Kind>(kind.value_or(0));
  switch (layout.kind) {
    case BatchLayout::Kind::kRequestAligned:
      layout.axis = f.integer("axis", 0, true).value_or(0);
      break;
    case BatchLayout::Kind::kRequestExpanded:
      layout.axis = f.integer("axis", 0, true).value_or(0);
      layout.factor = f.integer("factor", INT64_MIN, true).value_or(1);
      break;
    case BatchLayout::Kind::kTokenPacked:
      layout.axis = f.integer("axis", 0, true).value_or(0);
      layout.offsets = f.string_or("offsets", "", true);
      layout.owner = f.string_or("owner", "", true);
      break;
    default: break;
  }
  return layout;
}

std::vector<ShapeDim> read_shape(Reader& r, const Node& node, const std::string& path) {
  std::vector<ShapeDim> dims;
  r.items(&node, path, [&](std::size_t, const Node& item, const std::string& item_path) {
    ShapeDim dim;
    if (item.kind == Node::Kind::kInt && item.integer >= 0) dim.value = item.integer;
    else if (item.kind == Node::Kind::kString && !item.text.empty()) dim.symbol = item.text;
    else r.error(item_path, fmt::format("a dimension is a non-negative integer or a non-empty symbol, got {} {}",
                                        node_kind_name(item.kind), node_preview(item)));
    dims.push_back(dim);
  });
  return dims;
}

}  // namespace

TensorContract read_contract(Reader& r, const Node* node, const std::string& path) {
  TensorContract c;
  Fields f(r, node, path, {{"padding", "not part of the v1 contract"}});
  if (!f.present()) {
    if (!node) r.error(path, "required tensor contract is missing");
    return c;
  }
  c.dtype = f.string_or("dtype", "", true);
  c.rank = f.integer("rank", 0, true).value_or(0);
  if (const Node* shape = f.get("shape")) c.shape = read_shape(r, *shape, f.at("shape"));
  c.optional = f.boolean("optional", false);
  c.batch_layout = read_batch_layout(r, f.get("batch_layout"), f.at("batch_layout"));
  return c;
}

}  // namespace detail
}  // namespace ogai::metadata
