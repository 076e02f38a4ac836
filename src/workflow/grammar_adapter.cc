#include "workflow/grammar_adapter.h"

#include "base/error.h"
#include "workflow/tensor_ops.h"

namespace ogai::workflow {
namespace {

const ort::Tensor& role(const std::map<std::string, const ort::Tensor*>& in, const std::string& name,
                        const std::string& what) {
  auto it = in.find(name);
  if (it == in.end() || !it->second) fail(ErrorCode::kInvalidArgument, what, "grammar adapter needs role '{}'", name);
  return *it->second;
}

class GrammarAdapter final : public Adapter {
 public:
  explicit GrammarAdapter(GrammarAction action) : action_(action) {}
  RoleOutputs run(const AdapterCall& call) const override { return run_grammar(action_, call.inputs, call.what); }

 private:
  GrammarAction action_;
};

}  // namespace

GrammarAction grammar_action(const metadata::Component& component, const std::string& path) {
  const nlohmann::json* action = component.contract ? metadata::find_named(component.contract->parameters, "action") : nullptr;
  const std::string name = action && action->is_string() ? action->get<std::string>() : "";
  if (name == "clone") return GrammarAction::kClone;
  if (name == "lookahead") return GrammarAction::kLookahead;
  if (name == "commit") return GrammarAction::kCommit;
  fail(ErrorCode::kInvalidPackage, path + ".contract.parameters.action",
       "grammar-guidance@1 needs action clone, lookahead or commit, got '{}'", name);
}

std::map<std::string, ort::Tensor> run_grammar(GrammarAction action, const std::map<std::string, const ort::Tensor*>& in,
                                               const std::string& what) {
  const auto state = int_values(role(in, "state", what), what + " state");
  const auto& tokens_t = role(in, "tokens", what);
  const auto tokens = int_values(tokens_t, what + " tokens");
  const auto lengths = int_values(role(in, "valid_length", what), what + " valid_length");
  const auto& table_t = role(in, "transition_table", what);
  const auto table = int_values(table_t, what + " transition_table");
  if (tokens_t.shape().size() != 2 || table_t.shape().size() != 2)
    fail(ErrorCode::kInvalidArgument, what, "grammar tokens and transition_table must be rank 2 (got {} and {})",
         ort::shape_string(tokens_t.shape()), ort::shape_string(table_t.shape()));
  const std::int64_t rows = tokens_t.shape()[0], width = tokens_t.shape()[1];
  const std::int64_t states = table_t.shape()[0], vocab = table_t.shape()[1];
  if (static_cast<std::int64_t>(state.size()) != rows || static_cast<std::int64_t>(lengths.size()) != rows)
    fail(ErrorCode::kInvalidArgument, what, "grammar state and valid_length need {} rows", rows);
  auto next = [&](std::int64_t s, std::int64_t tok) -> std::int64_t {
    if (s < 0 || s >= states || tok < 0 || tok >= vocab) return -1;
    return table[static_cast<std::size_t>(s * vocab + tok)];
  };
  std::map<std::string, ort::Tensor> out;
  out["next_state"] = ort::Tensor::allocate(DataType::kInt64, {rows});
  out["consumed_length"] = ort::Tensor::allocate(DataType::kInt64, {rows});
  out["logits_mask"] = ort::Tensor::allocate(DataType::kBool, {rows, vocab});
  out["forced_tokens"] = ort::Tensor::allocate(DataType::kInt64, {rows, 1});
  out["forced_length"] = ort::Tensor::allocate(DataType::kInt64, {rows});
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t want = action == GrammarAction::kClone ? 0 : lengths[static_cast<std::size_t>(r)];
    if (want < 0 || want > width)
      fail(ErrorCode::kInvalidArgument, what, "row {} asks the grammar to walk {} tokens of {}", r, want, width);
    std::int64_t s = state[static_cast<std::size_t>(r)], walked = 0;
    for (; walked < want; ++walked) {
      const std::int64_t tok = tokens[static_cast<std::size_t>(r * width + walked)];
      const std::int64_t n = next(s, tok);
      if (n < 0) {
        if (action == GrammarAction::kCommit)
          fail(ErrorCode::kInvalidArgument, what, "grammar commit: row {} has rejected token {} in state {}", r, tok, s);
        break;
      }
      s = n;
    }
    out["next_state"].span<std::int64_t>()[static_cast<std::size_t>(r)] = s;
    out["consumed_length"].span<std::int64_t>()[static_cast<std::size_t>(r)] = walked;
    auto mask = out["logits_mask"].span<bool>().subspan(static_cast<std::size_t>(r * vocab), static_cast<std::size_t>(vocab));
    std::int64_t allowed = 0, only = 0;
    for (std::int64_t v = 0; v < vocab; ++v) {
      mask[static_cast<std::size_t>(v)] = next(s, v) >= 0;
      if (mask[static_cast<std::size_t>(v)]) ++allowed, only = v;
    }
    out["forced_tokens"].span<std::int64_t>()[static_cast<std::size_t>(r)] = allowed == 1 ? only : 0;
    out["forced_length"].span<std::int64_t>()[static_cast<std::size_t>(r)] = allowed == 1 ? 1 : 0;
  }
  return out;
}

std::unique_ptr<const Adapter> make_grammar_adapter(const AdapterSite& site) {
  return std::make_unique<GrammarAdapter>(grammar_action(site.component, site.path));
}

}  // namespace ogai::workflow
