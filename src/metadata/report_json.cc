#include "metadata/report_json.h"

namespace ogai::metadata {
namespace {

using json = nlohmann::ordered_json;

json opt(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }
json known(std::int64_t v) { return v >= 0 ? json(v) : json(nullptr); }

json pair_json(const KvPair& p) {
  return {{"group", p.group}, {"group_kind", group_kind_name(p.group_kind)}, {"cell", p.cell}, {"input", p.input},
          {"output", p.output}, {"role", kv_role_name(p.role)}, {"layer", p.layer},
          {"geometry", geometry_json(p.geometry)}, {"present_geometry", geometry_json(p.present_geometry)}};
}

json pairs_json(const std::vector<KvPair>& pairs) {
  json out = json::array();
  for (const KvPair& p : pairs) out.push_back(pair_json(p));
  return out;
}

json group_json(const GroupAbi& g) {
  return {{"name", g.name}, {"kind", group_kind_name(g.kind)}, {"sequence_axis", opt(g.sequence_axis)},
          {"layout", g.layout}, {"aliasing", aliasing_name(g.aliasing)}, {"update", update_kind_name(g.update)},
          {"prefix_reusable", g.prefix_reusable}, {"evictable_prefix", g.evictable_prefix},
          {"rollback_positions", opt(g.rollback_positions)}, {"snapshot", g.snapshot}, {"fork", g.fork},
          {"cascade", g.cascade}, {"logical_lengths", opt(g.logical_lengths)}};
}

const char* source_name(InputSource::Kind kind) {
  switch (kind) {
    case InputSource::Kind::kRequest: return "request";
    case InputSource::Kind::kApplication: return "application";
    case InputSource::Kind::kLiteral: return "literal";
    case InputSource::Kind::kArtifact: return "artifact";
  }
  return "?";
}

json extras_json(const DecoderAbi& abi) {
  json out = json::array();
  for (const ExtraInput& e : abi.other_inputs)
    out.push_back({{"port", e.port}, {"purpose", e.purpose}, {"bound_value", e.bound_value.empty() ? json(nullptr) : json(e.bound_value)},
                   {"source", e.source ? json(source_name(*e.source)) : json(nullptr)}, {"geometry", geometry_json(e.geometry)}});
  return out;
}

json borrowed_json(const DecoderAbi& abi) {
  json out = json::array();
  for (const BorrowedKv& b : abi.borrowed)
    out.push_back({{"component", b.component}, {"group", b.group}, {"group_kind", group_kind_name(b.group_kind)},
                   {"cell", b.cell}, {"input", b.input}, {"role", b.role ? json(kv_role_name(*b.role)) : json(nullptr)},
                   {"layer", opt(b.layer)}, {"geometry", geometry_json(b.geometry)}});
  return out;
}

json static_cache_json(const std::optional<StaticCacheAbi>& sc) {
  if (!sc) return nullptr;
  return {{"group", sc->group}, {"write_indices_input", sc->write_indices_input},
          {"kv_length_input", sc->kv_length_input.empty() ? json(nullptr) : json(sc->kv_length_input)},
          {"write_indices_cell", sc->write_indices_cell}, {"capacity_value", sc->capacity_value},
          {"capacity", opt(sc->capacity)}, {"logical_lengths_cell", sc->logical_lengths_cell}};
}

}  // namespace

json diagnostics_json(const Diagnostics& diags) {
  json out = json::array();
  for (const Diagnostic& d : diags.items()) out.push_back({{"rule", d.rule}, {"path", d.path}, {"message", d.message}});
  return out;
}

json geometry_json(const PortGeometry& g) {
  if (!g.known())
    return {{"dtype", g.dtype == DataType::kUndefined ? json(nullptr) : json(std::string(dtype_name(g.dtype)))},
            {"rank", nullptr}, {"shape", nullptr}, {"kv_heads", nullptr}, {"head_dim", nullptr},
            {"sequence_axis", known(g.sequence_axis)}};
  json shape = json::array();
  for (std::size_t i = 0; i < g.dims.size(); ++i)
    shape.push_back(g.dims[i] >= 0 ? json(g.dims[i]) : json(g.symbols[i].empty() ? "?" : g.symbols[i]));
  return {{"dtype", std::string(dtype_name(g.dtype))}, {"rank", g.rank}, {"shape", shape}, {"kv_heads", known(g.kv_heads)},
          {"head_dim", known(g.head_dim)}, {"sequence_axis", known(g.sequence_axis)}};
}

json abi_json(const DecoderAbi& abi) {
  json groups = json::array();
  for (const GroupAbi& g : abi.groups) groups.push_back(group_json(g));
  return {{"component", abi.component},
          {"artifact", abi.artifact.empty() ? json(nullptr) : json(abi.artifact.string())},
          {"legacy", abi.legacy},
          {"sequence_source", opt(abi.sequence_source)},
          {"inputs", {{"token_ids", opt(abi.token_ids_input)}, {"inputs_embeds", opt(abi.inputs_embeds_input)},
                      {"attention_mask", opt(abi.attention_mask_input)}, {"position_ids", opt(abi.position_ids_input)},
                      {"encoder_hidden_states", opt(abi.encoder_hidden_states_input)},
                      {"audio_features", opt(abi.audio_features_input)}}},
          {"outputs", {{"logits", opt(abi.logits_output)}, {"hidden_states", opt(abi.hidden_states_output)}}},
          {"kv_ownership", abi.kv_ownership},
          {"aliasing", abi.aliasing ? json(aliasing_name(*abi.aliasing)) : json(nullptr)},
          {"kv_layout", abi.kv_layout},
          {"kv_pairs", pairs_json(abi.kv_pairs)},
          {"cross_kv_pairs", pairs_json(abi.cross_kv_pairs)},
          {"state_pairs", pairs_json(abi.state_pairs)},
          {"borrowed", borrowed_json(abi)},
          {"groups", groups},
          {"static_cache", static_cache_json(abi.static_cache)},
          {"other_inputs", extras_json(abi)}};
}

}  // namespace ogai::metadata
