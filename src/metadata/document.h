// The typed inference_metadata v1 document (digest §2): top level, `model`, `package`,
// `generation`, `profiles`, `adapters`, `speculative`, and the workflow (workflow.h).
// Sections the v1 reference reads loosely and ogai does not interpret (`quantization`,
// `hardware_requirements`, `preprocessing`) are kept as raw JSON. Plain structs; thread-safe to read.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "metadata/workflow.h"

namespace ogai::metadata {

struct Attention {
  std::string type;  // multi_head, grouped_query, gqa, mla, ... (extensible)
  std::optional<std::int64_t> num_kv_heads, num_attention_heads, head_dim;
  std::optional<std::string> fallback_behavior;
  std::optional<std::int64_t> sliding_window;  // >= 1; one window per package
  std::optional<std::int64_t> sink_tokens;
  bool scalar_broadcast_unit_batch = false;    // key_sequence_lengths.scalar_broadcast: unit_batch
};

struct MixtureOfExperts {
  std::string representation;  // dense_fallback | moe | qmoe
  std::optional<std::int64_t> routed_expert_count, shared_expert_count, experts_per_token,
      expert_intermediate_size, shared_expert_intermediate_size;
  std::optional<std::string> activation;
  nlohmann::json router;  // {score_function, selection_method, normalize_weights, scaling_factor, group_*}
};

// Legacy single-decoder port declaration (`model.io`, §2.6). Import-only: valid only without a
// workflow; mapped onto the same DecoderAbi as a workflow.
struct ModelIo {
  std::optional<std::string> sequence_source, kv_ownership, kv_layout, aliasing;
  std::optional<std::string> token_input, inputs_embeds_input, attention_mask_input,
      position_ids_input, logits_output, hidden_output, encoder_hidden_states_input, audio_features_input;
  std::vector<std::string> kv_inputs, kv_outputs, cross_kv_inputs, cross_kv_outputs;
  std::vector<std::pair<std::string, std::string>> state_pairs;  // (input, output)
  struct StaticCache {
    std::string write_indices_input, kv_sequence_length_input;
    std::vector<std::string> key_cache_inputs, value_cache_inputs, key_cache_outputs, value_cache_outputs;
  };
  std::optional<StaticCache> static_cache;
  nlohmann::json optional_inputs;  // port -> {presence, absent{kind, shape}}
};

// The largest model.max_sequence_length accepted (int32 positions; issue 37).
inline constexpr std::int64_t kMaxSequenceLength = 2147483647;

struct Model {
  std::optional<Attention> attention;
  std::optional<std::int64_t> max_sequence_length, vocab_size;
  nlohmann::json runtime_configurable;  // {prefix_cache, continuous_batching, chunked_prefill{chunk_size}}
  std::optional<MixtureOfExperts> mixture_of_experts;
  nlohmann::json sharding;  // {tensor_parallel, pipeline_parallel, expert_parallel}
  std::optional<ModelIo> io;
};

struct SpecialToken {
  std::int64_t id = 0;
  std::string content;
};

struct TokenizerFacts {
  std::string algorithm;
  std::int64_t vocab_size = 0;
  bool byte_level = false;
  std::vector<std::string> artifacts;  // package-relative locations
  NamedMap<SpecialToken> special_tokens;  // bos, eos, pad, ...
};

struct ConstraintLanguage {
  std::string dialect, version, component;
};

struct PackageFacts {
  std::optional<TokenizerFacts> tokenizer;
  std::vector<ConstraintLanguage> constraint_languages;
};

// generation.defaults: authoritative package defaults (absent fields: unset).
struct GenerationDefaults {
  std::optional<bool> do_sample, early_stopping;
  std::optional<double> temperature, top_p, repetition_penalty, length_penalty, diversity_penalty;
  std::optional<std::int64_t> top_k, num_beams, num_return_sequences, min_length, max_length,
      no_repeat_ngram_size;
};

struct GenerationOverride {
  std::string input;  // a request-sourced workflow input
  std::optional<double> minimum, maximum;
};

struct Generation {
  std::optional<GenerationDefaults> defaults;
  NamedMap<GenerationOverride> overrides;  // field -> override
};

struct Profile {
  std::string kind, version;
  bool required = true;  // requirement: required | ignorable
  NamedMap<std::string> outputs;  // semantic role -> workflow output
  nlohmann::json pooling;         // {kind, axis, normalize}
  struct Decoding {
    std::string kind;
    std::optional<std::int64_t> blank_id;
    bool collapse_repeats = false;
    std::int64_t time_axis = 0, class_axis = 0;
    std::optional<std::string> lengths;
    nlohmann::json vocabulary;
  };
  std::optional<Decoding> decoding;
  std::optional<std::string> batch_invariance;
  bool generation_affecting = false;
};

struct AdapterArtifact {
  std::int64_t index = 0;
  std::string identity, version, dtype;
  std::int64_t rank = 0;
  double alpha = 0;
  struct Weight {
    std::string location, loader_capability, scale_encoding, format = "json";
    std::optional<std::string> config_location;
  };
  std::vector<Weight> weights;
  std::vector<std::string> binding_targets;  // bindings[].target
  nlohmann::json bindings, provenance;
};

struct Adapters {
  std::vector<std::string> target_ids;  // target_manifest.targets[].id
  nlohmann::json targets;               // target_manifest.targets as written
  std::string discovery_fallback = "disabled";
  struct Selection {
    std::string segments, adapter_counts, scales;
    std::optional<std::string> active;
    std::int64_t max_adapters = 0;
  } selection;
  std::string application_capability;
  bool portable_fallback = false;
  NamedMap<AdapterArtifact> artifacts;  // alias -> artifact
  nlohmann::json cache, planning;
};

struct Speculative {
  std::string proposer, target;
  struct Vocabulary {
    std::string kind = "identical";  // identical | subset | mapped
    std::optional<std::int64_t> proposer_vocab_size;
    std::optional<std::string> artifact;
  } vocabulary;
  std::int64_t max_proposal_width = 0;  // a rollback bound, not a chosen K
  bool distribution_preserving = false;
  NamedMap<std::string> port_bindings;  // role -> proposer port (target_hidden_context, ...)
  std::vector<std::string> shared_state, shared_weights, rollback_state;
  struct Recurrent {
    std::string state, input, output;
  };
  struct Chained {
    std::string token_embedding_input, logits_output;
    std::vector<Recurrent> recurrent;
    std::optional<std::string> folded_carry_output;
    std::optional<std::pair<std::string, std::string>> folded_carry_seed;  // component, output
    std::optional<std::pair<std::string, std::string>> token_embedding;    // component, table
  };
  std::optional<Chained> chained;  // absent: block proposal execution
};

struct Document {
  std::string schema_version;  // free string; absent means v1
  std::vector<std::string> required_capabilities;
  std::optional<Model> model;
  std::optional<Workflow> workflow;  // pipeline.workflow
  std::optional<Adapters> adapters;
  std::optional<PackageFacts> package;
  std::optional<Generation> generation;
  NamedMap<Profile> profiles;
  std::optional<Speculative> speculative;
  nlohmann::json quantization, hardware_requirements, preprocessing;  // kept, not interpreted
};

}  // namespace ogai::metadata
