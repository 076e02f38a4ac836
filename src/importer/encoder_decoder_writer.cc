#include "importer/encoder_decoder_writer.h"

#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/version.h"
#include "importer/document_sections.h"
#include "importer/document_yaml.h"

namespace ogai::importer {
namespace {

constexpr const char* kServingInputs[][2] = {{"active", "bool"}, {"done", "bool"}, {"accepted_len", "int64"}};

struct SelfCell {
  std::string name;
  const onnx::ValueInfo *past, *present;
  const char* role;
  std::int64_t layer;
};

class EncoderDecoderWriter {
 public:
  explicit EncoderDecoderWriter(const EncoderDocumentPlan& p) : p_(p), d_(p.decoder), ports_(p.decoder.ports) {
    for (const KvLayer& l : ports_.layers) {
      const std::string n = std::to_string(l.index);
      self_.push_back({"self_key_" + n, &l.past_key, &l.present_key, "key", l.index});
      self_.push_back({"self_value_" + n, &l.past_value, &l.present_value, "value", l.index});
    }
  }

  std::string run() {
    header();
    line(0, "schema_version: v1");
    model();
    preprocessing();
    line(0, "pipeline:");
    line(1, "workflow:");
    line(2, "manifest:");
    line(3, "adapter_abis: {{onnx-genai.audio-preprocess: '1'}}");
    line(3, "capabilities: [workflow_ssa, typed_emit, serving_service_contract]");
    inputs();
    outputs();
    components();
    state();
    steps();
    serving();
    write_package_section(y_, d_);
    write_generation_section(y_, d_.config.search);
    return y_.take();
  }

 private:
  template <typename... Args>
  void line(int indent, fmt::format_string<Args...> format, Args&&... args) {
    y_.line(indent, format, std::forward<Args>(args)...);
  }

  std::string features_contract() const {
    return fmt::format("{{dtype: float32, rank: 3, shape: [batch, {}, {}], batch_layout: {{kind: request_aligned, "
                       "axis: 0}}}}", p_.audio.mels, p_.audio.frames);
  }

  void header() {
    const GenaiConfig& c = d_.config;
    line(0, "# Imported from {} by `ogai import` (ogai {}); model type '{}' (encoder-decoder).", c.file.filename().string(),
         OGAI_VERSION, c.type);
    line(0, "# encoder {} ({} cross-attention layers), decoder {} ({} self-attention layers); audio program from {}.",
         p_.encoder_artifact, p_.encoder.layers.size(), d_.artifact, ports_.layers.size(), kAudioProcessorName);
    line(0, "# Edit and commit this file to make it the package's own metadata.");
    for (const auto& note : d_.notes) line(0, "# not imported (no effect on ogai): {}", note);
    for (const auto& output : ports_.unused_outputs) line(0, "# decoder graph output '{}' is not used", output);
    for (const auto& output : p_.encoder.unused_outputs) line(0, "# encoder graph output '{}' is not used", output);
  }

  void model() {
    const GenaiConfig& c = d_.config;
    line(0, "model:");
    const onnx::Dim& vocab = ports_.logits.shape[2];
    if (c.vocab_size || vocab.is_fixed()) line(1, "vocab_size: {}", c.vocab_size ? *c.vocab_size : vocab.value);
    if (c.context_length) line(1, "max_sequence_length: {}", *c.context_length);
    const onnx::ValueInfo& first = ports_.layers.front().past_key;
    line(1, "attention:");
    line(2, "type: {}", c.num_attention_heads && *c.num_attention_heads != first.shape[1].value ? "grouped_query"
                                                                                                : "multi_head");
    if (c.num_attention_heads) line(2, "num_attention_heads: {}", *c.num_attention_heads);
    line(2, "num_kv_heads: {}", first.shape[1].value);
    line(2, "head_dim: {}", first.shape[3].value);
  }

  void preprocessing() {
    line(0, "preprocessing:");
    line(1, "audio:");
    line(2, "transforms:");
    for (const auto& t : p_.audio.transforms) line(2, "- {}", t);
    line(2, "outputs:");
    line(2, "- {{source: features, name: {}, content: audio_features, dtype: float32, contract: {}}}", p_.audio.features,
         features_contract());
  }

  void request_input(const std::string& name, const std::string& contract_text, const std::string& role,
                     const std::string& source) {
    line(3, "request.{}:", name);
    line(4, "contract: {}", contract_text);
    line(4, "role: {}", role);
    line(4, "source: {}", source);
    line(4, "required: true");
  }

  void inputs() {
    line(2, "inputs:");
    for (const auto& [name, dtype] : kServingInputs)
      request_input(name, fmt::format("{{dtype: {}, rank: 1, shape: [batch], batch_layout: {{kind: request_aligned, "
                                      "axis: 0}}}}", dtype), "{kind: opaque}",
                    fmt::format("{{kind: application, name: {}}}", name));
    request_input("audio", "{dtype: uint8, rank: 1, shape: [encoded_bytes]}", "{kind: runtime, version: '1.0', role: media}",
                  "{kind: request}");
    request_input("input_ids", contract(ports_.input_ids), "{kind: runtime, version: '1.0', role: prompt_tokens}",
                  "{kind: request}");
    for (const SelfCell& cell : self_)
      request_input(cell.name, contract(*cell.past), "{kind: opaque}", "{kind: application, name: " + cell.name + "}");
  }

  void outputs() {
    line(2, "outputs:");
    line(3, "logits:");
    line(4, "contract: {}", contract(ports_.logits));
    line(4, "role: tensor");
    line(4, "stage: pre_adapter");
    for (const auto& qk : p_.encoder.cross_qk) {
      line(3, "{}:", quote(qk.name));
      line(4, "contract: {}", contract(qk));
      line(4, "role: tensor");
      line(4, "stage: pre_adapter");
    }
  }

  void components() {
    const EncoderPorts& e = p_.encoder;
    line(2, "components:");
    line(3, "audio_preprocess:");
    line(4, "implementation: {{kind: adapter, abi: onnx-genai.audio-preprocess, version: '1'}}");
    line(4, "ports:");
    line(5, "inputs: {{encoded: {{dtype: uint8, rank: 1, shape: [encoded_bytes]}}}}");
    line(5, "outputs: {{audio_features: {}}}", features_contract());
    line(3, "encoder:");
    line(4, "implementation: {{kind: onnx, artifact: {}}}", quote(p_.encoder_artifact));
    line(4, "ports:");
    line(5, "inputs:");
    line(6, "{}: {}", quote(e.features.name), contract(e.features));
    line(5, "outputs:");
    if (e.hidden_states) line(6, "{}: {}", quote(e.hidden_states->name), contract(*e.hidden_states));
    for (const CrossLayer& l : e.layers) {
      line(6, "{}: {}", quote(l.present_key.name), contract(l.present_key));
      line(6, "{}: {}", quote(l.present_value.name), contract(l.present_value));
    }
    line(5, "roles: {{{}: audio_features}}", quote(e.features.name));
    line(3, "decoder:");
    line(4, "implementation: {{kind: onnx, artifact: {}}}", quote(d_.artifact));
    line(4, "ports:");
    line(5, "inputs:");
    line(6, "{}: {}", quote(ports_.input_ids.name), contract(ports_.input_ids));
    for (const SelfCell& cell : self_) line(6, "{}: {}", quote(cell.past->name), contract(*cell.past));
    for (const CrossLayer& l : e.layers) {
      line(6, "{}: {}", quote(l.past_key.name), contract(l.past_key));
      line(6, "{}: {}", quote(l.past_value.name), contract(l.past_value));
    }
    line(5, "outputs:");
    line(6, "{}: {}", quote(ports_.logits.name), contract(ports_.logits));
    for (const SelfCell& cell : self_) line(6, "{}: {}", quote(cell.present->name), contract(*cell.present));
    for (const auto& qk : e.cross_qk) line(6, "{}: {}", quote(qk.name), contract(qk));
    line(5, "roles: {{{}: token_ids, {}: logits}}", quote(ports_.input_ids.name), quote(ports_.logits.name));
  }

  void cell(const std::string& name, const onnx::ValueInfo& v, const std::string& initializer, const char* group) {
    line(3, "{}:", name);
    line(4, "contract: {}", contract(v));
    line(4, "scope: invocation");
    line(4, "initializer: {}", initializer);
    line(4, "recurrence: {{kind: invariant}}");
    line(4, "management: runtime");
    line(4, "release_boundary: invocation");
    line(4, "service_group: {}", group);
  }

  static std::string cross_cell(const char* kind, std::int64_t index) {
    return fmt::format("cross_{}_{}", kind, index);
  }

  void state() {
    line(2, "state:");
    for (const SelfCell& c : self_) cell(c.name, *c.past, "request." + c.name, "self_attention");
    for (const CrossLayer& l : p_.encoder.layers) {
      cell(cross_cell("key", l.index), l.past_key, "encoder." + cross_cell("key", l.index), "cross_attention");
      cell(cross_cell("value", l.index), l.past_value, "encoder." + cross_cell("value", l.index), "cross_attention");
    }
  }

  void steps() {
    const EncoderPorts& e = p_.encoder;
    line(2, "steps:");
    line(2, "- kind: invoke");
    line(3, "component: audio_preprocess");
    line(3, "inputs: {{encoded: request.audio}}");
    line(3, "outputs: {{audio_features: {}}}", p_.audio.features);
    line(2, "- kind: invoke");
    line(3, "component: encoder");
    line(3, "inputs: {{{}: {}}}", quote(e.features.name), p_.audio.features);
    line(3, "outputs:");
    if (e.hidden_states) line(4, "{}: encoder.hidden_states", quote(e.hidden_states->name));
    for (const CrossLayer& l : e.layers) {
      line(4, "{}: encoder.{}", quote(l.present_key.name), cross_cell("key", l.index));
      line(4, "{}: encoder.{}", quote(l.present_value.name), cross_cell("value", l.index));
    }
    line(2, "- kind: invoke");
    line(3, "component: decoder");
    line(3, "inputs:");
    line(4, "{}: request.input_ids", quote(ports_.input_ids.name));
    for (const SelfCell& c : self_) line(4, "{}: request.{}", quote(c.past->name), c.name);
    for (const CrossLayer& l : e.layers) {
      line(4, "{}: encoder.{}", quote(l.past_key.name), cross_cell("key", l.index));
      line(4, "{}: encoder.{}", quote(l.past_value.name), cross_cell("value", l.index));
    }
    line(3, "outputs:");
    line(4, "{}: decoder.logits", quote(ports_.logits.name));
    for (const SelfCell& c : self_) line(4, "{}: decoder.{}", quote(c.present->name), c.name);
    for (const auto& qk : e.cross_qk) line(4, "{}: {}", quote(qk.name), quote("decoder." + qk.name));
    line(2, "- {{kind: emit, value: decoder.logits, output: logits, mode: replace}}");
    for (const auto& qk : e.cross_qk)
      line(2, "- {{kind: emit, value: {}, output: {}, mode: replace}}", quote("decoder." + qk.name), quote(qk.name));
  }

  void serving() {
    line(2, "serving:");
    line(3, "active: request.active");
    line(3, "done: request.done");
    line(3, "accepted_len: request.accepted_len");
    line(3, "state_service:");
    line(4, "groups:");
    line(5, "self_attention:");
    line(6, "kind: full_attention");
    line(6, "sequence_axis: 2");
    line(6, "layout: bnsh");
    line(6, "update: {{kind: append}}");
    // A prefix is only worth its encoder outputs: the self KV is not reusable across requests.
    line(6, "reuse: {{prefix_reusable: false, evictable_prefix: false}}");
    line(6, "ports:");
    line(7, "decoder:");
    for (const SelfCell& c : self_)
      line(8, "{}: {{input: {}, output: {}, role: {}, layer: {}}}", c.name, quote(c.past->name), quote(c.present->name),
           c.role, c.layer);
    line(5, "cross_attention:");
    line(6, "kind: cross_attention");
    line(6, "sequence_axis: 2");
    line(6, "layout: bnsh");
    line(6, "reuse: {{prefix_reusable: false, evictable_prefix: false}}");
    line(6, "ports:");
    line(7, "decoder:");
    for (const CrossLayer& l : p_.encoder.layers) {
      line(8, "{}: {{input: {}, access: read_only, role: key, layer: {}}}", cross_cell("key", l.index),
           quote(l.past_key.name), l.index);
      line(8, "{}: {{input: {}, access: read_only, role: value, layer: {}}}", cross_cell("value", l.index),
           quote(l.past_value.name), l.index);
    }
  }

  const EncoderDocumentPlan& p_;
  const DocumentPlan& d_;
  const DecoderPorts& ports_;
  std::vector<SelfCell> self_;
  YamlLines y_;
};

}  // namespace

std::string write_encoder_decoder_document(const EncoderDocumentPlan& plan) {
  return EncoderDecoderWriter(plan).run();
}

}  // namespace ogai::importer
