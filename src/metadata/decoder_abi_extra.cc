// Decoder ABI: static-cache ports, the other inputs the engine must fill, and the legacy model.io
// mapping.
#include <set>

#include <algorithm>

#include "importer/cache_branch.h"
#include "metadata/decoder_abi_internal.h"

namespace ogai::metadata::detail {

std::string named_layout(const std::string& layout) {
  if (layout == "bnsh" || layout == "head_major_bnsh") return "bnsh";
  if (layout == "bsnh" || layout == "seq_major_bsnh") return "bsnh";
  return "unknown";
}

StaticCacheAbi static_cache_abi(const Document& doc, const std::string& group_name, const StateGroup& g,
                                const std::string& component) {
  const StateUpdate& u = *g.update;
  StaticCacheAbi sc;
  sc.group = group_name;
  if (const std::string* p = find_named(u.write_indices_ports, component)) sc.write_indices_input = *p;
  if (const std::string* p = find_named(u.kv_length_ports, component)) sc.kv_length_input = *p;
  sc.write_indices_cell = u.write_indices;
  sc.capacity_value = u.capacity;
  sc.logical_lengths_cell = g.logical_lengths.value_or("");
  const WorkflowInput* cap = find_named(doc.workflow->inputs, u.capacity);
  if (cap && cap->default_value) {
    const nlohmann::json& v = *cap->default_value;
    if (v.is_number_integer()) sc.capacity = v.get<std::int64_t>();
    if (v.is_array() && v.size() == 1 && v[0].is_number_integer()) sc.capacity = v[0].get<std::int64_t>();
  }
  return sc;
}

const InvokeStep* first_invoke(const std::vector<Step>& steps, const std::string& component) {
  for (const Step& s : steps) {
    if (const auto* inv = std::get_if<InvokeStep>(&s.body)) {
      if (inv->component == component) return inv;
    } else if (const auto* seq = std::get_if<SequenceStep>(&s.body)) {
      if (const auto* found = first_invoke(seq->steps, component)) return found;
    } else if (const auto* loop = std::get_if<LoopStep>(&s.body)) {
      if (const auto* found = first_invoke(loop->setup, component)) return found;
      if (const auto* found = first_invoke(loop->steps, component)) return found;
    } else if (const auto* branch = std::get_if<BranchStep>(&s.body)) {
      for (const auto& c : branch->cases)
        if (const auto* found = first_invoke(c.body, component)) return found;
      if (const auto* found = first_invoke(branch->default_step, component)) return found;
    }
  }
  return nullptr;
}

namespace {

std::set<std::string> claimed_inputs(const DecoderAbi& abi) {
  std::set<std::string> claimed;
  for (const auto* port : {&abi.token_ids_input, &abi.inputs_embeds_input, &abi.attention_mask_input,
                           &abi.position_ids_input, &abi.encoder_hidden_states_input, &abi.audio_features_input})
    if (*port) claimed.insert(**port);
  for (const auto* pairs : {&abi.kv_pairs, &abi.cross_kv_pairs})
    for (const KvPair& p : *pairs) claimed.insert(p.input);
  for (const BorrowedKv& b : abi.borrowed)
    if (b.component == abi.component) claimed.insert(b.input);
  return claimed;
}

std::string purpose_of(const DecoderAbi& abi, const std::string& port) {
  if (abi.static_cache && port == abi.static_cache->write_indices_input) return "write_indices";
  if (abi.static_cache && port == abi.static_cache->kv_length_input) return "kv_length";
  for (const KvPair& p : abi.state_pairs)
    if (p.input == port) return "state";
  return "workflow";
}

// Optimum's merged-decoder flag (importer/cache_branch.h): the application input of that name,
// in a workflow whose manifest declares the extension.
bool is_cache_branch(const Workflow& wf, const WorkflowInput& input) {
  const auto& caps = wf.manifest.capabilities;
  return input.source.kind == InputSource::Kind::kApplication && input.source.name == importer::kCacheBranchInput &&
         std::find(caps.begin(), caps.end(), importer::kCacheBranchCapability) != caps.end();
}

}  // namespace

void add_other_inputs(const AbiInputs& in, DecoderAbi& abi) {
  std::vector<std::pair<std::string, PortGeometry>> candidates;
  if (const onnx::GraphInfo* g = graph_of(in, abi.component)) {
    for (const onnx::ValueInfo* v : g->runtime_inputs()) candidates.emplace_back(v->name, port_geometry(*v, -1));
  } else if (const Workflow* wf = in.doc.workflow ? &*in.doc.workflow : nullptr) {
    if (const Component* c = find_named(wf->components, abi.component))
      for (const auto& [port, contract] : c->ports.inputs) candidates.emplace_back(port, PortGeometry{});
  }
  std::set<std::string> claimed = claimed_inputs(abi);
  const InvokeStep* invoke = in.doc.workflow ? first_invoke(in.doc.workflow->steps, abi.component) : nullptr;
  for (auto& [port, geometry] : candidates) {
    if (claimed.count(port)) continue;
    ExtraInput extra{port, purpose_of(abi, port), "", std::nullopt, geometry};
    if (const std::string* bound = invoke ? find_named(invoke->inputs, port) : nullptr) {
      extra.bound_value = *bound;
      if (const WorkflowInput* wi = find_named(in.doc.workflow->inputs, *bound)) {
        extra.source = wi->source.kind;
        if (is_cache_branch(*in.doc.workflow, *wi)) extra.purpose = "cache_branch";
      }
    }
    abi.other_inputs.push_back(std::move(extra));
  }
}

namespace {

void legacy_pairs(const AbiInputs& in, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                  GroupKind kind, KvRole role, std::vector<KvPair>& out, const std::string& component) {
  for (std::size_t i = 0; i < inputs.size() && i < outputs.size(); ++i)
    out.push_back({"model.io", kind, "", inputs[i], outputs[i], role, static_cast<std::int64_t>(i),
                   input_geometry(in, component, inputs[i], 2), output_geometry(in, component, outputs[i], 2)});
}

}  // namespace

std::optional<DecoderAbi> legacy_abi(const AbiInputs& in) {
  const ModelIo& io = *in.doc.model->io;
  DecoderAbi abi;
  abi.component = "model";
  abi.legacy = true;
  if (auto it = in.artifacts.find("model"); it != in.artifacts.end()) abi.artifact = it->second;
  abi.token_ids_input = io.token_input;
  abi.inputs_embeds_input = io.inputs_embeds_input;
  abi.attention_mask_input = io.attention_mask_input;
  abi.position_ids_input = io.position_ids_input;
  abi.logits_output = io.logits_output;
  abi.hidden_states_output = io.hidden_output;
  abi.encoder_hidden_states_input = io.encoder_hidden_states_input;
  abi.audio_features_input = io.audio_features_input;
  abi.sequence_source = io.sequence_source;
  if (!abi.sequence_source && abi.token_ids_input && !abi.inputs_embeds_input) abi.sequence_source = "token_ids";
  if (!abi.sequence_source && !abi.token_ids_input && abi.inputs_embeds_input) abi.sequence_source = "inputs_embeds";
  // model.io declares no key/value roles; legacy pairs are `combined` in declaration order.
  legacy_pairs(in, io.kv_inputs, io.kv_outputs, GroupKind::kFullAttention, KvRole::kCombined, abi.kv_pairs, "model");
  legacy_pairs(in, io.cross_kv_inputs, io.cross_kv_outputs, GroupKind::kCrossAttention, KvRole::kCombined,
               abi.cross_kv_pairs, "model");
  for (std::size_t i = 0; i < io.state_pairs.size(); ++i)
    abi.state_pairs.push_back({"model.io", GroupKind::kRecurrent, "", io.state_pairs[i].first, io.state_pairs[i].second,
                               KvRole::kCombined, static_cast<std::int64_t>(i),
                               input_geometry(in, "model", io.state_pairs[i].first, -1),
                               output_geometry(in, "model", io.state_pairs[i].second, -1)});
  if (io.static_cache) {
    const auto& sc = *io.static_cache;
    abi.static_cache = StaticCacheAbi{"model.io", sc.write_indices_input, sc.kv_sequence_length_input, "", "", std::nullopt, ""};
    legacy_pairs(in, sc.key_cache_inputs, sc.key_cache_outputs, GroupKind::kFullAttention, KvRole::kKey, abi.kv_pairs, "model");
    legacy_pairs(in, sc.value_cache_inputs, sc.value_cache_outputs, GroupKind::kFullAttention, KvRole::kValue, abi.kv_pairs, "model");
  }
  bool owns = !abi.kv_pairs.empty() && io.kv_ownership.value_or("owned") == "owned";
  abi.kv_ownership = owns ? "owned" : "shared";
  if (owns) abi.aliasing = io.aliasing == "permitted" ? Aliasing::kPermitted : io.aliasing == "required" ? Aliasing::kRequired : Aliasing::kForbidden;
  abi.kv_layout = io.kv_layout ? named_layout(*io.kv_layout) : "bnsh";
  add_other_inputs(in, abi);
  return abi;
}

}  // namespace ogai::metadata::detail
