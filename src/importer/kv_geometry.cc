// check_kv_geometry() (decoder_ports.h): the config's attention facts against the graph's KV ports.
#include <algorithm>
#include <string>
#include <vector>

#include "base/error.h"
#include "importer/decoder_ports.h"

namespace ogai::importer {
namespace {

struct Geometry {
  std::int64_t kv_heads = 0, head_size = 0;
  DataType dtype = DataType::kUndefined;
  std::string sequence;  // the sequence axis' symbol
  bool operator==(const Geometry&) const = default;
};

Geometry geometry(const DecoderPorts& p, const onnx::ValueInfo& v) {
  if (v.kind != onnx::ValueInfo::Kind::kTensor || v.rank() != 4 || !v.shape[1].is_fixed() || !v.shape[3].is_fixed())
    fail(ErrorCode::kUnsupported, p.graph, "KV port '{}' is {} {}: expected [batch, kv_heads, sequence, head_size] with "
         "fixed kv_heads and head_size", v.name, dtype_name(v.dtype), shape_text(v));
  if (v.shape[2].is_fixed())
    fail(ErrorCode::kUnsupported, p.graph, "KV port '{}' {} has a fixed sequence axis: a pre-allocated static cache "
         "(e.g. an NPU export); the importer maps caches that grow along the sequence axis", v.name, shape_text(v));
  return {v.shape[1].value, v.shape[3].value, v.dtype, v.shape[2].symbol};
}

// Past and present of one layer: same dtype, heads and head size.
Geometry layer_geometry(const DecoderPorts& p, const KvLayer& layer) {
  Geometry g = geometry(p, layer.past_key);
  for (const onnx::ValueInfo* v : {&layer.past_value, &layer.present_key, &layer.present_value}) {
    Geometry other = geometry(p, *v);
    if (other.dtype != g.dtype || other.kv_heads != g.kv_heads || other.head_size != g.head_size)
      fail(ErrorCode::kUnsupported, p.graph, "KV layer {}: '{}' is {} {} but '{}' is {} {}", layer.index,
           layer.past_key.name, dtype_name(g.dtype), shape_text(layer.past_key), v->name, dtype_name(other.dtype),
           shape_text(*v));
  }
  return g;
}

std::vector<std::int64_t> attention_indices(const DecoderPorts& p) {
  std::vector<std::int64_t> indices;
  for (const KvLayer& l : p.layers) indices.push_back(l.index);
  for (const CombinedLayer& l : p.combined) indices.push_back(l.index);
  return indices;
}

std::string first_past(const DecoderPorts& p) {
  return p.layers.empty() ? p.combined.front().past.name : p.layers.front().past_key.name;
}

std::string last_past(const DecoderPorts& p) {
  return p.layers.empty() ? p.combined.back().past.name : p.layers.back().past_key.name;
}

std::string index_list(const std::vector<std::int64_t>& v) {
  std::string text;
  for (std::int64_t i : v) text += (text.empty() ? "" : ", ") + std::to_string(i);
  return "[" + text + "]";
}

// With layer_types: the KV layers are its full_attention layers, the conv states its conv layers.
void check_layer_types(const GenaiConfig& c, const DecoderPorts& p, const std::vector<std::int64_t>& attention) {
  std::vector<std::int64_t> want_attention, want_conv, conv;
  for (std::size_t i = 0; i < c.layer_types.size(); ++i)
    (c.layer_types[i] == "conv" ? want_conv : want_attention).push_back(static_cast<std::int64_t>(i));
  for (const StateLayer& l : p.conv) conv.push_back(l.index);
  if (attention != want_attention)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.layer_types has full_attention layers {} but {} has "
         "KV layers {}", index_list(want_attention), p.graph, index_list(attention));
  if (conv != want_conv)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.layer_types has conv layers {} but {} has "
         "convolution states {} (model.decoder.inputs.past_conv_names '{}')", index_list(want_conv), p.graph,
         index_list(conv), c.names.past_conv);
  const auto n = static_cast<std::int64_t>(c.layer_types.size());
  if (c.num_hidden_layers && *c.num_hidden_layers != n)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.num_hidden_layers is {} but model.decoder.layer_types "
         "lists {} layers", *c.num_hidden_layers, n);
}

void check_numbering(const GenaiConfig& c, const DecoderPorts& p) {
  if (p.layers.empty() && p.combined.empty())
    fail(ErrorCode::kUnsupported, p.graph, "no graph input matches model.decoder.inputs.past_key_names '{}'{}: the "
         "importer maps decoders with a KV cache", c.names.past_key,
         c.names.past_combined.empty() ? "" : " or past_names '" + c.names.past_combined + "'");
  const std::vector<std::int64_t> attention = attention_indices(p);
  const auto n = static_cast<std::int64_t>(attention.size());
  if (!c.layer_types.empty()) {
    check_layer_types(c, p, attention);
  } else {
    if (!p.conv.empty())
      fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.layer_types: missing; {} has convolution states "
           "('{}') and the config must say which layers are conv", p.graph, p.conv.front().past.name);
    for (std::size_t i = 0; i < attention.size(); ++i)
      if (attention[i] != static_cast<std::int64_t>(i))
        fail(ErrorCode::kUnsupported, p.graph, "KV layers must be numbered 0..{} without gaps; layer {} is missing ('{}' "
             "is next)", attention.size() - 1, i, p.layers.empty() ? p.combined[i].past.name : p.layers[i].past_key.name);
    if (!c.num_hidden_layers)
      fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.num_hidden_layers: missing; it is cross-checked "
           "against the graph's {} KV layers", n);
    if (*c.num_hidden_layers != n)
      fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.num_hidden_layers is {} but {} has {} KV layers "
           "('{}' .. '{}')", *c.num_hidden_layers, p.graph, n, first_past(p), last_past(p));
  }
  if (c.sliding_window)
    for (std::int64_t layer : c.sliding_window->layers)
      if (std::find(attention.begin(), attention.end(), layer) == attention.end())
        fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.sliding_window.layers lists {}, but {} has KV "
             "layers {}", layer, p.graph, attention.size() == static_cast<std::size_t>(attention.back() + 1)
                 ? "0.." + std::to_string(attention.back()) : index_list(attention));
}

// A combined layer: [2, batch, kv_heads, sequence, head_size], past and present alike.
void check_combined(const GenaiConfig& c, const DecoderPorts& p) {
  for (const CombinedLayer& l : p.combined) {
    for (const onnx::ValueInfo* v : {&l.past, &l.present}) {
      const bool ok = v->kind == onnx::ValueInfo::Kind::kTensor && v->rank() == 5 && v->shape[0].is_fixed() &&
                      v->shape[0].value == 2 && v->shape[2].is_fixed() && v->shape[4].is_fixed() && !v->shape[3].is_fixed();
      if (!ok)
        fail(ErrorCode::kUnsupported, p.graph, "combined KV port '{}' is {} {}: expected [2, batch, kv_heads, sequence, "
             "head_size] with fixed kv_heads and head_size and a growing sequence axis", v->name, dtype_name(v->dtype),
             shape_text(*v));
    }
    if (l.past.dtype != l.present.dtype || l.past.shape[2].value != l.present.shape[2].value ||
        l.past.shape[4].value != l.present.shape[4].value || l.past.dtype != p.combined.front().past.dtype)
      fail(ErrorCode::kUnsupported, p.graph, "combined KV layer {}: '{}' is {} {} but '{}' is {} {}", l.index,
           l.past.name, dtype_name(l.past.dtype), shape_text(l.past), l.present.name, dtype_name(l.present.dtype),
           shape_text(l.present));
    auto check = [&](const char* field, const std::optional<std::int64_t>& expected, std::int64_t actual, const char* what) {
      if (expected && *expected != actual)
        fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.{} is {} but graph input '{}' of {} has {} {} "
             "(shape {})", field, *expected, l.past.name, p.graph, what, actual, shape_text(l.past));
      if (!expected)
        fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.{}: missing; it is cross-checked against the "
             "graph ('{}' has {} {})", field, l.past.name, what, actual);
    };
    check("num_key_value_heads", c.num_key_value_heads, l.past.shape[2].value, "kv_heads");
    check("head_size", c.head_size, l.past.shape[4].value, "head size");
  }
  if (c.sliding_window)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.sliding_window with combined caches is not imported");
}

// A conv state: [batch, fixed...], past equal to present, the last dim conv_cache_size.
void check_conv(const GenaiConfig& c, const DecoderPorts& p) {
  for (const StateLayer& l : p.conv) {
    const onnx::ValueInfo& v = l.past;
    bool fixed = v.kind == onnx::ValueInfo::Kind::kTensor && v.rank() >= 2 && !v.shape[0].is_fixed() &&
                 is_float_type(v.dtype);
    for (std::size_t i = 1; fixed && i < v.shape.size(); ++i) fixed = v.shape[i].is_fixed();
    if (!fixed)
      fail(ErrorCode::kUnsupported, p.graph, "convolution state '{}' is {} {}: expected a float [batch, fixed dims...]",
           v.name, dtype_name(v.dtype), shape_text(v));
    if (l.present.dtype != v.dtype || shape_text(l.present) != shape_text(v))
      fail(ErrorCode::kUnsupported, p.graph, "convolution state '{}' is {} {} but '{}' is {} {}; a state replaced each "
           "step has one shape", v.name, dtype_name(v.dtype), shape_text(v), l.present.name,
           dtype_name(l.present.dtype), shape_text(l.present));
    if (c.conv_cache_size && v.shape.back().value != *c.conv_cache_size)
      fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.conv_cache_size is {} but '{}' of {} is {}",
           *c.conv_cache_size, v.name, p.graph, shape_text(v));
  }
}

void check_against_config(const GenaiConfig& c, const DecoderPorts& p, const KvLayer& layer, const Geometry& g) {
  auto check = [&](const char* field, const std::optional<std::int64_t>& expected, std::int64_t actual, const char* what) {
    if (!expected)
      fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.{}: missing; it is cross-checked against the graph "
           "('{}' has {} {})", field, layer.past_key.name, what, actual);
    if (*expected != actual)
      fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.{} is {} but graph input '{}' of {} has {} {} "
           "(shape {})", field, *expected, layer.past_key.name, p.graph, what, actual, shape_text(layer.past_key));
  };
  check("num_key_value_heads", c.num_key_value_heads, g.kv_heads, "kv_heads");
  check("head_size", c.head_size, g.head_size, "head size");
}

}  // namespace

void check_kv_geometry(const GenaiConfig& c, const DecoderPorts& p) {
  check_numbering(c, p);
  check_conv(c, p);
  if (!p.combined.empty()) return check_combined(c, p);
  bool any_sliding = false;
  for (const KvLayer& layer : p.layers) any_sliding = any_sliding || layer.sliding;
  std::optional<Geometry> full;  // the first full-attention layer's geometry (with a sliding window)
  const KvLayer* full_layer = nullptr;
  std::optional<std::string> full_sequence, sliding_sequence;
  for (const KvLayer& layer : p.layers) {
    Geometry g = layer_geometry(p, layer);
    (layer.sliding ? sliding_sequence : full_sequence) = g.sequence;
    if (layer.sliding || !any_sliding) {
      check_against_config(c, p, layer, g);
    } else if (!full) {
      full = g;
      full_layer = &layer;
    } else if (g.kv_heads != full->kv_heads || g.head_size != full->head_size) {
      fail(ErrorCode::kUnsupported, p.graph, "full-attention KV layers differ: '{}' is {} but '{}' is {}",
           layer.past_key.name, shape_text(layer.past_key), full_layer->past_key.name, shape_text(full_layer->past_key));
    }
    if (g.dtype != p.layers.front().past_key.dtype)
      fail(ErrorCode::kUnsupported, p.graph, "KV layers mix element types: '{}' is {}, '{}' is {}", layer.past_key.name,
           dtype_name(g.dtype), p.layers.front().past_key.name, dtype_name(p.layers.front().past_key.dtype));
  }
  bool windowed = (sliding_sequence && full_sequence && *sliding_sequence != *full_sequence) ||
                  (sliding_sequence && !full_sequence && sliding_sequence->find("sliding") != std::string::npos);
  if (windowed)
    fail(ErrorCode::kUnsupported, p.graph, "the sliding-window layers' KV sequence axis is '{}', not the full layers' "
         "'{}': a window-sized KV cache that the attention kernel evicts from (GroupQueryAttention "
         "sliding_window_cache); ogai keeps full-length caches, so re-export with windowed_kv_cache=false",
         sliding_sequence->empty() ? "?" : *sliding_sequence, full_sequence ? *full_sequence : "-");
}

}  // namespace ogai::importer
