// `speculative` and `adapters`.
#include "metadata/parse_internal.h"

namespace ogai::metadata::detail {
namespace {

std::optional<std::pair<std::string, std::string>> read_pair(Reader& r, Fields& parent, std::string_view key,
                                                             std::string_view first, std::string_view second) {
  const Node* node = parent.get(key);
  if (!node) return std::nullopt;
  Fields f(r, node, parent.at(key));
  return std::pair{f.string_or(first, "", true), f.string_or(second, "", true)};
}

Speculative::Chained read_chained(Reader& r, Fields& f) {
  Speculative::Chained c;
  c.token_embedding_input = f.string_or("token_embedding_input", "", true);
  c.logits_output = f.string_or("logits_output", "", true);
  r.items(f.get("recurrent"), f.at("recurrent"), [&](std::size_t, const Node& v, const std::string& p) {
    Fields rf(r, &v, p);
    c.recurrent.push_back({rf.string_or("state", "", true), rf.string_or("input", "", true),
                           rf.string_or("output", "", true)});
  });
  c.folded_carry_output = f.string("folded_carry_output");
  c.folded_carry_seed = read_pair(r, f, "folded_carry_seed", "component", "output");
  c.token_embedding = read_pair(r, f, "token_embedding", "component", "table");
  return c;
}

Speculative::Vocabulary read_vocabulary(Reader& r, const Node* node, const std::string& path) {
  Speculative::Vocabulary v;
  Fields f(r, node, path);
  if (!node) r.error(path, "required key is missing");
  v.kind = f.one_of("kind", {"identical", "subset", "mapped"}, true).value_or("identical");
  if (v.kind == "subset") v.proposer_vocab_size = f.integer("proposer_vocab_size", 1, true);
  if (v.kind == "mapped") v.artifact = f.string("artifact", true);
  return v;
}

AdapterArtifact read_adapter_artifact(Reader& r, const Node& node, const std::string& path) {
  AdapterArtifact a;
  Fields f(r, &node, path, {{"sha256", "metadata carries no hashes"}});
  a.index = f.integer("index", 0, true).value_or(0);
  a.identity = f.string_or("identity", "", true);
  a.version = f.string_or("version", "", true);
  a.rank = f.integer("rank", 0, true).value_or(0);
  a.alpha = f.number("alpha").value_or(0);
  if (!f.has("alpha")) r.error(f.at("alpha"), "required key is missing");
  a.dtype = f.string_or("dtype", "", true);
  r.items(f.get("weights"), f.at("weights"), [&](std::size_t, const Node& v, const std::string& p) {
    Fields w(r, &v, p, {{"sha256", "metadata carries no hashes"}});
    AdapterArtifact::Weight weight;
    weight.location = w.string_or("location", "", true);
    weight.loader_capability = w.string_or("loader_capability", "", true);
    weight.config_location = w.string("config_location");
    weight.scale_encoding = w.one_of("scale_encoding", {"alpha_over_rank", "baked"}, true).value_or("");
    weight.format = w.one_of("format", {"json", "ort_genai", "hf_peft", "safetensors"}).value_or("json");
    a.weights.push_back(weight);
  });
  r.items(f.get("bindings"), f.at("bindings"), [&](std::size_t, const Node& v, const std::string& p) {
    Fields b(r, &v, p);
    a.binding_targets.push_back(b.string_or("target", "", true));
    b.string("weight_key", true);
    b.integer("rank", 0);
    b.number("alpha");
  });
  a.bindings = f.json("bindings");
  a.provenance = f.json("provenance");
  return a;
}

void read_adapter_selection(Reader& r, const Node* node, const std::string& path, Adapters& a) {
  Fields f(r, node, path, {{"slot_ids", "row identity is runtime-owned"},
                           {"request_epochs", "row identity is runtime-owned"}});
  if (!node) r.error(path, "required key is missing");
  a.selection.segments = f.string_or("segments", "", true);
  a.selection.adapter_counts = f.string_or("adapter_counts", "", true);
  a.selection.scales = f.string_or("scales", "", true);
  a.selection.active = f.string("active");
  a.selection.max_adapters = f.integer("max_adapters", INT64_MIN, true).value_or(0);
}

}  // namespace

Speculative read_speculative(Reader& r, const Node& node, const std::string& path) {
  Speculative s;
  Fields f(r, &node, path);
  s.proposer = f.string_or("proposer", "", true);
  s.target = f.string_or("target", "", true);
  s.vocabulary = read_vocabulary(r, f.get("vocabulary"), f.at("vocabulary"));
  s.max_proposal_width = f.integer("max_proposal_width", 1, true).value_or(0);
  s.distribution_preserving = f.boolean("distribution_preserving", false);
  r.entries(f.get("port_bindings"), f.at("port_bindings"), [&](const std::string& role, const Node& v, const std::string& p) {
    if (auto port = r.string(&v, p)) s.port_bindings.emplace_back(role, *port);
  });
  s.shared_state = f.strings("shared_state");
  s.shared_weights = f.strings("shared_weights");
  s.rollback_state = f.strings("rollback_state");
  if (const Node* pe = f.get("proposal_execution")) {
    Fields e(r, pe, f.at("proposal_execution"));
    if (e.one_of("kind", {"block", "chained"}, true).value_or("block") == "chained") s.chained = read_chained(r, e);
  }
  return s;
}

Adapters read_adapters(Reader& r, const Node& node, const std::string& path) {
  Adapters a;
  Fields f(r, &node, path);
  const Node* manifest = f.need("target_manifest");
  Fields m(r, manifest, f.at("target_manifest"));
  r.items(m.need("targets"), m.at("targets"), [&](std::size_t, const Node& v, const std::string& p) {
    Fields t(r, &v, p);
    a.target_ids.push_back(t.string_or("id", "", true));
    for (auto key : {"component", "initializer", "node_name", "output_name", "activation_dtype"}) t.string(key, true);
    t.integer("input_features", 0, true);
    t.integer("output_features", 0, true);
    t.integer("layer_index", 0);
    t.integer("rank", 0);
    t.number("alpha");
    t.get("output_slice");
    t.get("graph_inputs");
  });
  a.targets = m.json("targets");
  a.discovery_fallback = f.one_of("discovery_fallback", {"disabled", "tooling_only"}).value_or("disabled");
  read_adapter_selection(r, f.get("selection"), f.at("selection"), a);
  a.application_capability = f.string_or("application_capability", "", true);
  a.portable_fallback = f.boolean("portable_fallback", false);
  r.entries(f.get("artifacts"), f.at("artifacts"), [&](const std::string& alias, const Node& v, const std::string& p) {
    a.artifacts.emplace_back(alias, read_adapter_artifact(r, v, p));
  });
  a.cache = f.json("cache");
  a.planning = f.json("planning");
  return a;
}

}  // namespace ogai::metadata::detail
