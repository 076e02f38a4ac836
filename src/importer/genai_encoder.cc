#include "importer/genai_encoder.h"

#include <map>

#include "base/error.h"
#include "importer/decoder_ports.h"
#include "importer/genai_sections.h"

namespace ogai::importer {
namespace {

// A `%d` name template split around the layer index.
struct Layered {
  std::string field, prefix, suffix;
  std::optional<std::int64_t> match(const std::string& name) const {
    if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
      return std::nullopt;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return std::stoll(digits);
  }
  std::string name(std::int64_t index) const { return prefix + std::to_string(index) + suffix; }
};

Layered layered(const GenaiConfig& c, const std::string& field, const std::string& text) {
  const auto at = text.find("%d");
  if (at == std::string::npos || text.find("%d", at + 2) != std::string::npos)
    fail(ErrorCode::kUnsupported, c.file.string(), "{}: '{}' must contain exactly one %d (the layer index)", field, text);
  return {field, text.substr(0, at), text.substr(at + 2)};
}

void refuse_on_decoder_only(const JsonReader& r, const Json& model, const GenaiConfig& c) {
  const std::string why = "belongs to an encoder-decoder folder (model.type whisper); model.type is '" + c.type + "'";
  if (model.contains("encoder")) r.refuse("model.encoder", "an encoder section " + why);
  if (model.contains("decoder_start_token_id")) r.refuse("model.decoder_start_token_id", "a decoder start token " + why);
  if (!c.names.cross_past_key.empty()) r.refuse("model.decoder.inputs.cross_past_key_names", "cross-attention KV " + why);
  if (!c.names.cross_past_value.empty())
    r.refuse("model.decoder.inputs.cross_past_value_names", "cross-attention KV " + why);
  if (!c.names.output_cross_qk.empty())
    r.refuse("model.decoder.outputs.output_cross_qk_names", "cross-attention weights " + why);
}

bool same_geometry(const onnx::ValueInfo& a, const onnx::ValueInfo& b) {
  if (a.dtype != b.dtype || a.rank() != b.rank()) return false;
  for (std::size_t i = 1; i < a.shape.size(); ++i)
    if (a.shape[i].is_fixed() != b.shape[i].is_fixed() || (a.shape[i].is_fixed() && a.shape[i].value != b.shape[i].value))
      return false;
  return true;
}

void check_cross_geometry(const GenaiConfig& c, const EncoderPorts& p, const CrossLayer& l) {
  for (const auto* v : {&l.past_key, &l.past_value}) {
    if (v->rank() != 4 || !v->shape[1].is_fixed() || !v->shape[3].is_fixed())
      fail(ErrorCode::kUnsupported, p.graph, "cross-attention input '{}' {} is not [batch, heads, encoder_len, "
           "head_size] with fixed heads and head size", v->name, shape_text(*v));
    const auto& enc = *c.encoder;
    if (enc.num_attention_heads && v->shape[1].value != *enc.num_attention_heads)
      fail(ErrorCode::kUnsupported, c.file.string(), "model.encoder.num_attention_heads is {} but '{}' has {} heads ({})",
           *enc.num_attention_heads, v->name, v->shape[1].value, shape_text(*v));
    if (enc.head_size && v->shape[3].value != *enc.head_size)
      fail(ErrorCode::kUnsupported, c.file.string(), "model.encoder.head_size is {} but '{}' has head size {} ({})",
           *enc.head_size, v->name, v->shape[3].value, shape_text(*v));
  }
  for (const auto& [past, present] : {std::pair{&l.past_key, &l.present_key}, std::pair{&l.past_value, &l.present_value}})
    if (!same_geometry(*past, *present))
      fail(ErrorCode::kUnsupported, p.graph, "encoder output '{}' {} does not match the decoder's cross-attention input "
           "'{}' {} it feeds", present->name, shape_text(*present), past->name, shape_text(*past));
}

}  // namespace

void read_encoder_section(const JsonReader& r, const Json& model, GenaiConfig& c) {
  if (c.type != "whisper") return refuse_on_decoder_only(r, model, c);
  if (!model.contains("encoder")) r.refuse("model.encoder", "missing: a whisper folder has an encoder section");
  if (c.names.cross_past_key.empty() || c.names.cross_past_value.empty())
    r.refuse("model.decoder.inputs.cross_past_key_names", "missing: the decoder reads the encoder's cross-attention KV");
  const std::string path = "model.encoder";
  const Json& value = model["encoder"];
  r.closed(r.object(value, path), path,
           {"filename", "session_options", "head_size", "hidden_size", "num_attention_heads", "num_hidden_layers",
            "num_key_value_heads", "inputs", "outputs"});
  EncoderSection e;
  if (!value.contains("filename")) r.refuse(path + ".filename", "missing: the encoder graph's file name is required");
  e.filename = r.string(value["filename"], path + ".filename");
  e.head_size = r.optional_integer(value, path, "head_size");
  e.hidden_size = r.optional_integer(value, path, "hidden_size");
  e.num_attention_heads = r.optional_integer(value, path, "num_attention_heads");
  e.num_hidden_layers = r.optional_integer(value, path, "num_hidden_layers");
  r.optional_integer(value, path, "num_key_value_heads");
  if (value.contains("session_options")) {
    GenaiConfig scratch;  // checked as the decoder's are; the decoder's settings serve both sessions
    read_session_options(r, value["session_options"], path + ".session_options", scratch);
    c.notes.push_back(path + ".session_options: the decoder's session settings apply to both graphs");
  }
  if (value.contains("inputs")) {
    r.closed(r.object(value["inputs"], path + ".inputs"), path + ".inputs", {"audio_features"});
    r.read_string(value["inputs"], path + ".inputs", "audio_features", e.audio_features);
  }
  if (value.contains("outputs")) {
    const std::string out = path + ".outputs";
    r.closed(r.object(value["outputs"], out), out,
             {"encoder_hidden_states", "cross_present_key_names", "cross_present_value_names"});
    r.read_string(value["outputs"], out, "encoder_hidden_states", e.hidden_states);
    r.read_string(value["outputs"], out, "cross_present_key_names", e.cross_present_key);
    r.read_string(value["outputs"], out, "cross_present_value_names", e.cross_present_value);
  }
  c.encoder = std::move(e);
  c.decoder_start_token_id = r.optional_integer(model, "model", "decoder_start_token_id");
}

onnx::GraphInfo split_cross_ports(const GenaiConfig& c, const onnx::GraphInfo& decoder, const std::string& graph_name,
                                  EncoderPorts& ports) {
  const Layered key = layered(c, "model.decoder.inputs.cross_past_key_names", c.names.cross_past_key);
  const Layered val = layered(c, "model.decoder.inputs.cross_past_value_names", c.names.cross_past_value);
  std::optional<Layered> qk;
  if (!c.names.output_cross_qk.empty())
    qk = layered(c, "model.decoder.outputs.output_cross_qk_names", c.names.output_cross_qk);
  onnx::GraphInfo rest = decoder;
  std::map<std::int64_t, CrossLayer> layers;
  std::erase_if(rest.inputs, [&](const onnx::ValueInfo& v) {
    if (auto i = key.match(v.name)) return layers[*i].index = *i, layers[*i].past_key = v, true;
    if (auto i = val.match(v.name)) return layers[*i].index = *i, layers[*i].past_value = v, true;
    return false;
  });
  std::erase_if(rest.outputs, [&](const onnx::ValueInfo& v) {
    if (qk && qk->match(v.name)) return ports.cross_qk.push_back(v), true;
    return false;
  });
  std::int64_t expected = 0;
  for (auto& [index, layer] : layers) {
    if (index != expected++)
      fail(ErrorCode::kUnsupported, graph_name, "cross-attention layers must be 0..N-1; layer {} is missing",
           expected - 1);
    if (layer.past_key.name.empty() || layer.past_value.name.empty())
      fail(ErrorCode::kUnsupported, graph_name, "cross-attention layer {} has no {} input '{}'", index,
           layer.past_key.name.empty() ? "key" : "value",
           layer.past_key.name.empty() ? key.name(index) : val.name(index));
    ports.layers.push_back(layer);
  }
  if (ports.layers.empty())
    fail(ErrorCode::kUnsupported, graph_name, "no graph input matches model.decoder.inputs.cross_past_key_names '{}'",
         c.names.cross_past_key);
  if (c.num_hidden_layers && static_cast<std::int64_t>(ports.layers.size()) != *c.num_hidden_layers)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.num_hidden_layers is {} but the graph has {} "
         "cross-attention layers", *c.num_hidden_layers, ports.layers.size());
  return rest;
}

void bind_encoder_ports(const GenaiConfig& c, const onnx::GraphInfo& encoder, const std::string& graph_name,
                        EncoderPorts& ports) {
  const EncoderSection& e = *c.encoder;
  ports.graph = graph_name;
  for (const onnx::ValueInfo* v : encoder.runtime_inputs()) {
    if (v->name != e.audio_features)
      fail(ErrorCode::kUnsupported, graph_name, "encoder input '{}' is not one ogai feeds (model.encoder.inputs."
           "audio_features is '{}')", v->name, e.audio_features);
    ports.features = *v;
  }
  if (ports.features.name.empty())
    fail(ErrorCode::kUnsupported, graph_name, "no encoder input '{}' (model.encoder.inputs.audio_features)",
         e.audio_features);
  if (ports.features.dtype != DataType::kFloat32 || ports.features.rank() != 3)
    fail(ErrorCode::kUnsupported, graph_name, "encoder input '{}' {} is not float32 [batch, mels, frames]",
         ports.features.name, shape_text(ports.features));
  const Layered key = layered(c, "model.encoder.outputs.cross_present_key_names", e.cross_present_key);
  const Layered val = layered(c, "model.encoder.outputs.cross_present_value_names", e.cross_present_value);
  std::map<std::int64_t, std::pair<const onnx::ValueInfo*, const onnx::ValueInfo*>> found;
  for (const onnx::ValueInfo& v : encoder.outputs) {
    if (auto i = key.match(v.name)) found[*i].first = &v;
    else if (auto i = val.match(v.name)) found[*i].second = &v;
    else if (v.name == e.hidden_states) ports.hidden_states = v;
    else ports.unused_outputs.push_back(v.name);
  }
  for (CrossLayer& l : ports.layers) {
    auto it = found.find(l.index);
    if (it == found.end() || !it->second.first || !it->second.second)
      fail(ErrorCode::kUnsupported, graph_name, "no encoder output '{}' / '{}' for the decoder's cross-attention layer "
           "{}", key.name(l.index), val.name(l.index), l.index);
    l.present_key = *it->second.first;
    l.present_value = *it->second.second;
    check_cross_geometry(c, ports, l);
    found.erase(it);
  }
  if (!found.empty())
    fail(ErrorCode::kUnsupported, graph_name, "encoder output for cross-attention layer {} has no decoder input",
         found.begin()->first);
}

}  // namespace ogai::importer
