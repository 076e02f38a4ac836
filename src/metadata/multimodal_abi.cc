#include "metadata/multimodal_abi.h"

#include <map>
#include <variant>

#include "base/error.h"

namespace ogai::metadata {
namespace {

struct Producer {
  const InvokeStep* invoke = nullptr;
  std::string port;  // the output port bound to the value
  std::string path;  // the invoke step's document path
};

// The invokes of a flat workflow (sequences opened); false when it has a loop or a branch (the
// interpreter's, not this front's).
bool collect(const std::vector<Step>& steps, std::vector<const Step*>& out) {
  for (const Step& s : steps) {
    if (const auto* seq = std::get_if<SequenceStep>(&s.body)) {
      if (!collect(seq->steps, out)) return false;
    } else if (std::holds_alternative<LoopStep>(s.body) || std::holds_alternative<BranchStep>(s.body)) {
      return false;
    } else if (std::holds_alternative<InvokeStep>(s.body)) {
      out.push_back(&s);
    }
  }
  return true;
}

std::string last_segment(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// The names of a preprocessing program's outputs (empty: the document has no such program).
std::vector<std::string> program_outputs(const Document& doc, const char* kind) {
  std::vector<std::string> names;
  const auto& pre = doc.preprocessing;
  if (!pre.is_object() || !pre.contains(kind) || !pre[kind].is_object()) return names;
  const auto& outputs = pre[kind].value("outputs", nlohmann::json::array());
  if (!outputs.is_array()) return names;
  for (const auto& o : outputs)
    if (o.is_object() && o.contains("name") && o["name"].is_string()) names.push_back(o["name"].get<std::string>());
  return names;
}

// The output of `kind`'s program named `value`, or ending in ".<last segment of value>".
std::optional<std::string> match_output(const Document& doc, MediaKind kind, const std::string& value) {
  const auto names = program_outputs(doc, kind == MediaKind::kImage ? "image" : "audio");
  for (const auto& n : names)
    if (n == value) return n;
  const std::string tail = "." + last_segment(value);
  for (const auto& n : names)
    if (n.size() > tail.size() && n.ends_with(tail)) return n;
  return std::nullopt;
}

class Deriver {
 public:
  explicit Deriver(const Package& p) : p_(p), wf_(*p.document.workflow) {}

  std::optional<MultimodalAbi> run() {
    const DecoderAbi& dec = *p_.decoder;
    std::vector<const Step*> steps;
    if (!collect(wf_.steps, steps)) return std::nullopt;
    const InvokeStep* decoder_invoke = nullptr;
    for (const Step* s : steps) {
      const auto& inv = std::get<InvokeStep>(s->body);
      for (const auto& [port, value] : inv.outputs) producers_[value] = {&inv, port, s->path};
      if (inv.component == dec.component) decoder_invoke = &inv;
    }
    if (decoder_invoke == nullptr) return std::nullopt;
    const std::string* embeds = find_named(decoder_invoke->inputs, *dec.inputs_embeds_input);
    if (embeds == nullptr) return std::nullopt;
    auto producer = producers_.find(*embeds);
    if (producer == producers_.end()) return std::nullopt;  // embeddings from the request: not this front
    MultimodalAbi abi;
    const Producer& emb = producer->second;
    abi.embedding = emb.invoke->component;
    abi.embedding_artifact = onnx_artifact(abi.embedding, emb.path);
    abi.embeds_output = emb.port;
    abi.components.insert(abi.embedding);
    for (const auto& [port, value] : emb.invoke->inputs) {
      const std::string at = emb.path + ".inputs." + port;
      if (is_prompt_tokens(value)) {
        abi.ids_input = port;
        continue;
      }
      auto enc = producers_.find(value);
      if (enc == producers_.end())
        fail(ErrorCode::kUnsupported, at,
             "the embedding's input is bound to '{}', which is neither the prompt tokens (a request input with role "
             "prompt_tokens) nor an encoder's output; the native engine cannot fill it",
             value);
      abi.encoders.push_back(encoder(enc->second, port, abi.components));
    }
    if (abi.ids_input.empty())
      fail(ErrorCode::kUnsupported, emb.path + ".inputs",
           "the embedding component '{}' takes no input bound to the prompt tokens (role prompt_tokens)",
           abi.embedding);
    return abi;
  }

 private:
  std::filesystem::path onnx_artifact(const std::string& component, const std::string& path) const {
    const Component* c = find_named(wf_.components, component);
    if (c == nullptr || c->implementation.kind != Implementation::Kind::kOnnx)
      fail(ErrorCode::kUnsupported, path, "component '{}' is not an ONNX graph; the native engine runs ONNX encoders",
           component);
    auto it = p_.files.component_artifacts.find(component);
    return it == p_.files.component_artifacts.end() ? std::filesystem::path() : it->second;
  }

  bool is_prompt_tokens(const std::string& value) const {
    const WorkflowInput* in = find_named(wf_.inputs, value);
    return in && in->role.kind == InputRole::Kind::kRuntime && in->role.role == "prompt_tokens";
  }

  // The adapter's media kind when `component` is an image- or audio-preprocess adapter.
  std::optional<MediaKind> adapter_kind(const std::string& component) const {
    const Component* c = find_named(wf_.components, component);
    if (c == nullptr || c->implementation.kind != Implementation::Kind::kAdapter) return std::nullopt;
    if (c->implementation.abi == "onnx-genai.image-preprocess") return MediaKind::kImage;
    if (c->implementation.abi == "onnx-genai.audio-preprocess") return MediaKind::kAudio;
    return std::nullopt;
  }

  // The program output and kind feeding an encoder input bound to `value`.
  std::pair<std::string, MediaKind> source(const std::string& value, const std::string& at,
                                           std::set<std::string>& components) const {
    if (const WorkflowInput* in = find_named(wf_.inputs, value)) {
      if (in->source.kind != InputSource::Kind::kRequest)
        fail(ErrorCode::kUnsupported, "pipeline.workflow.inputs." + value,
             "an encoder input must come from the request's media (source kind request)");
      for (MediaKind kind : {MediaKind::kImage, MediaKind::kAudio})
        if (auto out = match_output(p_.document, kind, value)) return {*out, kind};
      fail(ErrorCode::kUnsupported, at,
           "'{}' is no output of the document's preprocessing.image or preprocessing.audio program (an output named "
           "'{}' or ending in '.{}'), so the native engine cannot produce it from an image or audio file",
           value, value, last_segment(value));
    }
    auto it = producers_.find(value);
    if (it != producers_.end()) {
      const auto kind = adapter_kind(it->second.invoke->component);
      if (kind) {
        components.insert(it->second.invoke->component);
        if (auto out = match_output(p_.document, *kind, value)) return {*out, *kind};
        if (auto out = match_output(p_.document, *kind, it->second.port)) return {*out, *kind};
        fail(ErrorCode::kUnsupported, it->second.path + ".outputs." + it->second.port,
             "the preprocessing.{} program has no output named '{}' or ending in '.{}'", media_kind_name(*kind), value,
             it->second.port);
      }
    }
    fail(ErrorCode::kUnsupported, at,
         "the encoder input is bound to '{}', which is neither a request media input nor an image-/audio-preprocess "
         "adapter's output; the native engine cannot fill it",
         value);
  }

  EncoderAbi encoder(const Producer& prod, const std::string& embedding_input, std::set<std::string>& components) const {
    EncoderAbi e;
    e.component = prod.invoke->component;
    e.path = prod.path;
    e.artifact = onnx_artifact(e.component, prod.path);
    e.output = prod.port;
    e.embedding_input = embedding_input;
    components.insert(e.component);
    std::optional<MediaKind> kind;
    for (const auto& [port, value] : prod.invoke->inputs) {
      const std::string at = prod.path + ".inputs." + port;
      auto [output, k] = source(value, at, components);
      if (kind && *kind != k)
        fail(ErrorCode::kUnsupported, at, "encoder '{}' mixes {} and {} preprocessing outputs", e.component,
             media_kind_name(*kind), media_kind_name(k));
      kind = k;
      e.inputs.push_back({port, output});
    }
    if (!kind) fail(ErrorCode::kUnsupported, prod.path + ".inputs", "encoder '{}' takes no media input", e.component);
    e.kind = *kind;
    return e;
  }

  const Package& p_;
  const Workflow& wf_;
  std::map<std::string, Producer> producers_;
};

}  // namespace

const char* media_kind_name(MediaKind kind) { return kind == MediaKind::kImage ? "image" : "audio"; }

std::optional<MultimodalAbi> derive_multimodal_abi(const Package& package) {
  if (!package.document.workflow || !package.decoder || !package.decoder->inputs_embeds_input) return std::nullopt;
  return Deriver(package).run();
}

}  // namespace ogai::metadata
