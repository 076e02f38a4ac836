// `model`: package-wide facts (attention, lengths, MoE, sharding) and the legacy `model.io`.
// The reference ignores unknown keys in model/attention/mixture_of_experts; ogai refuses them
// (failing closed, see docs/metadata.md).
#include <fmt/format.h>

#include "metadata/parse_internal.h"

namespace ogai::metadata::detail {
namespace {

Attention read_attention(Reader& r, const Node& node, const std::string& path) {
  Attention a;
  Fields f(r, &node, path);
  a.type = f.string_or("type", "", true);
  a.num_kv_heads = f.integer("num_kv_heads", 1);
  a.num_attention_heads = f.integer("num_attention_heads", 1);
  a.head_dim = f.integer("head_dim", 1);
  a.fallback_behavior = f.string("fallback_behavior");
  a.sliding_window = f.integer("sliding_window");  // 0 is rejected by a rule with a clear message
  a.sink_tokens = f.integer("sink_tokens", 0);
  if (const Node* k = f.get("key_sequence_lengths")) {
    Fields kf(r, k, f.at("key_sequence_lengths"));
    a.scalar_broadcast_unit_batch = kf.one_of("scalar_broadcast", {"unit_batch"}).has_value();
  }
  return a;
}

MixtureOfExperts read_moe(Reader& r, const Node& node, const std::string& path) {
  MixtureOfExperts m;
  Fields f(r, &node, path);
  m.representation = f.one_of("representation", {"dense_fallback", "moe", "qmoe"}, true).value_or("");
  m.routed_expert_count = f.integer("routed_expert_count", 0);
  m.shared_expert_count = f.integer("shared_expert_count", 0);
  m.experts_per_token = f.integer("experts_per_token", 1);
  m.expert_intermediate_size = f.integer("expert_intermediate_size", 1);
  m.shared_expert_intermediate_size = f.integer("shared_expert_intermediate_size", 1);
  m.activation = f.string("activation");
  if (const Node* router = f.get("router")) {
    Fields rf(r, router, f.at("router"));
    rf.one_of("score_function", {"softmax", "sigmoid"});
    rf.one_of("selection_method", {"top_k", "grouped_top_k", "sparse_mixer"});
    rf.boolean("normalize_weights", false);
    rf.number("scaling_factor");
    for (const auto& [key, value] : router->entries)
      if (key.starts_with("group_")) rf.get(key);  // group_count, group_top_k, ...
    m.router = r.json(router);
  }
  return m;
}

void check_sharding(Reader& r, const Node& node, const std::string& path) {
  Fields f(r, &node, path);
  r.entries(f.get("tensor_parallel"), f.at("tensor_parallel"), [&](const std::string&, const Node& v, const std::string& p) {
    Fields t(r, &v, p);
    t.integer("shard_axis", 0, true);
    t.integer("max_shards", 1, true);
    t.strings("replicated");
  });
  r.items(f.get("pipeline_parallel"), f.at("pipeline_parallel"), [&](std::size_t, const Node& v, const std::string& p) {
    Fields s(r, &v, p);
    s.strings("components");
    s.strings("outputs");
    s.strings("state_groups");
  });
  if (const Node* ep = f.get("expert_parallel")) {
    Fields e(r, ep, f.at("expert_parallel"));
    e.integer("expert_count", 1, true);
    e.boolean("contiguous_groups_only", false);
    e.strings("replicated");
  }
}

void check_runtime_configurable(Reader& r, const Node& node, const std::string& path) {
  Fields f(r, &node, path);
  f.boolean("prefix_cache", false);
  f.boolean("continuous_batching", false);
  if (const Node* cp = f.get("chunked_prefill")) {
    Fields c(r, cp, f.at("chunked_prefill"));
    c.integer("chunk_size", 1);
  }
}

ModelIo read_io(Reader& r, const Node& node, const std::string& path) {
  ModelIo io;
  Fields f(r, &node, path, {{"kv_update", "the cache update discipline is declared by state_service groups (update)"}});
  io.sequence_source = f.one_of("sequence_source", {"token_ids", "inputs_embeds"});
  io.kv_ownership = f.one_of("kv_ownership", {"owned", "shared"});
  io.kv_layout = f.one_of("kv_layout", {"head_major_bnsh", "seq_major_bsnh"});
  io.aliasing = f.one_of("aliasing", {"permitted", "required", "forbidden"});
  io.token_input = f.string("token_input");
  io.inputs_embeds_input = f.string("inputs_embeds_input");
  io.attention_mask_input = f.string("attention_mask_input");
  io.position_ids_input = f.string("position_ids_input");
  io.logits_output = f.string("logits_output");
  io.hidden_output = f.string("hidden_output");
  io.encoder_hidden_states_input = f.string("encoder_hidden_states_input");
  io.audio_features_input = f.string("audio_features_input");
  io.kv_inputs = f.strings("kv_inputs");
  io.kv_outputs = f.strings("kv_outputs");
  io.cross_kv_inputs = f.strings("cross_kv_inputs");
  io.cross_kv_outputs = f.strings("cross_kv_outputs");
  r.items(f.get("state_pairs"), f.at("state_pairs"), [&](std::size_t, const Node& v, const std::string& p) {
    Fields s(r, &v, p);
    io.state_pairs.emplace_back(s.string_or("input", "", true), s.string_or("output", "", true));
    s.get("init");
    s.get("update");
  });
  io.optional_inputs = f.json("optional_inputs");
  if (const Node* sc = f.get("static_cache")) {
    Fields s(r, sc, f.at("static_cache"));
    ModelIo::StaticCache c;
    c.write_indices_input = s.string_or("write_indices_input", "", true);
    c.kv_sequence_length_input = s.string_or("kv_sequence_length_input", "", true);
    c.key_cache_inputs = s.strings("key_cache_inputs");
    c.value_cache_inputs = s.strings("value_cache_inputs");
    c.key_cache_outputs = s.strings("key_cache_outputs");
    c.value_cache_outputs = s.strings("value_cache_outputs");
    io.static_cache = c;
  }
  return io;
}

}  // namespace

Model read_model(Reader& r, const Node& node, const std::string& path) {
  Model m;
  Fields f(r, &node, path);
  if (const Node* a = f.get("attention")) m.attention = read_attention(r, *a, f.at("attention"));
  m.max_sequence_length = f.integer("max_sequence_length", 1);
  // Positions are int32 in every exported decoder, and KV sizes are products with it: a larger
  // context is a typo (10^12 once validated), not a model (issue 37).
  if (m.max_sequence_length && *m.max_sequence_length > kMaxSequenceLength) {
    r.error(f.at("max_sequence_length"), fmt::format("{} is above the largest context ogai runs ({}, int32 positions)",
                                                     *m.max_sequence_length, kMaxSequenceLength));
    m.max_sequence_length.reset();
  }
  m.vocab_size = f.integer("vocab_size", 1);
  if (const Node* rc = f.get("runtime_configurable")) {
    check_runtime_configurable(r, *rc, f.at("runtime_configurable"));
    m.runtime_configurable = r.json(rc);
  }
  if (const Node* moe = f.get("mixture_of_experts")) m.mixture_of_experts = read_moe(r, *moe, f.at("mixture_of_experts"));
  if (const Node* sh = f.get("sharding")) {
    check_sharding(r, *sh, f.at("sharding"));
    m.sharding = r.json(sh);
  }
  if (const Node* io = f.get("io")) m.io = read_io(r, *io, f.at("io"));
  return m;
}

}  // namespace ogai::metadata::detail
