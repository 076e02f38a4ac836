// pipeline.workflow: manifest, inputs, outputs, components, state, effects (steps and serving
// are read in parse_steps.cc and parse_serving.cc).
#include <fmt/format.h>

#include "metadata/parse_internal.h"

namespace ogai::metadata::detail {
namespace {

constexpr Retired kArtifactHash{"sha256", "metadata carries no hashes; integrity belongs to the distribution layer"};

Manifest read_manifest(Reader& r, const Node* node, const std::string& path) {
  Manifest m;
  Fields f(r, node, path, {{"ir_version", "the ONNX artifact states its IR version"},
                           {"onnx_opsets", "the ONNX artifact states its opsets"},
                           {"custom_op_versions", "metadata never admits custom operators"}});
  if (!node) r.error(path, "required key is missing");
  m.capabilities = f.strings("capabilities");
  r.entries(f.get("adapter_abis"), f.at("adapter_abis"), [&](const std::string& abi, const Node& v, const std::string& p) {
    if (auto version = r.string(&v, p)) m.adapter_abis.emplace_back(abi, *version);
  });
  return m;
}

InputRole read_input_role(Reader& r, const Node* node, const std::string& path) {
  InputRole role;
  Fields f(r, node, path);
  if (!node) r.error(path, "required key is missing");
  role.kind = static_cast<InputRole::Kind>(f.choice("kind", {"opaque", "runtime"}, true).value_or(0));
  if (role.kind == InputRole::Kind::kRuntime) {
    role.version = f.string_or("version", "", true);
    role.role = f.one_of("role", {"prompt_text", "prompt_tokens", "negative_prompt_text",
                                   "negative_prompt_tokens", "media", "constraint", "session_id",
                                   "max_iterations", "max_output_tokens", "seed", "sampling_temperature",
                                   "sampling_top_k", "sampling_top_p", "sampling_min_p", "guidance_scale",
                                   "width", "height", "denoising_strength", "adapter_segments",
                                   "adapter_counts", "adapter_scales", "adapter_active", "row_selection"},
                         true).value_or("");
  }
  return role;
}

InputSource read_input_source(Reader& r, const Node* node, const std::string& path) {
  InputSource source;
  Fields f(r, node, path);
  if (!node) r.error(path, "required key is missing");
  source.kind = static_cast<InputSource::Kind>(
      f.choice("kind", {"request", "application", "literal", "artifact"}, true).value_or(0));
  if (source.kind == InputSource::Kind::kApplication) source.name = f.string_or("name", "", true);
  if (source.kind == InputSource::Kind::kArtifact) source.path = f.string_or("path", "", true);
  return source;
}

WorkflowInput read_input(Reader& r, const Node& node, const std::string& path) {
  WorkflowInput in;
  Fields f(r, &node, path);
  in.contract = read_contract(r, f.need("contract"), f.at("contract"));
  in.role = read_input_role(r, f.get("role"), f.at("role"));
  in.source = read_input_source(r, f.get("source"), f.at("source"));
  in.required = f.boolean("required", true);
  if (f.has("default")) in.default_value = f.json("default");
  in.present_as = f.string("present_as");
  in.externally_suppliable = f.boolean("externally_suppliable", false);
  return in;
}

WorkflowOutput read_output(Reader& r, const Node& node, const std::string& path) {
  WorkflowOutput out;
  Fields f(r, &node, path);
  out.contract = read_contract(r, f.need("contract"), f.at("contract"));
  out.role = f.one_of("role", {"tokens", "text", "image", "audio", "tensor", "event", "video"}, true).value_or("");
  out.stage = f.one_of("stage", {"pre_adapter", "post_adapter"}, true).value_or("");
  out.value_range = f.one_of("value_range", {"zero_to_one", "negative_one_to_one", "zero_to_255"});
  if (const Node* media = f.get("media")) {
    Fields m(r, media, f.at("media"));
    MediaOutput mo;
    mo.container = m.one_of("container", {"raw", "wav"}, true).value_or("");
    mo.encoding = m.one_of("encoding", {"pcm_s16_le", "pcm_f32_le"}, true).value_or("");
    mo.sample_rate_hz = m.integer("sample_rate_hz");
    mo.source_sample_rate_hz = m.integer("source_sample_rate_hz");
    mo.channels = m.integer("channels");
    mo.delivery = m.one_of("delivery", {"buffered", "streaming"}).value_or("buffered");
    out.media = mo;
  }
  return out;
}

ComponentPorts read_ports(Reader& r, const Node* node, const std::string& path) {
  ComponentPorts ports;
  Fields f(r, node, path);
  for (auto [key, map] : {std::pair{"inputs", &ports.inputs}, std::pair{"outputs", &ports.outputs}}) {
    r.entries(f.get(key), f.at(key), [&, map = map](const std::string& name, const Node& v, const std::string& p) {
      map->emplace_back(name, read_contract(r, &v, p));
    });
  }
  r.entries(f.get("roles"), f.at("roles"), [&](const std::string& port, const Node& v, const std::string& p) {
    auto i = r.choice(&v, p, {"token_ids", "inputs_embeds", "attention_mask", "position_ids", "logits",
                              "hidden_states", "encoder_hidden_states", "audio_features"});
    if (i) ports.roles.emplace_back(port, static_cast<PortRole>(*i));
  });
  return ports;
}

Implementation read_implementation(Reader& r, const Node* node, const std::string& path) {
  Implementation impl;
  Fields f(r, node, path, {kArtifactHash});
  if (!node) r.error(path, "required key is missing");
  impl.kind = static_cast<Implementation::Kind>(f.choice("kind", {"onnx", "adapter", "binding"}, true).value_or(0));
  if (impl.kind == Implementation::Kind::kOnnx) impl.artifact = f.string_or("artifact", "", true);
  if (impl.kind == Implementation::Kind::kAdapter) {
    impl.abi = f.string_or("abi", "", true);
    impl.version = f.string_or("version", "", true);
    impl.artifact = f.string_or("artifact", "");
  }
  return impl;
}

ComponentContract read_component_contract(Reader& r, const Node& node, const std::string& path) {
  ComponentContract c;
  Fields f(r, &node, path);
  c.id = f.string_or("id", "", true);
  c.version = f.string_or("version", "", true);
  r.entries(f.get("bindings"), f.at("bindings"), [&](const std::string& role, const Node& v, const std::string& p) {
    if (auto port = r.string(&v, p)) c.bindings.emplace_back(role, *port);
  });
  r.entries(f.get("parameters"), f.at("parameters"), [&](const std::string& key, const Node& v, const std::string& p) {
    if (!v.is_scalar() || v.kind == Node::Kind::kNull) r.error(p, "a contract parameter must be a scalar");
    c.parameters.emplace_back(key, r.json(&v));
  });
  c.equivalence = f.one_of("equivalence", {"bitwise", "distribution_preserving", "semantic"}).value_or("semantic");
  return c;
}

Component read_component(Reader& r, const Node& node, const std::string& path) {
  Component c;
  Fields f(r, &node, path, {{"custom_ops", "metadata never admits custom operators by name"}});
  c.implementation = read_implementation(r, f.get("implementation"), f.at("implementation"));
  c.ports = read_ports(r, f.get("ports"), f.at("ports"));
  if (const Node* contract = f.get("contract")) c.contract = read_component_contract(r, *contract, f.at("contract"));
  c.application_overridable = f.boolean("application_overridable", false);
  c.effects = f.strings("effects");
  if (const Node* scope = f.get("row_scope")) {
    Fields s(r, scope, f.at("row_scope"));
    c.row_scope = RowScope{s.integer("axis", 0, true).value_or(0), s.boolean("stateful", false)};
  }
  c.cache_affects_state = f.strings("cache_affects_state");
  return c;
}

Recurrence read_recurrence(Reader& r, const Node* node, const std::string& path) {
  Recurrence rec;
  Fields f(r, node, path);
  if (!node) r.error(path, "required key is missing");
  rec.kind = static_cast<Recurrence::Kind>(f.choice("kind", {"invariant", "growing", "bounded"}, true).value_or(0));
  if (rec.kind != Recurrence::Kind::kInvariant) {
    rec.axis = f.integer("axis", 0, true).value_or(0);
    rec.max = f.string_or("max", "", true);
  }
  if (rec.kind == Recurrence::Kind::kGrowing) rec.increment = f.string_or("increment", "", true);
  return rec;
}

StateCell read_state_cell(Reader& r, const Node& node, const std::string& path) {
  StateCell cell;
  Fields f(r, &node, path);
  cell.contract = read_contract(r, f.need("contract"), f.at("contract"));
  cell.cls = static_cast<StateClass>(f.choice("class", {"semantic", "advisory"}).value_or(0));
  cell.scope = static_cast<StateScope>(f.choice("scope", {"invocation", "session"}, true).value_or(0));
  cell.initializer = f.string_or("initializer", "", true);
  cell.recurrence = read_recurrence(r, f.get("recurrence"), f.at("recurrence"));
  cell.management = static_cast<StateManagement>(f.choice("management", {"workflow", "runtime", "external"}).value_or(0));
  if (auto b = f.choice("release_boundary", {"invocation", "session", "row"})) cell.release_boundary = static_cast<ReleaseBoundary>(*b);
  cell.service_group = f.string("service_group");
  if (const Node* session = f.get("session")) {
    Fields s(r, session, f.at("session"));
    SessionLease lease;
    lease.policy = s.one_of("policy", {"exclusive", "copy_on_write"}).value_or("exclusive");
    lease.ttl_seconds = s.integer("ttl_seconds", 0);
    lease.optimistic_metadata_version = s.boolean("optimistic_metadata_version", false);
    cell.session = lease;
  }
  return cell;
}

Effect read_effect(Reader& r, const Node& node, const std::string& path) {
  Effect e;
  Fields f(r, &node, path);
  e.retry = f.one_of("retry", {"pure", "idempotent", "transactional", "non_retryable"}, true).value_or("");
  if (const Node* safety = f.get("speculation_safety")) {
    Fields s(r, safety, f.at("speculation_safety"));
    e.safety = static_cast<Effect::Safety>(s.choice("kind", {"none", "clonable", "rewindable"}, true).value_or(0));
    if (e.safety == Effect::Safety::kRewindable) e.max_depth = s.integer("max_depth", 0, true).value_or(0);
  }
  return e;
}

template <class T, class Fn>
NamedMap<T> read_map(Reader& r, const Node* node, const std::string& path, Fn read) {
  NamedMap<T> out;
  r.entries(node, path, [&](const std::string& name, const Node& v, const std::string& p) {
    out.emplace_back(name, read(r, v, p));
  });
  return out;
}

}  // namespace

Workflow read_workflow(Reader& r, const Node& node, const std::string& path) {
  Workflow w;
  Fields f(r, &node, path, {{"kv_service", "replaced by serving.state_service groups"}});
  w.manifest = read_manifest(r, f.get("manifest"), f.at("manifest"));
  w.inputs = read_map<WorkflowInput>(r, f.get("inputs"), f.at("inputs"), read_input);
  w.outputs = read_map<WorkflowOutput>(r, f.get("outputs"), f.at("outputs"), read_output);
  w.components = read_map<Component>(r, f.need("components"), f.at("components"), read_component);
  w.state = read_map<StateCell>(r, f.get("state"), f.at("state"), read_state_cell);
  w.effects = read_map<Effect>(r, f.get("effects"), f.at("effects"), read_effect);
  if (const Node* serving = f.get("serving")) w.serving = read_serving(r, *serving, f.at("serving"));
  const Node* steps = f.need("steps");
  w.steps = read_steps(r, steps, f.at("steps"));
  return w;
}

}  // namespace ogai::metadata::detail
