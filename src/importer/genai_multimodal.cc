// genai_config.json's multimodal sessions: model.vision, model.speech and model.embedding ->
// GenaiConfig::multimodal, with ORT GenAI's default port names (its config.h) for the fields a
// file leaves out. Which model types may have them is checked in genai_config.cc; what the graphs
// really take is checked port by port in multimodal_ports.cc.
#include <algorithm>

#include "importer/genai_sections.h"

namespace ogai::importer {
namespace {

using Names = std::vector<std::pair<std::string, std::string>>;

// Sets the names `value` writes; a field ORT GenAI does not have there is refused naming the known ones.
void read_names(const JsonReader& r, const Json& value, const std::string& path, Names& names) {
  for (const auto& [key, v] : r.object(value, path).items()) {
    const std::string at = join_path(path, key);
    const std::string& name = key;  // a structured binding is not captured (clang)
    auto it = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == name; });
    if (it == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n.first;
      r.refuse(at, "is not a port name ORT GenAI reads here (it reads " + known + ")");
    }
    it->second = r.string(v, at);
  }
}

// Session and run options of a non-decoder session: checked like the decoder's, then noted, since
// ogai opens every session of a package with the decoder's settings.
void read_options(const JsonReader& r, const Json& section, const std::string& path, GenaiConfig& c) {
  GenaiConfig scratch;
  if (section.contains("session_options"))
    read_session_options(r, section["session_options"], path + ".session_options", scratch);
  if (section.contains("run_options")) read_run_options(r, section["run_options"], path + ".run_options", scratch);
  const SessionSettings& s = scratch.session;
  if (!s.provider_options.empty() || !s.config_entries.empty() || s.intra_op_threads || s.inter_op_threads ||
      s.graph_optimization_level || s.enable_cpu_mem_arena || s.enable_mem_pattern || s.enable_profiling)
    c.notes.push_back(path + ".session_options: ogai opens every session of the package with the decoder's settings");
  for (const auto& line : s.ignored) c.notes.push_back(line);
}

SessionSection read_section(const JsonReader& r, const Json& value, const std::string& path, Names inputs,
                            Names outputs, const char* default_config, GenaiConfig& c) {
  SessionSection s;
  s.path = path;
  s.config_filename = default_config;
  s.inputs = std::move(inputs);
  s.outputs = std::move(outputs);
  if (!value.contains("filename")) r.refuse(path + ".filename", "missing: the session's graph file name is required");
  s.filename = r.string(value["filename"], path + ".filename");
  if (value.contains("config_filename")) s.config_filename = r.string(value["config_filename"], path + ".config_filename");
  if (value.contains("inputs")) read_names(r, value["inputs"], path + ".inputs", s.inputs);
  if (value.contains("outputs")) read_names(r, value["outputs"], path + ".outputs", s.outputs);
  read_options(r, value, path, c);
  return s;
}

constexpr std::string_view kAdapter =
    "a LoRA adapter ORT GenAI applies to the decoder while this modality is in the prompt is not imported";

void read_vision(const JsonReader& r, const Json& value, GenaiConfig& c) {
  const std::string path = "model.vision";
  r.closed(r.object(value, path), path,
           {"filename", "config_filename", "session_options", "run_options", "inputs", "outputs",
            "spatial_merge_size", "tokens_per_second", "patch_size", "num_visual_tokens", "window_size"},
           {{"adapter_filename", kAdapter},
            {"pipeline", "a vision encoder split into several sessions (patch embedding, attention, merger) is not "
                         "imported (ogai runs one vision graph)"}});
  // Read by ORT GenAI only for its QNN vision pipeline, per-image slicing of batched Qwen/Pixtral
  // vision graphs and video: ogai runs one image per vision invocation.
  // The 3-D positions of Qwen-VL decoders (importer/mrope.h) take the spatial merge from the
  // processor's PatchImage merge_size, which the vision graph's patches were made with.
  for (const char* key : {"spatial_merge_size", "tokens_per_second", "patch_size", "num_visual_tokens", "window_size"})
    if (value.contains(key)) {
      r.number(value[key], path + "." + key);
      c.notes.push_back(path + "." + key + " (ORT GenAI's multi-image slicing and QNN pipeline; ogai runs one image "
                        "per vision invocation" +
                        (std::string(key) == "spatial_merge_size"
                             ? "; 3-D mRoPE positions use the processor's PatchImage merge_size)"
                             : std::string(key) == "tokens_per_second" ? "; video positions are not computed)" : ")"));
    }
  // image_grid_thw defaults to "image_sizes", as in ORT GenAI.
  c.multimodal.vision = read_section(r, value, path,
                                     {{"pixel_values", "pixel_values"}, {"pixel_position_ids", "pixel_position_ids"},
                                      {"image_sizes", "image_sizes"}, {"image_grid_thw", "image_sizes"},
                                      {"attention_mask", "image_attention_mask"}},
                                     {{"image_features", "image_features"}}, "processor_config.json", c);
}

void read_speech(const JsonReader& r, const Json& value, GenaiConfig& c) {
  const std::string path = "model.speech";
  r.closed(r.object(value, path), path,
           {"filename", "config_filename", "session_options", "run_options", "inputs", "outputs"},
           {{"adapter_filename", kAdapter}});
  c.multimodal.speech = read_section(r, value, path,
                                     {{"audio_embeds", "audio_embeds"}, {"attention_mask", "audio_attention_mask"},
                                      {"audio_sizes", "audio_sizes"}, {"audio_projection_mode", "audio_projection_mode"}},
                                     {{"audio_features", "audio_features"}}, "audio_processor_config.json", c);
}

void read_embedding(const JsonReader& r, const Json& value, GenaiConfig& c) {
  const std::string path = "model.embedding";
  r.closed(r.object(value, path), path, {"filename", "session_options", "run_options", "inputs", "outputs"});
  if (value.contains("outputs") && r.object(value["outputs"], path + ".outputs").contains("per_layer_inputs"))
    r.refuse(path + ".outputs.per_layer_inputs", "per-layer inputs from the embedding session into the decoder "
                                                 "(Gemma-4 E2B) have no v1 role and are not imported");
  c.multimodal.embedding = read_section(r, value, path,
                                        {{"input_ids", "input_ids"}, {"image_features", "image_features"},
                                         {"audio_features", "audio_features"}},
                                        {{"inputs_embeds", "inputs_embeds"}}, "", c);
  c.multimodal.embedding->config_filename.clear();
}

}  // namespace

std::string SessionSection::input(const std::string& key) const {
  for (const auto& [k, name] : inputs)
    if (k == key) return name;
  return {};
}

std::string SessionSection::output(const std::string& key) const {
  for (const auto& [k, name] : outputs)
    if (k == key) return name;
  return {};
}

void read_multimodal(const JsonReader& r, const Json& model, GenaiConfig& c) {
  if (model.contains("vision")) read_vision(r, model["vision"], c);
  if (model.contains("speech")) read_speech(r, model["speech"], c);
  if (model.contains("embedding")) read_embedding(r, model["embedding"], c);
}

}  // namespace ogai::importer
