// Derivation of the flat decode ABI from a workflow (legacy model.io: decoder_abi_legacy.cc).
#include "metadata/decoder_abi.h"

#include <algorithm>
#include <set>

#include "metadata/decoder_abi_internal.h"

namespace ogai::metadata {

const char* update_kind_name(UpdateKind kind) {
  switch (kind) {
    case UpdateKind::kGrow: return "grow";
    case UpdateKind::kAppend: return "append";
    case UpdateKind::kReplace: return "replace";
    case UpdateKind::kIndexedScatter: return "indexed_scatter";
  }
  return "?";
}

PortGeometry port_geometry(const onnx::ValueInfo& value, std::int64_t sequence_axis) {
  PortGeometry g;
  g.dtype = value.dtype;
  g.sequence_axis = sequence_axis;
  if (!value.has_shape) return g;
  g.rank = value.rank();
  for (const auto& d : value.shape) {
    g.dims.push_back(d.is_fixed() ? d.value : -1);
    g.symbols.push_back(d.is_fixed() ? "" : d.symbol);
  }
  // Head axis of a rank-4 KV tensor: the axis that is neither batch, sequence nor head_dim
  // ([B, H, S, D] for bnsh, [B, S, H, D] for bsnh). Lower ranks have no head axis.
  if (g.rank == 4) g.kv_heads = g.dims[sequence_axis == 1 ? 2 : 1];
  if (g.rank >= 3) g.head_dim = g.dims.back();
  return g;
}

namespace detail {

const onnx::GraphInfo* graph_of(const AbiInputs& in, const std::string& component) {
  auto it = in.graphs.find(component);
  return it == in.graphs.end() ? nullptr : &it->second;
}

PortGeometry input_geometry(const AbiInputs& in, const std::string& component, const std::string& port, std::int64_t axis) {
  const onnx::GraphInfo* g = graph_of(in, component);
  const onnx::ValueInfo* v = g ? g->find_input(port) : nullptr;
  return v ? port_geometry(*v, axis) : PortGeometry{DataType::kUndefined, -1, {}, {}, -1, -1, axis};
}

PortGeometry output_geometry(const AbiInputs& in, const std::string& component, const std::string& port, std::int64_t axis) {
  const onnx::GraphInfo* g = graph_of(in, component);
  const onnx::ValueInfo* v = g ? g->find_output(port) : nullptr;
  return v ? port_geometry(*v, axis) : PortGeometry{DataType::kUndefined, -1, {}, {}, -1, -1, axis};
}

}  // namespace detail

namespace {

using detail::AbiInputs;

// The single port of `c` that carries `role`; several claimants resolve only when exactly one of
// them is a declared port.
std::optional<std::string> port_with_role(const Component& c, PortRole role, bool input) {
  std::vector<std::string> claimants;
  for (const auto& [port, r] : c.ports.roles)
    if (r == role) claimants.push_back(port);
  if (claimants.size() == 1) return claimants[0];
  const auto& declared = input ? c.ports.inputs : c.ports.outputs;
  std::vector<std::string> contracted;
  for (const auto& port : claimants)
    if (find_named(declared, port)) contracted.push_back(port);
  if (contracted.size() == 1) return contracted[0];
  return std::nullopt;
}

bool owns_self_attention(const Workflow& wf, const std::string& component) {
  if (!wf.serving) return false;
  for (const auto& [name, g] : wf.serving->groups) {
    if (!is_self_attention(g.kind)) continue;
    if (const auto* aliases = find_named(g.ports, component))
      for (const auto& [cell, a] : *aliases)
        if (!a.read_only) return true;
  }
  return false;
}

// A group's aliases of one component, in ABI order: (layer or cell-name position, role).
std::vector<std::pair<std::int64_t, const std::pair<std::string, StateAlias>*>> ordered_aliases(
    const NamedMap<StateAlias>& aliases) {
  std::vector<const std::pair<std::string, StateAlias>*> by_name;
  for (const auto& entry : aliases) by_name.push_back(&entry);
  std::sort(by_name.begin(), by_name.end(), [](auto* a, auto* b) { return a->first < b->first; });
  std::vector<std::pair<std::int64_t, const std::pair<std::string, StateAlias>*>> out;
  for (std::size_t i = 0; i < by_name.size(); ++i)
    out.emplace_back(by_name[i]->second.layer.value_or(static_cast<std::int64_t>(i)), by_name[i]);
  auto role_rank = [](const StateAlias& a) { return a.role ? static_cast<int>(*a.role) + 1 : 0; };
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    return std::pair(a.first, role_rank(a.second->second)) < std::pair(b.first, role_rank(b.second->second));
  });
  return out;
}

Aliasing stricter(Aliasing a, Aliasing b) {
  auto rank = [](Aliasing x) { return x == Aliasing::kForbidden ? 2 : x == Aliasing::kPermitted ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

GroupAbi group_abi(const std::string& name, const StateGroup& g) {
  GroupAbi out{name, g.kind, g.sequence_axis, g.layout, g.aliasing, UpdateKind::kGrow, g.prefix_reusable,
               g.evictable_prefix, g.rollback_positions, g.snapshot, g.fork, g.cascade, g.logical_lengths};
  if (g.update) out.update = static_cast<UpdateKind>(static_cast<int>(g.update->kind) + 1);
  return out;
}

void add_group(const AbiInputs& in, const std::string& name, const StateGroup& g, DecoderAbi& abi) {
  std::int64_t axis = g.sequence_axis.value_or(-1);
  const auto* aliases = find_named(g.ports, abi.component);
  abi.groups.push_back(group_abi(name, g));
  bool owner = false;
  for (const auto& [layer, entry] : ordered_aliases(*aliases)) {
    const StateAlias& a = entry->second;
    if (a.read_only || !a.output) continue;
    KvPair pair{name, g.kind, entry->first, a.input, *a.output, a.role.value_or(KvRole::kCombined), layer,
                detail::input_geometry(in, abi.component, a.input, axis),
                detail::output_geometry(in, abi.component, *a.output, axis)};
    if (is_self_attention(g.kind)) abi.kv_pairs.push_back(pair), owner = true;
    else if (g.kind == GroupKind::kCrossAttention) abi.cross_kv_pairs.push_back(pair);
    else if (g.kind == GroupKind::kRecurrent) abi.state_pairs.push_back(pair);
  }
  if (!is_self_attention(g.kind) || !owner) return;
  abi.kv_ownership = "owned";
  abi.aliasing = abi.aliasing ? stricter(*abi.aliasing, g.aliasing) : g.aliasing;
  if (abi.kv_layout == "unknown") abi.kv_layout = detail::named_layout(g.layout);
  if (g.update && g.update->kind == StateUpdate::Kind::kIndexedScatter)
    abi.static_cache = detail::static_cache_abi(in.doc, name, g, abi.component);
}

void add_borrows(const AbiInputs& in, const Workflow& wf, DecoderAbi& abi) {
  for (const auto& [name, g] : wf.serving->groups)
    for (const auto& [component, aliases] : g.ports)
      for (const auto& [cell, a] : aliases)
        if (a.read_only)
          abi.borrowed.push_back({component, name, g.kind, cell, a.input, a.role, a.layer,
                                  detail::input_geometry(in, component, a.input, g.sequence_axis.value_or(-1))});
}

void add_roles(const Component& c, DecoderAbi& abi) {
  abi.token_ids_input = port_with_role(c, PortRole::kTokenIds, true);
  abi.inputs_embeds_input = port_with_role(c, PortRole::kInputsEmbeds, true);
  abi.attention_mask_input = port_with_role(c, PortRole::kAttentionMask, true);
  abi.position_ids_input = port_with_role(c, PortRole::kPositionIds, true);
  abi.logits_output = port_with_role(c, PortRole::kLogits, false);
  abi.hidden_states_output = port_with_role(c, PortRole::kHiddenStates, false);
  abi.encoder_hidden_states_input = port_with_role(c, PortRole::kEncoderHiddenStates, true);
  abi.audio_features_input = port_with_role(c, PortRole::kAudioFeatures, true);
  if (abi.token_ids_input && !abi.inputs_embeds_input) abi.sequence_source = "token_ids";
  if (!abi.token_ids_input && abi.inputs_embeds_input) abi.sequence_source = "inputs_embeds";
}

}  // namespace

std::optional<std::string> sole_decoder(const Workflow& wf) {
  std::vector<std::string> candidates;
  for (const auto& [name, c] : wf.components) {
    bool sequence = false, logits = false;
    for (const auto& [port, role] : c.ports.roles) {
      sequence |= role == PortRole::kTokenIds || role == PortRole::kInputsEmbeds;
      logits |= role == PortRole::kLogits;
    }
    if (sequence && (logits || owns_self_attention(wf, name))) candidates.push_back(name);
  }
  if (candidates.size() != 1) return std::nullopt;
  return candidates[0];
}

std::optional<DecoderAbi> derive_decoder_abi(const Document& doc, const std::map<std::string, onnx::GraphInfo>& graphs,
                                             const std::map<std::string, std::filesystem::path>& artifacts) {
  AbiInputs in{doc, graphs, artifacts};
  if (!doc.workflow) return doc.model && doc.model->io ? detail::legacy_abi(in) : std::nullopt;
  const Workflow& wf = *doc.workflow;
  auto name = sole_decoder(wf);
  if (!name) return std::nullopt;
  DecoderAbi abi;
  abi.component = *name;
  if (auto it = artifacts.find(*name); it != artifacts.end()) abi.artifact = it->second;
  add_roles(*find_named(wf.components, *name), abi);
  if (wf.serving) {
    std::vector<const std::pair<std::string, StateGroup>*> groups;
    for (const auto& entry : wf.serving->groups)
      if (find_named(entry.second.ports, *name)) groups.push_back(&entry);
    std::sort(groups.begin(), groups.end(), [](auto* a, auto* b) { return a->first < b->first; });
    for (const auto* g : groups) add_group(in, g->first, g->second, abi);
    add_borrows(in, wf, abi);
  }
  detail::add_other_inputs(in, abi);
  return abi;
}

}  // namespace ogai::metadata
