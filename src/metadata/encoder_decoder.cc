#include "metadata/encoder_decoder.h"

#include <algorithm>

#include "metadata/contract.h"

namespace ogai::metadata {
namespace {

constexpr std::string_view kAudioAbi = "onnx-genai.audio-preprocess";

struct Invokes {
  const InvokeStep* preprocess = nullptr;
  const InvokeStep* encoder = nullptr;
  const InvokeStep* decoder = nullptr;
};

// The top-level steps as [preprocess] encoder decoder emit...; nullopt for any other order or kind.
std::optional<Invokes> the_invokes(const Workflow& wf, const std::string& decoder) {
  Invokes found;
  for (const Step& step : wf.steps) {
    if (std::holds_alternative<EmitStep>(step.body)) {
      if (!found.decoder) return std::nullopt;
      continue;
    }
    const auto* inv = std::get_if<InvokeStep>(&step.body);
    if (!inv || found.decoder) return std::nullopt;
    const Component* c = find_named(wf.components, inv->component);
    if (!c) return std::nullopt;
    if (inv->component == decoder) {
      if (!found.encoder) return std::nullopt;
      found.decoder = inv;
    } else if (c->implementation.kind == Implementation::Kind::kAdapter && c->implementation.abi == kAudioAbi) {
      if (found.preprocess || found.encoder) return std::nullopt;
      found.preprocess = inv;
    } else if (c->implementation.kind == Implementation::Kind::kOnnx) {
      if (found.encoder) return std::nullopt;
      found.encoder = inv;
    } else {
      return std::nullopt;
    }
  }
  if (!found.decoder) return std::nullopt;
  return found;
}

// The encoder output port bound to `value`, or "".
std::string output_of(const InvokeStep& encoder, const std::string& value) {
  for (const auto& [port, v] : encoder.outputs)
    if (v == value) return port;
  return "";
}

// The decoder's read-only cross_attention aliases in ABI order (layer, then key before value).
std::vector<std::pair<std::string, const StateAlias*>> cross_aliases(const Workflow& wf, const std::string& decoder) {
  std::vector<std::pair<std::string, const StateAlias*>> out;
  if (!wf.serving) return out;
  for (const auto& [name, g] : wf.serving->groups) {
    if (g.kind != GroupKind::kCrossAttention) continue;
    if (const auto* aliases = find_named(g.ports, decoder))
      for (const auto& [cell, a] : *aliases) out.emplace_back(cell, &a);
  }
  auto key = [](const auto& e) {
    return std::pair(e.second->layer.value_or(0), e.second->role ? static_cast<int>(*e.second->role) : 3);
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return out;
}

bool feeds_encoder_inputs(const Workflow& wf, const Invokes& inv, EncoderDecoderAbi& abi) {
  const Component& enc = *find_named(wf.components, inv.encoder->component);
  for (const auto& [port, role] : enc.ports.roles) {
    if (role == PortRole::kTokenIds) abi.token_ids_input = port;
    if (role == PortRole::kAttentionMask) abi.attention_mask_input = port;
  }
  for (const auto& [port, value] : inv.encoder->inputs) {
    if (inv.preprocess && std::any_of(inv.preprocess->outputs.begin(), inv.preprocess->outputs.end(),
                                      [&v = value](const auto& o) { return o.second == v; })) {
      if (!abi.features_input.empty()) return false;  // one features input
      abi.features_input = port;
      abi.features_value = value;
    } else if (port != abi.token_ids_input && port != abi.attention_mask_input) {
      return false;  // an input the engine has nothing for
    }
  }
  return !abi.features_input.empty() || abi.token_ids_input;
}

}  // namespace

std::optional<EncoderDecoderAbi> derive_encoder_decoder(const Document& doc, const std::string& decoder,
                                                        const std::map<std::string, std::filesystem::path>& artifacts) {
  if (!doc.workflow) return std::nullopt;
  const Workflow& wf = *doc.workflow;
  auto inv = the_invokes(wf, decoder);
  if (!inv) return std::nullopt;
  EncoderDecoderAbi abi;
  abi.encoder = inv->encoder->component;
  if (auto it = artifacts.find(abi.encoder); it != artifacts.end()) abi.artifact = it->second;
  if (inv->preprocess) abi.preprocess = inv->preprocess->component;
  if (!feeds_encoder_inputs(wf, *inv, abi)) return std::nullopt;
  for (const auto& [cell_name, alias] : cross_aliases(wf, decoder)) {
    const StateCell* cell = find_named(wf.state, cell_name);
    if (!alias->read_only || !cell) return std::nullopt;
    std::string port = output_of(*inv->encoder, cell->initializer);
    if (port.empty()) return std::nullopt;  // cross state the encoder does not produce
    abi.feeds.push_back({port, alias->input, cell_name});
  }
  // Direct feeds: other decoder inputs bound to an encoder value.
  for (const auto& [port, value] : inv->decoder->inputs) {
    std::string out = output_of(*inv->encoder, value);
    const bool cross =
        std::any_of(abi.feeds.begin(), abi.feeds.end(), [&p = port](const auto& f) { return f.decoder_input == p; });
    if (!out.empty() && !cross) abi.feeds.push_back({out, port, ""});
  }
  if (abi.feeds.empty()) return std::nullopt;
  return abi;
}

}  // namespace ogai::metadata
