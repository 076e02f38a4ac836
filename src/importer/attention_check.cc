// check_attention_nodes() (decoder_ports.h): the config's heads and sliding window against the
// graph's attention nodes.
#include <string>

#include "base/error.h"
#include "importer/decoder_ports.h"

namespace ogai::importer {
namespace {

// The past-key input of an attention node (GroupQueryAttention: 3, MultiHeadAttention: 6).
std::optional<std::string> past_key_input(const onnx::AttentionNode& node) {
  const std::size_t at = node.op_type == "GroupQueryAttention" ? 3 : node.op_type == "MultiHeadAttention" ? 6 : 0;
  if (at == 0 || node.inputs.size() <= at || node.inputs[at].empty()) return std::nullopt;
  return node.inputs[at];
}

std::optional<std::int64_t> attribute(const onnx::AttentionNode& node, const char* name) {
  auto it = node.int_attributes.find(name);
  return it == node.int_attributes.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
}

const KvLayer* layer_of(const DecoderPorts& ports, const std::string& past_key) {
  for (const KvLayer& layer : ports.layers)
    if (layer.past_key.name == past_key) return &layer;
  return nullptr;
}

void check_window(const GenaiConfig& c, const DecoderPorts& p, const onnx::AttentionNode& node, const KvLayer& layer) {
  if (attribute(node, "sliding_window_cache").value_or(0) != 0)
    fail(ErrorCode::kUnsupported, p.graph, "the GroupQueryAttention of KV layer {} ('{}') has sliding_window_cache=1: "
         "a window-sized KV cache the kernel evicts from; ogai keeps full-length caches, so re-export with "
         "windowed_kv_cache=false", layer.index, layer.past_key.name);
  const std::int64_t window = attribute(node, "local_window_size").value_or(-1);
  const bool windowed = window > 0;
  if (layer.sliding && window != c.sliding_window->window_size)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.sliding_window.window_size is {} but the "
         "GroupQueryAttention of sliding KV layer {} ('{}') in {} has local_window_size {}", c.sliding_window->window_size,
         layer.index, layer.past_key.name, p.graph, window);
  if (!layer.sliding && windowed)
    fail(ErrorCode::kUnsupported, c.file.string(), "the GroupQueryAttention of KV layer {} ('{}') in {} attends through a "
         "window of {} (local_window_size) but {}", layer.index, layer.past_key.name, p.graph, window,
         c.sliding_window ? "model.decoder.sliding_window.layers does not list the layer"
                          : "genai_config.json declares no model.decoder.sliding_window");
}

}  // namespace

void check_attention_nodes(const GenaiConfig& c, const DecoderPorts& p, const onnx::GraphInfo& graph) {
  for (const onnx::AttentionNode& node : graph.attention_nodes) {
    auto past = past_key_input(node);
    const KvLayer* layer = past ? layer_of(p, *past) : nullptr;
    if (layer == nullptr) continue;
    auto heads = attribute(node, "num_heads");
    if (heads && c.num_attention_heads && *heads != *c.num_attention_heads)
      fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.num_attention_heads is {} but the {} of KV layer {} "
           "('{}') in {} has num_heads {}", *c.num_attention_heads, node.op_type, layer->index, layer->past_key.name,
           p.graph, *heads);
    if (node.op_type == "GroupQueryAttention") check_window(c, p, node, *layer);
  }
}

}  // namespace ogai::importer
