#include "generate/package_config.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <variant>

#include "base/error.h"
#include "importer/mrope.h"
#include "workflow/program.h"

namespace ogai::generate {
namespace {

const metadata::GroupAbi& group_of(const metadata::DecoderAbi& abi, const std::string& name) {
  for (const auto& g : abi.groups)
    if (g.name == name) return g;
  fail(ErrorCode::kInternal, "decoder ABI", "no group '{}'", name);
}

// An attention pair ([batch, kv_heads, sequence, head_dim]) growing by append, or a fixed-capacity
// indexed_scatter buffer.
// GPT-2's combined cache: role combined, [2, batch, kv_heads, sequence, head_dim], sequence_axis 3.
kv::PairSpec make_combined_pair(const metadata::KvPair& p, const metadata::GroupAbi& group, const std::string& origin) {
  const auto& g = p.geometry;
  if (p.role != metadata::KvRole::kCombined || g.dims[0] != 2 || g.dims[2] <= 0 || g.dims[4] <= 0)
    fail(ErrorCode::kUnsupported, origin,
         "KV port '{}' of rank 5 must be a combined cache (role combined) of shape "
         "[2, batch, kv_heads, sequence, head_dim] with fixed kv_heads and head_dim",
         p.input);
  if (g.sequence_axis != 3)
    fail(ErrorCode::kUnsupported, origin,
         "combined KV port '{}' has sequence_axis {}; ogai executes [2, batch, "
         "kv_heads, sequence, head_dim] (axis 3)",
         p.input, g.sequence_axis);
  if (group.update != metadata::UpdateKind::kAppend && group.update != metadata::UpdateKind::kGrow)
    fail(ErrorCode::kUnsupported, origin, "combined KV port '{}': group '{}' must grow by append", p.input, group.name);
  if (!is_float_type(g.dtype))
    fail(ErrorCode::kInvalidPackage, origin, "KV port '{}' is {}, expected a float type", p.input, dtype_name(g.dtype));
  kv::PairSpec pair{p.group, p.input, p.output, g.dtype, g.dims[2], g.dims[4]};
  pair.combined = true;
  return pair;
}

kv::PairSpec make_kv_pair(const metadata::KvPair& p, const metadata::GroupAbi& group, const std::string& origin) {
  const auto& g = p.geometry;
  if (g.rank == 5) return make_combined_pair(p, group, origin);
  if (g.rank != 4 || g.kv_heads <= 0 || g.head_dim <= 0)
    fail(ErrorCode::kUnsupported, origin,
         "KV port '{}' must be [batch, kv_heads, sequence, head_dim] with fixed kv_heads and head_dim (graph says rank "
         "{}, "
         "kv_heads {}, head_dim {})",
         p.input, g.rank, g.kv_heads, g.head_dim);
  if (g.sequence_axis != 2)
    fail(ErrorCode::kUnsupported, origin, "KV port '{}' has sequence_axis {}; ogai executes bnsh caches (axis 2)",
         p.input, g.sequence_axis);
  if (!is_float_type(g.dtype))
    fail(ErrorCode::kInvalidPackage, origin, "KV port '{}' is {}, expected a float type", p.input, dtype_name(g.dtype));
  kv::PairSpec pair{p.group, p.input, p.output, g.dtype, g.kv_heads, g.head_dim};
  if (group.update == metadata::UpdateKind::kIndexedScatter) {
    pair.update = kv::Update::kIndexedScatter;
    pair.capacity = g.dims[2];
    if (pair.capacity <= 0)
      fail(ErrorCode::kUnsupported, origin, "static cache port '{}' needs a fixed capacity dim (axis 2)", p.input);
  } else if (group.update == metadata::UpdateKind::kReplace) {
    fail(ErrorCode::kUnsupported, origin,
         "attention group '{}' uses update 'replace'; ogai executes replace on "
         "recurrent groups",
         group.name);
  }
  return pair;
}

// A recurrent state pair replaced whole each step: every dim after the batch must be fixed.
kv::PairSpec make_state_pair(const metadata::KvPair& p, const metadata::GroupAbi& group, const std::string& origin) {
  const auto& g = p.geometry;
  if (group.update != metadata::UpdateKind::kReplace)
    fail(ErrorCode::kUnsupported, origin, "recurrent group '{}' uses update '{}'; ogai executes 'replace'", group.name,
         metadata::update_kind_name(group.update));
  kv::PairSpec pair{p.group, p.input, p.output, g.dtype};
  pair.update = kv::Update::kReplace;
  for (std::size_t i = 1; i < g.dims.size(); ++i) {
    if (g.dims[i] <= 0)
      fail(ErrorCode::kUnsupported, origin,
           "recurrent state port '{}' needs fixed dims after the batch (axis {} is '{}')", p.input, i, g.symbols[i]);
    pair.state_dims.push_back(g.dims[i]);
  }
  if (g.rank < 1) fail(ErrorCode::kUnsupported, origin, "recurrent state port '{}' has no known shape", p.input);
  return pair;
}

bool uses_group_query_attention(const metadata::Package& package, const std::string& component) {
  auto it = package.graphs.find(component);
  return it != package.graphs.end() && it->second.op_types.count("com.microsoft:GroupQueryAttention") > 0;
}

void check_executable(const metadata::DecoderAbi& abi, const std::string& origin, bool fronted,
                      const std::vector<std::string>& encoder_inputs) {
  if (!abi.token_ids_input && !fronted)
    fail(ErrorCode::kUnsupported, origin,
         "decoder '{}' takes no token_ids port; inputs_embeds-only decoders are "
         "validated but not executed yet",
         abi.component);
  if (!abi.logits_output)
    fail(ErrorCode::kUnsupported, origin, "decoder '{}' declares no logits output", abi.component);
  if (!abi.cross_kv_pairs.empty())
    fail(ErrorCode::kUnsupported, origin, "decoder '{}' has cross-attention state, not executed yet", abi.component);
  auto is_state_input = [&](const std::string& port) {
    return std::any_of(abi.state_pairs.begin(), abi.state_pairs.end(), [&](auto& p) { return p.input == port; });
  };
  auto from_encoder = [&](const std::string& port) {
    return std::find(encoder_inputs.begin(), encoder_inputs.end(), port) != encoder_inputs.end();
  };
  for (const auto& input : abi.other_inputs)
    if (input.purpose != "write_indices" && input.purpose != "kv_length" && input.purpose != "cache_branch" &&
        !is_state_input(input.port) && !from_encoder(input.port))
      fail(ErrorCode::kUnsupported, origin, "decoder input '{}' ({}) has no role the engine can fill", input.port,
           input.purpose);
}

// The embedding graph of a multimodal front: its ids and output ports, and one feature port per
// port the encoders feed (in encoder order).
EmbeddingSpec make_embedding(const metadata::MultimodalAbi& front) {
  if (front.embedding_artifact.empty())
    fail(ErrorCode::kInvalidPackage, "pipeline.workflow.components." + front.embedding, "has no resolved ONNX artifact");
  EmbeddingSpec e{front.embedding_artifact, front.ids_input, front.embeds_output, {}};
  for (const auto& enc : front.encoders) {
    if (enc.artifact.empty())
      fail(ErrorCode::kInvalidPackage, "pipeline.workflow.components." + enc.component, "has no resolved ONNX artifact");
    if (std::find(e.feature_inputs.begin(), e.feature_inputs.end(), enc.embedding_input) == e.feature_inputs.end())
      e.feature_inputs.push_back(enc.embedding_input);
  }
  return e;
}

// ogai's native decode loop stands in only for the single-step shape (invoke the decoder, emit
// its outputs; examples 23/25); workflow::needs_interpreter is the one place that decides.
void check_single_step(const metadata::Package& package, const std::string& origin) {
  if (!workflow::needs_interpreter(package)) return;
  fail(ErrorCode::kUnsupported, origin,
       "the workflow has its own loop or branch, policy components or adapters; the native decode loop cannot "
       "stand in for them (Model::load runs such a package through the workflow interpreter)");
}

kv::StorageMode choose_storage(const metadata::DecoderAbi& abi, bool gqa, const std::string& origin) {
  const auto aliasing = abi.aliasing.value_or(metadata::Aliasing::kForbidden);
  if (aliasing == metadata::Aliasing::kForbidden) return kv::StorageMode::kAppend;
  if (gqa) return kv::StorageMode::kSharedBuffer;
  if (aliasing == metadata::Aliasing::kRequired)
    fail(ErrorCode::kInvalidPackage, origin,
         "aliasing is 'required' but decoder '{}' has no explicit-length attention "
         "(GroupQueryAttention) that can share past and present buffers",
         abi.component);
  return kv::StorageMode::kAppend;
}

PackageGeneration make_generation(const metadata::Package& package) {
  PackageGeneration g;
  const auto& gen = package.document.generation;
  if (gen && gen->defaults) {
    const auto& d = *gen->defaults;
    g.defaults.do_sample = d.do_sample;
    g.defaults.temperature = d.temperature;
    g.defaults.top_k = d.top_k;
    g.defaults.top_p = d.top_p;
    g.defaults.repetition_penalty = d.repetition_penalty;
    g.defaults.max_length = d.max_length;
  }
  // generation_config.json fills what the metadata leaves unset (transformers' defaults).
  const auto& hf = package.files.text.generation_config_sampling;
  auto fill = [](auto& field, const auto& value) {
    if (!field && value) field = *value;
  };
  fill(g.defaults.do_sample, hf.do_sample);
  fill(g.defaults.temperature, hf.temperature);
  fill(g.defaults.top_k, hf.top_k);
  fill(g.defaults.top_p, hf.top_p);
  fill(g.defaults.min_p, hf.min_p);
  fill(g.defaults.typical_p, hf.typical_p);
  fill(g.defaults.repetition_penalty, hf.repetition_penalty);
  if (gen && !gen->overrides.empty()) {
    g.overrides_declared = true;
    for (const auto& [field, o] : gen->overrides) g.overrides[field] = {o.minimum, o.maximum};
  }
  g.context_limit = package.max_sequence_length().value_or(0);
  return g;
}

// The assistant drafter of a `speculative` section with chained proposal execution and a folded
// carry (catalogue example 24). Throws kUnsupported naming what ogai cannot execute.
AssistantSpec make_assistant(const metadata::Package& package, DecoderSpec& target) {
  const auto& spec = *package.document.speculative;
  const auto& abi = *package.decoder;
  if (spec.target != abi.component)
    fail(ErrorCode::kUnsupported, "speculative.target", "'{}' is not the package's decoder '{}'", spec.target,
         abi.component);
  if (!spec.chained)
    fail(ErrorCode::kUnsupported, "speculative.proposal_execution", "block proposers are not executed yet");
  const auto& chained = *spec.chained;
  if (!chained.recurrent.empty() || !chained.folded_carry_output || !chained.folded_carry_seed ||
      !chained.token_embedding)
    fail(ErrorCode::kUnsupported, "speculative.proposal_execution",
         "ogai executes chained proposers with a folded carry and a token_embedding table (no recurrent state)");
  if (spec.vocabulary.kind != "identical")
    fail(ErrorCode::kUnsupported, "speculative.vocabulary", "vocabulary '{}' is not executed yet",
         spec.vocabulary.kind);
  auto artifact = package.files.component_artifacts.find(spec.proposer);
  if (artifact == package.files.component_artifacts.end())
    fail(ErrorCode::kUnsupported, "speculative.proposer", "'{}' has no ONNX artifact", spec.proposer);
  AssistantSpec a;
  a.artifact = artifact->second;
  a.embeds_input = chained.token_embedding_input;
  a.logits_output = chained.logits_output;
  a.carry_output = *chained.folded_carry_output;
  for (const auto& borrow : abi.borrowed) {
    if (borrow.component != spec.proposer) continue;
    auto owner = std::find_if(abi.kv_pairs.begin(), abi.kv_pairs.end(), [&](auto& p) { return p.cell == borrow.cell; });
    if (owner == abi.kv_pairs.end())
      fail(ErrorCode::kUnsupported, "speculative", "borrowed cell '{}' is not a KV pair of the decoder", borrow.cell);
    a.borrows.push_back({borrow.input, static_cast<std::size_t>(owner - abi.kv_pairs.begin())});
  }
  a.embedding = onnx::read_initializer_data(abi.artifact, chained.token_embedding->second);
  target.hidden_output = chained.folded_carry_seed->second;
  return a;
}

// A package document's token id (an integer) as a TokenId; refused by name outside [0, 2^31).
TokenId document_token_id(std::int64_t id, const char* where) {
  if (id < 0 || id > std::numeric_limits<TokenId>::max())
    fail(ErrorCode::kInvalidPackage, where, "token id {} is outside [0, 2^31)", id);
  return static_cast<TokenId>(id);
}

// The text sources, EOS ids and generation settings, for either kind of package.
void fill_text(const metadata::Package& package, PackageConfig& c) {
  c.root = package.files.root;
  c.generation = make_generation(package);
  const auto& text = package.files.text;
  if (text.tokenizer_json) c.tokenizer_json = *text.tokenizer_json;
  c.has_chat_template = text.chat_template_file.has_value() || text.chat_template.has_value();
  for (std::int64_t id : text.generation_config_eos_ids)
    c.eos_ids.push_back(document_token_id(id, "generation_config.json.eos_token_id"));
  if (text.special_tokens_eos_id)
    c.eos_ids.push_back(document_token_id(*text.special_tokens_eos_id, "package.tokenizer.special_tokens.eos.id"));
  c.eos_token = text.tokenizer_config_eos_token;
}

}  // namespace

PackageConfig make_workflow_config(const metadata::Package& package) {
  PackageConfig c;
  fill_text(package, c);
  if (!c.tokenizer_json.empty() && !std::filesystem::exists(c.tokenizer_json)) c.tokenizer_json.clear();
  c.assistant_unavailable = "the package's workflow runs its own speculation";
  return c;
}

PackageConfig make_package_config(const metadata::Package& package) {
  const std::string origin = package.files.metadata_file.string();
  if (!package.decoder)
    fail(ErrorCode::kUnsupported, origin,
         "the workflow has no sole decoder (zero or several components declare "
         "token/embeds roles with logits or owned KV); ogai executes single-decoder packages");
  const metadata::DecoderAbi& abi = *package.decoder;
  check_single_step(package, origin);
  PackageConfig c;
  c.encoder = make_encoder_config(package, c.decoder);  // encoder-decoder: no multimodal front
  std::optional<metadata::MultimodalAbi> front;
  if (!c.encoder) front = metadata::derive_multimodal_abi(package);
  check_executable(abi, origin, front.has_value(), c.decoder.encoder_inputs);
  c.root = package.files.root;
  DecoderSpec& d = c.decoder;
  d.artifact = abi.artifact;
  d.token_input = front ? *abi.inputs_embeds_input : *abi.token_ids_input;
  if (front) d.embedding = make_embedding(*front);
  d.mask_input = abi.attention_mask_input.value_or("");
  d.position_input = abi.position_ids_input.value_or("");
  d.logits_output = *abi.logits_output;
  c.hidden_states_output = abi.hidden_states_output.value_or("");
  for (const auto& pair : abi.kv_pairs) d.cache.pairs.push_back(make_kv_pair(pair, group_of(abi, pair.group), origin));
  for (const auto& pair : abi.state_pairs)
    d.cache.pairs.push_back(make_state_pair(pair, group_of(abi, pair.group), origin));
  for (const auto& pair : abi.kv_pairs) d.cache.prefix_reusable &= group_of(abi, pair.group).prefix_reusable;
  for (const auto& pair : abi.state_pairs) d.cache.prefix_reusable &= group_of(abi, pair.group).prefix_reusable;
  if (c.encoder) d.cache.prefix_reusable = false;  // never another request's encoder outputs
  if (abi.static_cache) {
    d.write_indices_input = abi.static_cache->write_indices_input;
    d.cache_lengths_input = abi.static_cache->kv_length_input;
  }
  for (const auto& input : abi.other_inputs)
    if (input.purpose == "cache_branch") d.cache_branch_input = input.port;
  // 3-D positions [3, batch, seq] on the position_ids port: ogai's extension (importer/mrope.h).
  if (const auto& wf = package.document.workflow) {
    const auto& caps = wf->manifest.capabilities;
    d.mrope = !d.position_input.empty() &&
              std::find(caps.begin(), caps.end(), importer::kMropeCapability) != caps.end();
  }
  const bool gqa = uses_group_query_attention(package, abi.component);
  const bool combined = std::any_of(d.cache.pairs.begin(), d.cache.pairs.end(), [](auto& p) { return p.combined; });
  if (combined && abi.aliasing == metadata::Aliasing::kRequired)
    fail(ErrorCode::kUnsupported, origin, "aliasing is 'required' but combined KV caches are kept as appended tensors");
  d.cache.mode = combined ? kv::StorageMode::kAppend : choose_storage(abi, gqa, origin);
  d.cache.prefix_rows = gqa;
  // Left padding needs attention that reads the mask per position and no recurrent state.
  d.left_padding = !gqa && !abi.static_cache && abi.state_pairs.empty();
  fill_text(package, c);
  if (front) {
    for (const auto& e : front->encoders)
      (e.kind == metadata::MediaKind::kAudio ? c.generation.accepts_audio : c.generation.accepts_images) = true;
    c.multimodal = std::move(front);
  }
  d.max_length = d.cache.max_length = c.generation.context_limit;
  // Without tokenizer.json the package runs from token ids (Model::tokenize refuses text).
  if (package.imported) c.session = package.imported->session;
  if (package.document.speculative) {
    c.max_proposal_width = static_cast<int>(package.document.speculative->max_proposal_width);
    try {
      c.assistant = make_assistant(package, c.decoder);
    } catch (const Error& e) {
      c.assistant_unavailable = e.what();
    }
  } else {
    c.assistant_unavailable = "the package has no speculative section";
  }
  return c;
}

}  // namespace ogai::generate
