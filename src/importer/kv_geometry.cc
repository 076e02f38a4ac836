// check_kv_geometry() (decoder_ports.h): the config's attention facts against the graph's KV ports.
#include <string>

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

void check_numbering(const GenaiConfig& c, const DecoderPorts& p) {
  if (p.layers.empty())
    fail(ErrorCode::kUnsupported, p.graph, "no graph input matches model.decoder.inputs.past_key_names '{}': the "
         "importer maps decoders with a KV cache", c.names.past_key);
  for (std::size_t i = 0; i < p.layers.size(); ++i)
    if (p.layers[i].index != static_cast<std::int64_t>(i))
      fail(ErrorCode::kUnsupported, p.graph, "KV layers must be numbered 0..{} without gaps; layer {} is missing ('{}' "
           "is next)", p.layers.size() - 1, i, p.layers[i].past_key.name);
  const auto n = static_cast<std::int64_t>(p.layers.size());
  if (!c.num_hidden_layers)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.num_hidden_layers: missing; it is cross-checked "
         "against the graph's {} KV layers", n);
  if (*c.num_hidden_layers != n)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.num_hidden_layers is {} but {} has {} KV layers "
         "('{}' .. '{}')", *c.num_hidden_layers, p.graph, n, p.layers.front().past_key.name, p.layers.back().past_key.name);
  if (c.sliding_window)
    for (std::int64_t layer : c.sliding_window->layers)
      if (layer < 0 || layer >= n)
        fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.sliding_window.layers lists {}, but {} has KV "
             "layers 0..{}", layer, p.graph, n - 1);
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
