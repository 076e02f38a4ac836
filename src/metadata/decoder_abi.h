// The derived flat decode ABI (digest §2.6): what the generation engine binds for one decode
// step of the package's sole decoder. It is computed from the workflow (roles, state-service
// groups) or from a legacy `model.io`, never serialized, and carries each KV port's geometry as
// the ONNX graph declares it (never a global assumption).
//
// Sole decoder: the single component that declares a token_ids or inputs_embeds role and either
// declares logits or owns (read_write) a self-attention group. With zero or several candidates
// there is no flat ABI and the workflow has to be driven invoke by invoke.
//
// KV pair order: groups by name; within a group by (layer, role) with key before value, a missing
// layer counting as the alias's position in cell-name order. Read-only aliases are borrows, listed
// separately. Plain value types; thread-safe to read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "metadata/document.h"
#include "onnx/graph_info.h"

namespace ogai::metadata {

// One port's tensor geometry, read from the graph. Unknown parts stay -1 / empty (document-only
// derivation, or a graph without shapes).
struct PortGeometry {
  DataType dtype = DataType::kUndefined;
  int rank = -1;                     // -1: unknown
  std::vector<std::int64_t> dims;    // per axis: fixed size, or -1 when symbolic/unknown
  std::vector<std::string> symbols;  // per axis: the symbol ("" when fixed)
  std::int64_t kv_heads = -1;        // rank 4 only: dim 1 ([B, H, S, D]; dim 2 when sequence_axis is 1)
  std::int64_t head_dim = -1;        // rank >= 3: the last dim when fixed
  std::int64_t sequence_axis = -1;   // the owning group's sequence_axis (-1 when none)
  bool known() const { return rank >= 0; }
};

enum class UpdateKind { kGrow, kAppend, kReplace, kIndexedScatter };  // kGrow: `update` absent
const char* update_kind_name(UpdateKind kind);

// A runtime-owned past/present buffer pair (a read_write alias).
struct KvPair {
  std::string group;  // state-service group name
  GroupKind group_kind = GroupKind::kFullAttention;
  std::string cell;    // workflow state cell
  std::string input;   // past port (graph input)
  std::string output;  // present port (graph output)
  KvRole role = KvRole::kCombined;
  std::int64_t layer = 0;         // declared layer, or the alias's position in cell-name order
  PortGeometry geometry;          // of `input`   [batch, kv_heads, past_seq, head_dim] for bnsh
  PortGeometry present_geometry;  // of `output`
};

// A read-only view of another component's cell (e.g. a drafter reading the target's KV).
struct BorrowedKv {
  std::string component;  // the reader
  std::string group;
  GroupKind group_kind = GroupKind::kFullAttention;
  std::string cell;   // the owner cell the alias anchors to
  std::string input;  // the reader's input port
  std::optional<KvRole> role;
  std::optional<std::int64_t> layer;
  PortGeometry geometry;  // of the reader's input port
};

struct GroupAbi {
  std::string name;
  GroupKind kind = GroupKind::kFullAttention;
  std::optional<std::int64_t> sequence_axis;
  std::string layout;
  Aliasing aliasing = Aliasing::kForbidden;
  UpdateKind update = UpdateKind::kGrow;
  // evictable_prefix: the package allows dropping the oldest positions; the engine keeps them
  // anyway (kv/kv_cache.h), and neither flag is consulted at run time.
  bool prefix_reusable = false, evictable_prefix = false;
  std::optional<std::int64_t> rollback_positions;
  bool snapshot = false, fork = false;
  std::vector<std::string> cascade;
  std::optional<std::string> logical_lengths;  // state cell
};

// Fixed-capacity (indexed_scatter) cache ports of the decoder.
struct StaticCacheAbi {
  std::string group;
  std::string write_indices_input;   // decoder input port receiving destinations   int[batch]
  std::string kv_length_input;       // decoder input port receiving valid lengths  (empty: none)
  std::string write_indices_cell;    // state cell holding the cursor
  std::string capacity_value;        // the workflow input or cell naming the capacity
  std::optional<std::int64_t> capacity;  // its literal default, when it has one
  std::string logical_lengths_cell;
};

// A non-initializer decoder input that is neither a role port nor KV: the engine must fill it.
struct ExtraInput {
  std::string port;
  // "write_indices" | "kv_length" | "state" (recurrent/cross pair) | "cache_branch" (Optimum's
  // merged-decoder flag, importer/cache_branch.h) | "workflow"
  std::string purpose;
  std::string bound_value;  // the workflow value the decoder's invoke binds to it ("" when none)
  std::optional<InputSource::Kind> source;  // when bound_value is a workflow input
  PortGeometry geometry;
};

struct DecoderAbi {
  std::string component;
  std::filesystem::path artifact;        // resolved graph file (empty in document-only mode)
  bool legacy = false;                   // derived from model.io
  std::optional<std::string> sequence_source;  // "token_ids" | "inputs_embeds" (absent when both/neither)
  std::optional<std::string> token_ids_input, inputs_embeds_input, attention_mask_input, position_ids_input;
  std::optional<std::string> logits_output, hidden_states_output;
  std::optional<std::string> encoder_hidden_states_input, audio_features_input;
  std::vector<KvPair> kv_pairs;        // self-attention, ABI order (indexed_scatter buffers included)
  std::vector<KvPair> cross_kv_pairs;  // cross_attention groups
  std::vector<KvPair> state_pairs;     // recurrent groups
  std::vector<BorrowedKv> borrowed;    // read-only aliases of any component
  std::string kv_ownership = "shared";  // "owned" when the decoder writes any attention state
  std::optional<Aliasing> aliasing;     // strictest over the groups it owns (forbidden > permitted > required)
  std::string kv_layout = "unknown";    // "bnsh" | "bsnh" | "unknown"
  std::vector<GroupAbi> groups;         // groups that bind the decoder, by name
  std::optional<StaticCacheAbi> static_cache;
  std::vector<ExtraInput> other_inputs;
};

// Derives the ABI of the sole decoder, or nullopt when there is none. `graphs` (component ->
// graph, may be empty) supplies geometry; `artifacts` the resolved files.
std::optional<DecoderAbi> derive_decoder_abi(const Document& doc,
                                             const std::map<std::string, onnx::GraphInfo>& graphs,
                                             const std::map<std::string, std::filesystem::path>& artifacts);

// The sole decoder's name, or nullopt (zero or several candidates).
std::optional<std::string> sole_decoder(const Workflow& wf);

PortGeometry port_geometry(const onnx::ValueInfo& value, std::int64_t sequence_axis);

}  // namespace ogai::metadata
