#include "importer/multimodal_ports.h"

#include <algorithm>

#include "base/error.h"
#include "importer/processor_import.h"

namespace ogai::importer {
namespace fs = std::filesystem;
namespace {

bool is_float(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16 || t == DataType::kBfloat16; }

std::string describe(const onnx::ValueInfo& v) { return std::string(dtype_name(v.dtype)) + " " + shape_text(v); }

const onnx::Dim* last_dim(const onnx::ValueInfo& v) {
  return v.has_shape && !v.shape.empty() ? &v.shape.back() : nullptr;
}

// Two ports that carry one value: same dtype, and the same width when both are fixed.
void check_same_width(const GenaiConfig& c, const std::string& what, const onnx::ValueInfo& out, const std::string& out_graph,
                      const onnx::ValueInfo& in, const std::string& in_graph) {
  const onnx::Dim* a = last_dim(out);
  const onnx::Dim* b = last_dim(in);
  if (out.dtype != in.dtype || (a && b && a->is_fixed() && b->is_fixed() && a->value != b->value))
    fail(ErrorCode::kUnsupported, c.file.string(), "{}: output '{}' of {} is {} but input '{}' of {} takes {}", what,
         out.name, out_graph, describe(out), in.name, in_graph, describe(in));
}

nlohmann::ordered_json contract_json(const onnx::ValueInfo& v) {
  nlohmann::ordered_json c = {{"dtype", std::string(dtype_name(v.dtype))}, {"rank", v.rank()}};
  nlohmann::ordered_json shape = nlohmann::ordered_json::array();
  for (const onnx::Dim& d : v.shape) {
    if (d.is_fixed()) shape.push_back(d.value);
    else if (!d.symbol.empty()) shape.push_back(d.symbol);
    else return c;  // an unnamed dim: no shape
  }
  c["shape"] = shape;
  return c;
}

struct Session {
  fs::path file;
  std::string artifact;
  onnx::GraphInfo graph;
};

Session open_session(const GenaiConfig& c, const fs::path& dir, const SessionSection& s) {
  Session session;
  session.file = folder_file(c, dir, s.filename, s.path + ".filename");
  session.artifact = fs::path(s.filename).lexically_normal().generic_string();
  session.graph = onnx::read_graph_info(session.file);
  return session;
}

const onnx::ValueInfo& session_output(const GenaiConfig& c, const Session& s, const SessionSection& section, const char* key) {
  const std::string name = section.output(key);
  const onnx::ValueInfo* v = s.graph.find_output(name);
  if (!v)
    fail(ErrorCode::kUnsupported, s.file.string(), "no graph output '{}' ({}.outputs.{})", name, section.path, key);
  if (!is_float(v->dtype) || v->kind != onnx::ValueInfo::Kind::kTensor)
    fail(ErrorCode::kUnsupported, s.file.string(), "'{}' ({}.outputs.{}) is {}; expected a float tensor", name,
         section.path, key, describe(*v));
  return *v;
}

void note_unused_outputs(const Session& s, const std::string& used, MultimodalPlan& plan) {
  for (const onnx::ValueInfo& v : s.graph.outputs)
    if (v.name != used) plan.notes.push_back("graph output '" + v.name + "' of " + s.artifact + " is not used");
}

void check_ids(const Session& s, const onnx::ValueInfo& v, const std::string& field) {
  const bool index = v.dtype == DataType::kInt64 || v.dtype == DataType::kInt32;
  if (!index || v.rank() != 2)
    fail(ErrorCode::kUnsupported, s.file.string(), "'{}' ({}) is {}; expected int32 or int64 [batch, sequence]", v.name,
         field, describe(v));
}

EmbeddingPlan bind_embedding(const GenaiConfig& c, const fs::path& dir, const DecoderPorts& decoder, MultimodalPlan& plan) {
  const SessionSection& section = *c.multimodal.embedding;
  const Session s = open_session(c, dir, section);
  EmbeddingPlan e;
  e.artifact = s.artifact;
  bool has_ids = false;
  for (const onnx::ValueInfo* v : s.graph.runtime_inputs()) {
    if (v->name == section.input("input_ids")) {
      e.input_ids = *v;
      has_ids = true;
    } else if (v->name == section.input("image_features")) {
      e.image_features = *v;
    } else if (v->name == section.input("audio_features")) {
      e.audio_features = *v;
    } else {
      fail(ErrorCode::kUnsupported, s.file.string(),
           "graph input '{}' is not one ogai feeds: it is none of model.embedding.inputs input_ids '{}', "
           "image_features '{}', audio_features '{}'",
           v->name, section.input("input_ids"), section.input("image_features"), section.input("audio_features"));
    }
  }
  if (!has_ids)
    fail(ErrorCode::kUnsupported, s.file.string(), "no graph input '{}' (model.embedding.inputs.input_ids)",
         section.input("input_ids"));
  check_ids(s, e.input_ids, "model.embedding.inputs.input_ids");
  e.inputs_embeds = session_output(c, s, section, "inputs_embeds");
  if (e.inputs_embeds.rank() != 3)
    fail(ErrorCode::kUnsupported, s.file.string(), "'{}' (model.embedding.outputs.inputs_embeds) is {}; expected "
         "[batch, sequence, hidden]", e.inputs_embeds.name, describe(e.inputs_embeds));
  check_same_width(c, "model.embedding.outputs.inputs_embeds", e.inputs_embeds, s.artifact, *decoder.inputs_embeds,
                   decoder.graph);
  if (decoder.has_input_ids && decoder.input_ids.dtype != e.input_ids.dtype)
    fail(ErrorCode::kUnsupported, c.file.string(), "the decoder's '{}' is {} but the embedding's '{}' is {}: both are "
         "fed the prompt's ids", decoder.input_ids.name, describe(decoder.input_ids), e.input_ids.name,
         describe(e.input_ids));
  note_unused_outputs(s, e.inputs_embeds.name, plan);
  return e;
}

// The features input of the embedding that `modality`'s session feeds, both checked present.
const onnx::ValueInfo& features_input(const GenaiConfig& c, const EmbeddingPlan& e, const SessionSection& section,
                                      const std::optional<onnx::ValueInfo>& input, const char* key) {
  if (!input)
    fail(ErrorCode::kUnsupported, c.file.string(), "{}: the embedding graph {} has no input '{}' "
         "(model.embedding.inputs.{}) to take this session's features", section.path, e.artifact,
         c.multimodal.embedding->input(key), key);
  return *input;
}

// The processor's field for a graph input, by the config's names (pixel_values -> 'pixel_values').
std::vector<ProgramTarget> targets(const SessionSection& section, const std::vector<onnx::ValueInfo>& inputs,
                                   const std::string& prefix) {
  std::vector<ProgramTarget> out;
  for (const onnx::ValueInfo& v : inputs) {
    // image_grid_thw and image_sizes may share a graph name (ORT GenAI's default); the processor
    // makes one of them, so both are offered and the one it makes is kept.
    std::string field;
    for (const auto& [key, name] : section.inputs)
      if (name == v.name) field = field.empty() ? key : field;
    out.push_back({field.empty() ? v.name : field, prefix + "." + v.name, v.dtype, v.has_shape ? v.rank() : -1});
  }
  return out;
}

EncoderPlan bind_encoder(const GenaiConfig& c, const fs::path& dir, const SessionSection& section, bool vision,
                         const onnx::ValueInfo& embedding_input, const EmbeddingPlan& e, MultimodalPlan& plan) {
  const Session s = open_session(c, dir, section);
  EncoderPlan p;
  p.component = vision ? "vision" : "speech";
  p.artifact = s.artifact;
  p.adapter = vision ? "image_preprocess" : "audio_preprocess";
  p.abi = vision ? "onnx-genai.image-preprocess" : "onnx-genai.audio-preprocess";
  p.prefix = vision ? "image" : "audio";
  p.request_input = "request." + p.prefix;
  for (const onnx::ValueInfo* v : s.graph.runtime_inputs()) {
    if (v->kind != onnx::ValueInfo::Kind::kTensor || !v->has_shape)
      fail(ErrorCode::kUnsupported, s.file.string(), "graph input '{}' is {}; expected a tensor of known rank", v->name,
           describe(*v));
    p.inputs.push_back(*v);
  }
  const char* key = vision ? "image_features" : "audio_features";
  p.features = session_output(c, s, section, key);
  check_same_width(c, section.path + ".outputs." + key, p.features, s.artifact, embedding_input, e.artifact);
  note_unused_outputs(s, p.features.name, plan);
  const fs::path processor = dir / section.config_filename;
  if (!fs::is_regular_file(processor)) {
    if (!vision)
      fail(ErrorCode::kNotFound, processor.string(), "not found ({}.config_filename '{}'): ORT GenAI needs the audio "
           "processor config beside a speech session", section.path, section.config_filename);
    plan.notes.push_back(section.path + ": no " + section.config_filename + " beside the graph: the vision inputs are "
                         "request inputs a caller fills with preprocessed tensors");
    return p;
  }
  folder_file(c, dir, section.config_filename, section.path + ".config_filename");
  const std::vector<ProgramTarget> wanted = targets(section, p.inputs, p.prefix);
  ProcessorProgram program = vision ? import_image_processor(processor, wanted) : import_audio_processor(processor, wanted);
  // Each output's contract: the graph input's (V-PREPROC wants one for workflow use).
  for (auto& out : program.program["outputs"])
    for (const onnx::ValueInfo& v : p.inputs)
      if (out["name"] == p.prefix + "." + v.name) out["contract"] = contract_json(v);
  p.program = std::move(program.program);
  for (auto& n : program.notes) plan.notes.push_back(std::move(n));
  return p;
}

}  // namespace

fs::path folder_file(const GenaiConfig& c, const fs::path& dir, const std::string& name, const std::string& field) {
  const fs::path relative(name);
  if (relative.empty() || relative.is_absolute())
    fail(ErrorCode::kUnsupported, c.file.string(), "{} '{}' must be a path inside the folder", field, name);
  const fs::path file = dir / relative;
  if (!fs::is_regular_file(file)) fail(ErrorCode::kNotFound, file.string(), "not found ({} '{}')", field, name);
  const fs::path root = fs::canonical(dir);
  const fs::path real = fs::canonical(file);
  auto [end, _] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  if (end != root.end())
    fail(ErrorCode::kUnsupported, c.file.string(), "{} '{}' resolves outside the folder ({})", field, name,
         real.string());
  return file;
}

MultimodalPlan bind_multimodal(const GenaiConfig& c, const fs::path& dir, const DecoderPorts& decoder) {
  MultimodalPlan plan;
  plan.embedding = bind_embedding(c, dir, decoder, plan);
  const EmbeddingPlan& e = plan.embedding;
  const MultimodalSections& m = c.multimodal;
  if (e.image_features && !m.vision)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.embedding: graph input '{}' of {} takes image features but "
         "there is no model.vision session to make them", e.image_features->name, e.artifact);
  if (e.audio_features && !m.speech)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.embedding: graph input '{}' of {} takes audio features but "
         "there is no model.speech session to make them", e.audio_features->name, e.artifact);
  if (m.vision)
    plan.vision = bind_encoder(c, dir, *m.vision, true, features_input(c, e, *m.vision, e.image_features, "image_features"),
                               e, plan);
  if (m.speech)
    plan.speech = bind_encoder(c, dir, *m.speech, false, features_input(c, e, *m.speech, e.audio_features, "audio_features"),
                               e, plan);
  return plan;
}

}  // namespace ogai::importer
