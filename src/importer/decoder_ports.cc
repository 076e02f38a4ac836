#include "importer/decoder_ports.h"

#include <map>
#include <set>

#include "base/error.h"

namespace ogai::importer {
namespace {

// A `%d` name template, e.g. "past_key_values.%d.key".
struct Template {
  std::string field, prefix, suffix;

  std::optional<std::int64_t> match(const std::string& name) const {
    if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
      return std::nullopt;
    std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos ||
        (digits.size() > 1 && digits[0] == '0'))
      return std::nullopt;
    return std::stoll(digits);
  }
};

Template make_template(const GenaiConfig& c, const std::string& field, const std::string& text) {
  auto at = text.find("%d");
  if (at == std::string::npos || text.find('%', at + 2) != std::string::npos || text.find('%') != at)
    fail(ErrorCode::kUnsupported, c.file.string(), "{}: '{}' must contain exactly one %d (the layer index)", field, text);
  return {field, text.substr(0, at), text.substr(at + 2)};
}

std::string unfed_input_hint(const GenaiConfig& c, const std::string& name) {
  if (name == c.names.inputs_embeds)
    return " (token embeddings from a separate session: a multimodal pipeline needs its model.embedding session)";
  if (name.find("block_table") != std::string::npos || name.find("attention_metadata") != std::string::npos ||
      name == "cumulative_sequence_lengths" || name == "past_sequence_lengths")
    return " (the paged-attention interface of ORT GenAI's dynamic batching, a block-table KV pool over packed "
           "tokens, is not imported: ogai keeps a cache per row)";
  if (name.find("sequence_length") != std::string::npos || name.find("seqlens") != std::string::npos)
    return " (explicit sequence-length inputs are not imported; model-builder CPU/CUDA exports derive them from attention_mask)";
  if (name.find("conv") != std::string::npos || name.find("state") != std::string::npos)
    return " (recurrent state is imported only as convolution state named by model.decoder.inputs.past_conv_names)";
  return "";
}

// Ids, mask and positions: int32 or int64 (ogai feeds the dtype the graph declares).
void check_role(const DecoderPorts& p, const onnx::ValueInfo& v, int rank, const char* role) {
  const bool index = v.dtype == DataType::kInt64 || v.dtype == DataType::kInt32;
  const bool mrope = std::string(role) == "position_ids" && v.rank() == 3;
  if (v.kind != onnx::ValueInfo::Kind::kTensor || !index || v.rank() != rank)
    fail(ErrorCode::kUnsupported, p.graph, "'{}' ({}) is {} {}; ogai feeds {} as int32 or int64 of rank {}{}", v.name,
         role, dtype_name(v.dtype), shape_text(v), role, rank,
         mrope ? " (3-D mRoPE positions are imported for the model types qwen2_5_vl and qwen3_vl only, as "
                 "ogai's extension ogai.mrope)"
               : "");
}

// Qwen2-VL-style types whose decoders may take 3-D mRoPE positions (importer/mrope.h).
bool mrope_type(const std::string& type) { return type == "qwen2_5_vl" || type == "qwen3_vl"; }

// 3-D positions: int32/int64 [3, batch, sequence].
void check_mrope(const DecoderPorts& p, const onnx::ValueInfo& v) {
  const bool index = v.dtype == DataType::kInt64 || v.dtype == DataType::kInt32;
  const bool three = v.rank() == 3 && (!v.shape[0].is_fixed() || v.shape[0].value == 3);
  if (v.kind != onnx::ValueInfo::Kind::kTensor || !index || !three)
    fail(ErrorCode::kUnsupported, p.graph, "'{}' (3-D mRoPE position_ids) is {} {}; ogai feeds them as int32 or int64 "
         "[3, batch, sequence]", v.name, dtype_name(v.dtype), shape_text(v));
}

// The merged decoder's flag: one bool, [1] (Optimum's export) or a scalar.
void check_cache_branch(const DecoderPorts& p, const onnx::ValueInfo& v) {
  const bool one = v.rank() == 0 || (v.rank() == 1 && v.shape[0].is_fixed() && v.shape[0].value == 1);
  if (v.kind != onnx::ValueInfo::Kind::kTensor || v.dtype != DataType::kBool || !one)
    fail(ErrorCode::kUnsupported, p.graph, "'{}' (the merged decoder's cache branch flag) is {} {}; ogai feeds it as "
         "bool [1]", v.name, dtype_name(v.dtype), shape_text(v));
}

void check_embeds(const DecoderPorts& p, const onnx::ValueInfo& v) {
  const bool floating = v.dtype == DataType::kFloat32 || v.dtype == DataType::kFloat16 || v.dtype == DataType::kBfloat16;
  if (v.kind != onnx::ValueInfo::Kind::kTensor || !floating || v.rank() != 3)
    fail(ErrorCode::kUnsupported, p.graph, "'{}' (inputs_embeds) is {} {}; expected float [batch, sequence, hidden]",
         v.name, dtype_name(v.dtype), shape_text(v));
}

void check_logits(const DecoderPorts& p) {
  const onnx::ValueInfo& v = p.logits;
  bool floating = v.dtype == DataType::kFloat32 || v.dtype == DataType::kFloat16 || v.dtype == DataType::kBfloat16;
  if (v.kind != onnx::ValueInfo::Kind::kTensor || !floating || v.rank() != 3)
    fail(ErrorCode::kUnsupported, p.graph, "logits output '{}' is {} {}; expected float [batch, sequence, vocab]", v.name,
         dtype_name(v.dtype), shape_text(v));
}

using LayerMap = std::map<std::int64_t, onnx::ValueInfo>;

void collect(const Template& t, const onnx::ValueInfo& v, LayerMap& into, bool& matched) {
  if (auto layer = t.match(v.name)) {
    into[*layer] = v;
    matched = true;
  }
}

}  // namespace

std::string shape_text(const onnx::ValueInfo& value) {
  if (!value.has_shape) return "[?]";
  std::string text = "[";
  for (std::size_t i = 0; i < value.shape.size(); ++i) {
    const onnx::Dim& d = value.shape[i];
    text += (i ? ", " : "") + (d.is_fixed() ? std::to_string(d.value) : d.symbol.empty() ? "?" : d.symbol);
  }
  return text + "]";
}

namespace {

// The KV templates and the ports each matched, by layer: separate key/value, or combined (then
// the key/value templates match nothing), and convolution states.
struct KvTemplates {
  Template past_key, past_value, present_key, present_value;
  LayerMap pk, pv, ok, ov;
  std::optional<Template> past_combined, present_combined, past_conv, present_conv;
  LayerMap pc, oc, pconv, oconv;
};

std::optional<Template> optional_template(const GenaiConfig& c, const std::string& field, const std::string& text,
                                          const std::string& other_field, const std::string& other) {
  if (text.empty() && other.empty()) return std::nullopt;
  if (text.empty())
    fail(ErrorCode::kUnsupported, c.file.string(), "{}: missing while {} is '{}'; both name the state's ports", field,
         other_field, other);
  return make_template(c, field, text);
}

KvTemplates make_templates(const GenaiConfig& c) {
  const DecoderNames& n = c.names;
  KvTemplates t{make_template(c, "model.decoder.inputs.past_key_names", n.past_key),
                make_template(c, "model.decoder.inputs.past_value_names", n.past_value),
                make_template(c, "model.decoder.outputs.present_key_names", n.present_key),
                make_template(c, "model.decoder.outputs.present_value_names", n.present_value),
                {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  const std::string in = "model.decoder.inputs.", out = "model.decoder.outputs.";
  t.past_combined = optional_template(c, in + "past_names", n.past_combined, out + "present_names", n.present_combined);
  t.present_combined = optional_template(c, out + "present_names", n.present_combined, in + "past_names", n.past_combined);
  t.past_conv = optional_template(c, in + "past_conv_names", n.past_conv, out + "present_conv_names", n.present_conv);
  t.present_conv = optional_template(c, out + "present_conv_names", n.present_conv, in + "past_conv_names", n.past_conv);
  return t;
}

void collect(const std::optional<Template>& t, const onnx::ValueInfo& v, LayerMap& into, bool& matched) {
  if (t) collect(*t, v, into, matched);
}

// Every runtime input is ids, mask, positions or a past key/value; anything else is refused.
void bind_inputs(const GenaiConfig& c, const onnx::GraphInfo& graph, KvTemplates& kv, DecoderPorts& p) {
  const DecoderNames& n = c.names;
  const bool multimodal = c.multimodal.embedding.has_value();
  bool has_ids = false;
  for (const onnx::ValueInfo* v : graph.runtime_inputs()) {
    bool matched = true;
    if (v->name == n.input_ids) {
      p.input_ids = *v;
      has_ids = true;
    } else if (multimodal && v->name == n.inputs_embeds) {
      p.inputs_embeds = *v;
    } else if (v->name == n.attention_mask) {
      p.attention_mask = *v;
    } else if (v->name == n.position_ids) {
      p.position_ids = *v;
    } else if (!n.cache_branch.empty() && v->name == n.cache_branch) {
      p.cache_branch = *v;
    } else {
      matched = false;
    }
    collect(kv.past_key, *v, kv.pk, matched);
    collect(kv.past_value, *v, kv.pv, matched);
    collect(kv.past_combined, *v, kv.pc, matched);
    collect(kv.past_conv, *v, kv.pconv, matched);
    if (!matched)
      fail(ErrorCode::kUnsupported, p.graph,
           "graph input '{}' is not one ogai feeds: it is none of model.decoder.inputs input_ids '{}', attention_mask "
           "'{}', position_ids '{}', past_key_names '{}', past_value_names '{}'{}{}{}",
           v->name, n.input_ids, n.attention_mask, n.position_ids, n.past_key, n.past_value,
           n.past_combined.empty() ? "" : ", past_names '" + n.past_combined + "'",
           n.past_conv.empty() ? "" : ", past_conv_names '" + n.past_conv + "'", unfed_input_hint(c, v->name));
  }
  if (multimodal && !p.inputs_embeds)
    fail(ErrorCode::kUnsupported, p.graph, "no graph input '{}' (model.decoder.inputs.inputs_embeds): the decoder of a "
         "multimodal pipeline reads the embedding session's output", n.inputs_embeds);
  if (!has_ids && !multimodal)
    fail(ErrorCode::kUnsupported, p.graph, "no graph input '{}' (model.decoder.inputs.input_ids): ogai feeds the "
         "decoder token ids{}", n.input_ids, graph.find_input(n.inputs_embeds) ? "; this graph takes embeddings" : "");
  p.has_input_ids = has_ids;
  if (has_ids) check_role(p, p.input_ids, 2, "input_ids");
  if (p.inputs_embeds) check_embeds(p, *p.inputs_embeds);
  if (p.attention_mask) check_role(p, *p.attention_mask, 2, "attention_mask");
  if (p.position_ids) {
    p.mrope = mrope_type(c.type) && p.position_ids->rank() == 3;
    if (p.mrope)
      check_mrope(p, *p.position_ids);
    else
      check_role(p, *p.position_ids, 2, "position_ids");
  }
  if (p.cache_branch) check_cache_branch(p, *p.cache_branch);
}

// Logits, the named hidden state, presents; other outputs are unused (refused from rank 3).
void bind_outputs(const GenaiConfig& c, const onnx::GraphInfo& graph, KvTemplates& kv, DecoderPorts& p) {
  const DecoderNames& n = c.names;
  bool has_logits = false;
  for (const onnx::ValueInfo& v : graph.outputs) {
    bool matched = true;
    if (v.name == n.logits) {
      p.logits = v;
      has_logits = true;
    } else if (!n.hidden_states.empty() && v.name == n.hidden_states) {
      p.hidden_states = v;
    } else {
      matched = false;
    }
    collect(kv.present_key, v, kv.ok, matched);
    collect(kv.present_value, v, kv.ov, matched);
    collect(kv.present_combined, v, kv.oc, matched);
    collect(kv.present_conv, v, kv.oconv, matched);
    if (!matched && v.rank() >= 3)
      fail(ErrorCode::kUnsupported, p.graph, "graph output '{}' {} is not named by the config; a v1 document needs a "
           "role for it (name it model.decoder.outputs.hidden_states if it is the last hidden state)", v.name,
           shape_text(v));
    if (!matched) p.unused_outputs.push_back(v.name);
  }
  if (!has_logits)
    fail(ErrorCode::kUnsupported, p.graph, "no graph output '{}' (model.decoder.outputs.logits)", n.logits);
  check_logits(p);
}

// One KvLayer per past key, with its past value and presents (each must exist, and no extra).
void pair_layers(const GenaiConfig& c, const KvTemplates& kv, DecoderPorts& p) {
  std::set<std::int64_t> sliding;
  if (c.sliding_window) sliding.insert(c.sliding_window->layers.begin(), c.sliding_window->layers.end());
  for (const auto& entry : kv.pk) {
    const std::int64_t index = entry.first;  // plain names: a lambda may not capture structured bindings (clang 14)
    const auto& value = entry.second;
    KvLayer layer;
    layer.index = index;
    layer.past_key = value;
    auto take = [&](const LayerMap& m, onnx::ValueInfo& into, const Template& t) {
      auto it = m.find(index);
      if (it == m.end())
        fail(ErrorCode::kUnsupported, p.graph, "KV layer {} has '{}' but no {} '{}{}{}'", index, value.name, t.field,
             t.prefix, index, t.suffix);
      into = it->second;
    };
    take(kv.pv, layer.past_value, kv.past_value);
    take(kv.ok, layer.present_key, kv.present_key);
    take(kv.ov, layer.present_value, kv.present_value);
    layer.sliding = c.sliding_window && (sliding.empty() || sliding.contains(index));
    p.layers.push_back(std::move(layer));
  }
  for (const LayerMap* m : {&kv.pv, &kv.ok, &kv.ov})
    for (const auto& [index, value] : *m)
      if (!kv.pk.contains(index))
        fail(ErrorCode::kUnsupported, p.graph, "'{}' has no matching past key '{}{}{}'", value.name, kv.past_key.prefix,
             index, kv.past_key.suffix);
}

// Past/present pairs matched by one pair of templates (combined caches, conv states), by index.
template <typename Layer>
std::vector<Layer> pair_states(const DecoderPorts& p, const LayerMap& pasts, const LayerMap& presents,
                               const std::optional<Template>& past_t, const std::optional<Template>& present_t) {
  std::vector<Layer> layers;
  for (const auto& [index, past] : pasts) {
    auto it = presents.find(index);
    if (it == presents.end())
      fail(ErrorCode::kUnsupported, p.graph, "'{}' has no output {} '{}{}{}'", past.name, present_t->field,
           present_t->prefix, index, present_t->suffix);
    layers.push_back({index, past, it->second});
  }
  for (const auto& [index, present] : presents)
    if (!pasts.contains(index))
      fail(ErrorCode::kUnsupported, p.graph, "'{}' has no input {} '{}{}{}'", present.name, past_t->field,
           past_t->prefix, index, past_t->suffix);
  return layers;
}

}  // namespace

DecoderPorts bind_decoder_ports(const GenaiConfig& c, const onnx::GraphInfo& graph, const std::string& graph_name) {
  DecoderPorts p;
  p.graph = graph_name;
  KvTemplates kv = make_templates(c);
  bind_inputs(c, graph, kv, p);
  bind_outputs(c, graph, kv, p);
  pair_layers(c, kv, p);
  p.combined = pair_states<CombinedLayer>(p, kv.pc, kv.oc, kv.past_combined, kv.present_combined);
  p.conv = pair_states<StateLayer>(p, kv.pconv, kv.oconv, kv.past_conv, kv.present_conv);
  if (!p.combined.empty() && !p.layers.empty())
    fail(ErrorCode::kUnsupported, p.graph, "the graph has both combined caches ('{}') and separate key/value ones "
         "('{}')", p.combined.front().past.name, p.layers.front().past_key.name);
  return p;
}

}  // namespace ogai::importer
