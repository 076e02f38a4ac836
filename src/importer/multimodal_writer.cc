#include "importer/multimodal_writer.h"

namespace ogai::importer {
namespace {

constexpr int kNoBatch = -1;

std::vector<const EncoderPlan*> encoders(const MultimodalPlan& plan) {
  std::vector<const EncoderPlan*> out;
  if (plan.vision) out.push_back(&*plan.vision);
  if (plan.speech) out.push_back(&*plan.speech);
  return out;
}

// The value an encoder's graph input reads: the program's output, or the request input.
std::string source(const EncoderPlan& e, const onnx::ValueInfo& input) {
  return e.program ? e.prefix + "." + input.name : "request." + input.name;
}

void media_input(YamlLines& y, const std::string& name, const std::string& contract_text) {
  y.line(3, "{}:", name);
  y.line(4, "contract: {}", contract_text);
  y.line(4, "role: {{kind: runtime, version: '1.0', role: media}}");
  y.line(4, "source: {{kind: request}}");
  y.line(4, "required: true");
}

void adapter_component(YamlLines& y, const EncoderPlan& e) {
  y.line(3, "{}:", e.adapter);
  y.line(4, "implementation: {{kind: adapter, abi: {}, version: '1'}}", e.abi);
  y.line(4, "ports:");
  y.line(5, "inputs:");
  y.line(6, "encoded: {{dtype: uint8, rank: 1, shape: [encoded_bytes]}}");
  y.line(5, "outputs:");
  for (const onnx::ValueInfo& v : e.inputs) y.line(6, "{}: {}", quote(v.name), contract(v, kNoBatch));
}

void encoder_component(YamlLines& y, const EncoderPlan& e) {
  y.line(3, "{}:", e.component);
  y.line(4, "implementation: {{kind: onnx, artifact: {}}}", quote(e.artifact));
  y.line(4, "ports:");
  y.line(5, "inputs:");
  for (const onnx::ValueInfo& v : e.inputs) y.line(6, "{}: {}", quote(v.name), contract(v, kNoBatch));
  y.line(5, "outputs:");
  y.line(6, "{}: {}", quote(e.features.name), contract(e.features, kNoBatch));
}

void embedding_component(YamlLines& y, const EmbeddingPlan& e) {
  y.line(3, "embedding:");
  y.line(4, "implementation: {{kind: onnx, artifact: {}}}", quote(e.artifact));
  y.line(4, "ports:");
  y.line(5, "inputs:");
  y.line(6, "{}: {}", quote(e.input_ids.name), contract(e.input_ids));
  for (const auto* f : {&e.image_features, &e.audio_features})
    if (*f) y.line(6, "{}: {}", quote((*f)->name), contract(**f, kNoBatch));
  y.line(5, "outputs:");
  y.line(6, "{}: {}", quote(e.inputs_embeds.name), contract(e.inputs_embeds));
}

}  // namespace

void write_preprocessing(YamlLines& y, const MultimodalPlan& plan) {
  bool opened = false;
  for (const EncoderPlan* e : encoders(plan)) {
    if (!e->program) continue;
    if (!opened) y.line(0, "preprocessing:");
    opened = true;
    y.line(1, "{}:", e->prefix);
    write_json(y, 2, *e->program);
  }
}

void write_manifest_abis(YamlLines& y, const MultimodalPlan& plan) {
  std::string abis;
  for (const EncoderPlan* e : encoders(plan))
    if (e->program) abis += (abis.empty() ? "" : ", ") + e->abi + ": '1'";
  if (!abis.empty()) y.line(3, "adapter_abis: {{{}}}", abis);
}

void write_media_inputs(YamlLines& y, const MultimodalPlan& plan) {
  for (const EncoderPlan* e : encoders(plan)) {
    if (e->program) {
      // One byte-count dimension per medium: a shared name would bind the image's and the clip's sizes.
      media_input(y, e->request_input, "{dtype: uint8, rank: 1, shape: [" + e->prefix + "_bytes]}");
      continue;
    }
    for (const onnx::ValueInfo& v : e->inputs) media_input(y, "request." + v.name, contract(v, kNoBatch));
  }
}

void write_media_components(YamlLines& y, const MultimodalPlan& plan) {
  for (const EncoderPlan* e : encoders(plan)) {
    if (e->program) adapter_component(y, *e);
    encoder_component(y, *e);
  }
  embedding_component(y, plan.embedding);
}

void write_media_steps(YamlLines& y, const MultimodalPlan& plan) {
  for (const EncoderPlan* e : encoders(plan)) {
    if (!e->program) continue;
    y.line(2, "- kind: invoke");
    y.line(3, "component: {}", e->adapter);
    y.line(3, "inputs:");
    y.line(4, "encoded: {}", e->request_input);
    y.line(3, "outputs:");
    for (const onnx::ValueInfo& v : e->inputs) y.line(4, "{}: {}", quote(v.name), quote(source(*e, v)));
  }
  for (const EncoderPlan* e : encoders(plan)) {
    y.line(2, "- kind: invoke");
    y.line(3, "component: {}", e->component);
    y.line(3, "inputs:");
    for (const onnx::ValueInfo& v : e->inputs) y.line(4, "{}: {}", quote(v.name), quote(source(*e, v)));
    y.line(3, "outputs:");
    y.line(4, "{}: {}", quote(e->features.name), quote(e->component + "." + e->features.name));
  }
  const EmbeddingPlan& m = plan.embedding;
  y.line(2, "- kind: invoke");
  y.line(3, "component: embedding");
  y.line(3, "inputs:");
  y.line(4, "{}: request.input_ids", quote(m.input_ids.name));
  if (m.image_features) y.line(4, "{}: {}", quote(m.image_features->name), quote("vision." + plan.vision->features.name));
  if (m.audio_features) y.line(4, "{}: {}", quote(m.audio_features->name), quote("speech." + plan.speech->features.name));
  y.line(3, "outputs:");
  y.line(4, "{}: embedding.inputs_embeds", quote(m.inputs_embeds.name));
}

}  // namespace ogai::importer
