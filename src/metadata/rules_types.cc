// Shared rule helpers and V-TYPE: every tensor contract names a v1 dtype, its shape length
// equals its rank, and its batch layout fits it.
#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {

std::string wf_path(std::string_view rest) { return kWorkflowPath + "." + std::string(rest); }

const TensorContract* RuleContext::value_contract(const std::string& name) const {
  auto it = flow.values.find(name);
  return it != flow.values.end() && it->second ? &*it->second : nullptr;
}

bool is_integer_contract(const TensorContract& c) {
  auto t = canonical_dtype(c.dtype);
  return t && is_integer_type(*t);
}

bool is_bool_contract(const TensorContract& c) { return canonical_dtype(c.dtype) == DataType::kBool; }

bool is_float_contract(const TensorContract& c) {
  auto t = canonical_dtype(c.dtype);
  return t && is_float_type(*t);
}

bool is_scalar_or_single(const TensorContract& c) {
  if (c.rank == 0) return true;
  return c.rank == 1 && c.shape && c.shape->size() == 1 && (*c.shape)[0].is_fixed() && (*c.shape)[0].value == 1;
}

namespace {

void check_contract(Diagnostics& d, const TensorContract& c, const std::string& path) {
  if (!canonical_dtype(c.dtype))
    d.report("V-TYPE", path + ".dtype", "'{}' is not a v1 dtype; expected one of float32, float16, bfloat16, "
             "float8_e4m3fn, float8_e4m3, float8_e5m2, int8..int64, uint8..uint64, bool (or an alias such as "
             "fp16, bf16, half)", c.dtype);
  if (c.shape && static_cast<std::int64_t>(c.shape->size()) != c.rank)
    d.report("V-TYPE", path + ".shape", "shape {} has {} dims but rank is {}; the shape length must equal the rank",
             contract_text(c), c.shape->size(), c.rank);
  const BatchLayout& b = c.batch_layout;
  if (b.kind == BatchLayout::Kind::kRequestExpanded && b.factor < 1)
    d.report("V-TYPE", path + ".batch_layout.factor", "request_expanded factor is {}; expected >= 1", b.factor);
  bool has_axis = b.kind == BatchLayout::Kind::kRequestAligned || b.kind == BatchLayout::Kind::kRequestExpanded ||
                  b.kind == BatchLayout::Kind::kTokenPacked;
  if (has_axis && b.axis >= c.rank)
    d.report("V-TYPE", path + ".batch_layout.axis", "{} axis {} is outside a rank-{} tensor", batch_layout_name(b.kind),
             b.axis, c.rank);
}

}  // namespace

void check_types(RuleContext& ctx) {
  Diagnostics& d = ctx.diags;
  for (const auto& [name, in] : ctx.wf.inputs) check_contract(d, in.contract, wf_path("inputs." + name + ".contract"));
  for (const auto& [name, out] : ctx.wf.outputs) check_contract(d, out.contract, wf_path("outputs." + name + ".contract"));
  for (const auto& [name, comp] : ctx.wf.components) {
    for (const auto& [port, c] : comp.ports.inputs) check_contract(d, c, wf_path("components." + name + ".ports.inputs." + port));
    for (const auto& [port, c] : comp.ports.outputs) check_contract(d, c, wf_path("components." + name + ".ports.outputs." + port));
  }
  for (const auto& [name, cell] : ctx.wf.state) check_contract(d, cell.contract, wf_path("state." + name + ".contract"));
}

}  // namespace ogai::metadata::detail
