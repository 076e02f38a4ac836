#include "importer/document_writer.h"

#include <cctype>
#include <iterator>
#include <utility>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/version.h"
#include "importer/cache_branch.h"
#include "importer/document_sections.h"
#include "importer/document_yaml.h"
#include "importer/mrope.h"
#include "importer/multimodal_writer.h"

namespace ogai::importer {
namespace {

// A state port bound to a runtime-managed state cell.
struct Cell {
  std::string name;   // full_key_0, sliding_value_3, full_kv_2, conv_0, ...
  std::string group;  // full_attention | sliding_attention | causal_conv
  const onnx::ValueInfo* past = nullptr;
  const onnx::ValueInfo* present = nullptr;
  const char* role = "key";  // key | value | combined; nullptr for recurrent state
  std::int64_t layer = 0;
  int batch_axis = 0;  // 1 for GPT-2's combined [2, batch, ...]
};

std::vector<Cell> make_cells(const DecoderPorts& ports) {
  std::vector<Cell> cells;
  for (const KvLayer& l : ports.layers) {
    const std::string prefix = l.sliding ? "sliding" : "full";
    const std::string group = l.sliding ? "sliding_attention" : "full_attention";
    const std::string n = std::to_string(l.index);
    cells.push_back({prefix + "_key_" + n, group, &l.past_key, &l.present_key, "key", l.index});
    cells.push_back({prefix + "_value_" + n, group, &l.past_value, &l.present_value, "value", l.index});
  }
  for (const CombinedLayer& l : ports.combined)
    cells.push_back({"full_kv_" + std::to_string(l.index), "full_attention", &l.past, &l.present, "combined", l.index, 1});
  for (const StateLayer& l : ports.conv)
    cells.push_back({"conv_" + std::to_string(l.index), "causal_conv", &l.past, &l.present, nullptr, l.index});
  return cells;
}

class Writer {
 public:
  explicit Writer(const DocumentPlan& plan) : p_(plan), mm_(plan.multimodal), cells_(make_cells(plan.ports)) {}

  std::string run() {
    header();
    line(0, "schema_version: v1");
    model();
    if (mm_) write_preprocessing(y_, *mm_);
    line(0, "pipeline:");
    line(1, "workflow:");
    line(2, "manifest:");
    if (mm_) write_manifest_abis(y_, *mm_);
    line(3, "capabilities: [workflow_ssa, typed_emit, serving_service_contract{}{}]",
         p_.ports.cache_branch ? std::string(", ") + kCacheBranchCapability : std::string(),
         p_.ports.mrope ? std::string(", ") + kMropeCapability : std::string());
    inputs();
    outputs();
    component();
    state();
    steps();
    serving();
    write_package_section(y_, p_);
    write_generation_section(y_, p_.config.search);
    return y_.take();
  }

 private:
  template <typename... Args>
  void line(int indent, fmt::format_string<Args...> format, Args&&... args) {
    y_.line(indent, format, std::forward<Args>(args)...);
  }

  void header() {
    const GenaiConfig& c = p_.config;
    line(0, "# Imported from {} by `ogai import` (ogai {}); model type '{}'.", c.file.filename().string(), OGAI_VERSION,
         c.type);
    const std::size_t kv = p_.ports.layers.size() + p_.ports.combined.size();
    line(0, "# {} KV layers{}{} read from {}; edit and commit this file to make it the package's own metadata.", kv,
         p_.ports.combined.empty() ? "" : " (combined key/value)",
         p_.ports.conv.empty() ? "" : fmt::format(" and {} convolution states", p_.ports.conv.size()), p_.artifact);
    for (const auto& note : p_.notes) line(0, "# not imported (no effect on ogai): {}", note);
    if (mm_)
      for (const auto& note : mm_->notes) line(0, "# multimodal: {}", note);
    for (const auto& output : p_.ports.unused_outputs) line(0, "# graph output '{}' is not used", output);
  }

  void model() {
    const GenaiConfig& c = p_.config;
    line(0, "model:");
    const onnx::Dim& vocab = p_.ports.logits.shape[2];
    if (c.vocab_size || vocab.is_fixed()) line(1, "vocab_size: {}", c.vocab_size ? *c.vocab_size : vocab.value);
    if (c.context_length) line(1, "max_sequence_length: {}", *c.context_length);
    line(1, "attention:");
    const bool combined = !p_.ports.combined.empty();
    const onnx::ValueInfo& first = combined ? p_.ports.combined.front().past : p_.ports.layers.front().past_key;
    const std::int64_t kv = first.shape[combined ? 2 : 1].value;
    const std::int64_t head = first.shape[combined ? 4 : 3].value;
    bool uniform = true;
    for (const KvLayer& l : p_.ports.layers) uniform = uniform && l.past_key.shape[1].value == kv && l.past_key.shape[3].value == head;
    const char* type = !c.num_attention_heads ? "unspecified" : *c.num_attention_heads == kv ? "multi_head" : "grouped_query";
    line(2, "type: {}", uniform ? type : "grouped_query");
    if (c.num_attention_heads) line(2, "num_attention_heads: {}", *c.num_attention_heads);
    if (uniform) line(2, "num_kv_heads: {}", kv);
    if (uniform) line(2, "head_dim: {}", head);
    if (c.sliding_window) line(2, "sliding_window: {}", c.sliding_window->window_size);
    if (c.search.chunk_size) line(1, "runtime_configurable: {{chunked_prefill: {{chunk_size: {}}}}}", *c.search.chunk_size);
  }

  void request_input(const std::string& name, const onnx::ValueInfo& v, const std::string& role, const std::string& source,
                     int batch_axis = 0) {
    line(3, "request.{}:", name);
    line(4, "contract: {}", contract(v, batch_axis));
    line(4, "role: {}", role);
    line(4, "source: {}", source);
    line(4, "required: true");
  }

  void inputs() {
    line(2, "inputs:");
    const DecoderPorts& ports = p_.ports;
    constexpr std::pair<const char*, const char*> kServingInputs[] = {{"active", "bool"}, {"done", "bool"}, {"accepted_len", "int64"}};
    for (const auto& [name, dtype] : kServingInputs) {
      line(3, "request.{}:", name);
      line(4, "contract: {{dtype: {}, rank: 1, shape: [batch], batch_layout: {{kind: request_aligned, axis: 0}}}}", dtype);
      line(4, "role: {{kind: opaque}}");
      line(4, "source: {{kind: application, name: {}}}", name);
      line(4, "required: true");
    }
    if (mm_) write_media_inputs(y_, *mm_);
    // The prompt's ids: the embedding session reads them in a multimodal pipeline.
    const onnx::ValueInfo& ids = mm_ ? mm_->embedding.input_ids : ports.input_ids;
    request_input("input_ids", ids, "{kind: runtime, version: '1.0', role: prompt_tokens}", "{kind: request}");
    const std::string opaque = "{kind: opaque}";
    if (ports.attention_mask)
      request_input("attention_mask", *ports.attention_mask, opaque, "{kind: application, name: attention_mask}");
    // 3-D mRoPE positions [3, batch, sequence] (batch axis 1): ogai's extension, importer/mrope.h.
    if (ports.position_ids && ports.mrope)
      request_input(kMropeInput, *ports.position_ids, opaque, fmt::format("{{kind: application, name: {}}}", kMropeInput),
                    1);
    else if (ports.position_ids)
      request_input("position_ids", *ports.position_ids, opaque, "{kind: application, name: position_ids}");
    for (const Cell& cell : cells_)
      request_input(cell.name, *cell.past, opaque, "{kind: application, name: " + cell.name + "}", cell.batch_axis);
    // Optimum's merged-decoder flag, one per run (no batch axis): importer/cache_branch.h.
    if (ports.cache_branch)
      request_input(kCacheBranchInput, *ports.cache_branch, opaque,
                    fmt::format("{{kind: application, name: {}}}", kCacheBranchInput), -1);
  }

  void outputs() {
    line(2, "outputs:");
    line(3, "logits:");
    line(4, "contract: {}", contract(p_.ports.logits));
    line(4, "role: tensor");
    line(4, "stage: pre_adapter");
  }

  void component() {
    const DecoderPorts& ports = p_.ports;
    line(2, "components:");
    if (mm_) write_media_components(y_, *mm_);
    line(3, "decoder:");
    line(4, "implementation: {{kind: onnx, artifact: {}}}", quote(p_.artifact));
    line(4, "ports:");
    line(5, "inputs:");
    if (ports.inputs_embeds) line(6, "{}: {}", quote(ports.inputs_embeds->name), contract(*ports.inputs_embeds));
    if (ports.has_input_ids) line(6, "{}: {}", quote(ports.input_ids.name), contract(ports.input_ids));
    if (ports.attention_mask) line(6, "{}: {}", quote(ports.attention_mask->name), contract(*ports.attention_mask));
    if (ports.position_ids)
      line(6, "{}: {}", quote(ports.position_ids->name), contract(*ports.position_ids, ports.mrope ? 1 : 0));
    for (const Cell& cell : cells_) line(6, "{}: {}", quote(cell.past->name), contract(*cell.past, cell.batch_axis));
    if (ports.cache_branch) line(6, "{}: {}", quote(ports.cache_branch->name), contract(*ports.cache_branch, -1));
    line(5, "outputs:");
    line(6, "{}: {}", quote(ports.logits.name), contract(ports.logits));
    if (ports.hidden_states) line(6, "{}: {}", quote(ports.hidden_states->name), contract(*ports.hidden_states));
    for (const Cell& cell : cells_) line(6, "{}: {}", quote(cell.present->name), contract(*cell.present, cell.batch_axis));
    std::string roles;
    if (ports.inputs_embeds) roles = quote(ports.inputs_embeds->name) + ": inputs_embeds";
    if (ports.has_input_ids) roles += (roles.empty() ? "" : ", ") + quote(ports.input_ids.name) + ": token_ids";
    if (ports.attention_mask) roles += ", " + quote(ports.attention_mask->name) + ": attention_mask";
    if (ports.position_ids) roles += ", " + quote(ports.position_ids->name) + ": position_ids";
    roles += ", " + quote(ports.logits.name) + ": logits";
    if (ports.hidden_states) roles += ", " + quote(ports.hidden_states->name) + ": hidden_states";
    line(5, "roles: {{{}}}", roles);
  }

  void state() {
    line(2, "state:");
    for (const Cell& cell : cells_) {
      line(3, "{}:", cell.name);
      line(4, "contract: {}", contract(*cell.past, cell.batch_axis));
      line(4, "scope: invocation");
      line(4, "initializer: request.{}", cell.name);
      line(4, "recurrence: {{kind: invariant}}");
      line(4, "management: runtime");
      line(4, "release_boundary: invocation");
      line(4, "service_group: {}", cell.group);
    }
  }

  void steps() {
    const DecoderPorts& ports = p_.ports;
    line(2, "steps:");
    if (mm_) write_media_steps(y_, *mm_);
    line(2, "- kind: invoke");
    line(3, "component: decoder");
    line(3, "inputs:");
    if (ports.inputs_embeds) line(4, "{}: embedding.inputs_embeds", quote(ports.inputs_embeds->name));
    if (ports.has_input_ids) line(4, "{}: request.input_ids", quote(ports.input_ids.name));
    if (ports.attention_mask) line(4, "{}: request.attention_mask", quote(ports.attention_mask->name));
    if (ports.position_ids)
      line(4, "{}: request.{}", quote(ports.position_ids->name), ports.mrope ? kMropeInput : "position_ids");
    for (const Cell& cell : cells_) line(4, "{}: request.{}", quote(cell.past->name), cell.name);
    if (ports.cache_branch) line(4, "{}: request.{}", quote(ports.cache_branch->name), kCacheBranchInput);
    line(3, "outputs:");
    line(4, "{}: decoder.logits", quote(ports.logits.name));
    if (ports.hidden_states) line(4, "{}: decoder.hidden_states", quote(ports.hidden_states->name));
    for (const Cell& cell : cells_) line(4, "{}: decoder.{}", quote(cell.present->name), cell.name);
    line(2, "- kind: emit");
    line(3, "value: decoder.logits");
    line(3, "output: logits");
    line(3, "mode: replace");
  }

  void serving() {
    line(2, "serving:");
    line(3, "active: request.active");
    line(3, "done: request.done");
    line(3, "accepted_len: request.accepted_len");
    line(3, "state_service:");
    line(4, "groups:");
    for (const char* group : {"causal_conv", "full_attention", "sliding_attention"}) {
      std::vector<const Cell*> members;
      for (const Cell& cell : cells_)
        if (cell.group == group) members.push_back(&cell);
      if (members.empty()) continue;
      line(5, "{}:", group);
      if (members.front()->role == nullptr) {
        // Convolution state, [batch, channels, conv_cache_size], replaced whole by each step.
        line(6, "kind: recurrent");
        line(6, "layout: bch");
        line(6, "update: {{kind: replace}}");
      } else {
        const bool combined = std::string(members.front()->role) == "combined";
        line(6, "kind: {}", group);
        // GPT-2's [2, batch, heads, sequence, head_size]: v1 names no layout for it (bnsh and bsnh
        // only), so the value is informational; role combined, sequence_axis 3 and the contracts'
        // batch axis 1 carry the geometry (docs/metadata.md).
        line(6, "sequence_axis: {}", combined ? 3 : 2);
        line(6, "layout: {}", combined ? "kv_bnsh" : "bnsh");
        if (p_.config.search.past_present_share_buffer && !combined) line(6, "aliasing: permitted");
        line(6, "update: {{kind: append}}");
      }
      line(6, "reuse: {{prefix_reusable: true, evictable_prefix: false}}");
      line(6, "ports:");
      line(7, "decoder:");
      for (const Cell* cell : members) {
        const std::string role = cell->role ? fmt::format(", role: {}", cell->role) : "";
        line(8, "{}: {{input: {}, output: {}{}, layer: {}}}", cell->name, quote(cell->past->name),
             quote(cell->present->name), role, cell->layer);
      }
    }
  }

  const DocumentPlan& p_;
  const MultimodalPlan* mm_;
  std::vector<Cell> cells_;
  YamlLines y_;
};

}  // namespace

std::string write_document(const DocumentPlan& plan) { return Writer(plan).run(); }

}  // namespace ogai::importer
