// Names of the workflow vocabulary enums (workflow.h).
#include "metadata/workflow.h"

namespace ogai::metadata {

const char* port_role_name(PortRole role) {
  switch (role) {
    case PortRole::kTokenIds: return "token_ids";
    case PortRole::kInputsEmbeds: return "inputs_embeds";
    case PortRole::kAttentionMask: return "attention_mask";
    case PortRole::kPositionIds: return "position_ids";
    case PortRole::kLogits: return "logits";
    case PortRole::kHiddenStates: return "hidden_states";
    case PortRole::kEncoderHiddenStates: return "encoder_hidden_states";
    case PortRole::kAudioFeatures: return "audio_features";
  }
  return "?";
}

const char* group_kind_name(GroupKind kind) {
  switch (kind) {
    case GroupKind::kFullAttention: return "full_attention";
    case GroupKind::kSlidingAttention: return "sliding_attention";
    case GroupKind::kMultiLatentAttention: return "multi_latent_attention";
    case GroupKind::kRecurrent: return "recurrent";
    case GroupKind::kCrossAttention: return "cross_attention";
    case GroupKind::kEncoder: return "encoder";
  }
  return "?";
}

bool is_self_attention(GroupKind kind) {
  return kind == GroupKind::kFullAttention || kind == GroupKind::kSlidingAttention ||
         kind == GroupKind::kMultiLatentAttention;
}

const char* aliasing_name(Aliasing aliasing) {
  switch (aliasing) {
    case Aliasing::kPermitted: return "permitted";
    case Aliasing::kRequired: return "required";
    case Aliasing::kForbidden: return "forbidden";
  }
  return "?";
}

const char* kv_role_name(KvRole role) {
  switch (role) {
    case KvRole::kKey: return "key";
    case KvRole::kValue: return "value";
    case KvRole::kCombined: return "combined";
  }
  return "?";
}

}  // namespace ogai::metadata
