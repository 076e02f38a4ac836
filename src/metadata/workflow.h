// The typed `pipeline.workflow` of an inference_metadata v1 document (§2.3 of the digest): inputs,
// outputs, components, state cells, effects, steps and the serving contract with its state-service
// groups. Plain structs produced by parse_document() (parse.h); rules live in rules_*.cc.
// Vocabulary fields that the document spells as strings are enums here, so a typo cannot reach a
// rule. Maps keep document order. Thread-safe to read.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "metadata/contract.h"

namespace ogai::metadata {

struct InputRole {
  enum class Kind { kOpaque, kRuntime };
  Kind kind = Kind::kOpaque;
  std::string version;  // runtime roles
  std::string role;     // runtime roles: prompt_tokens, sampling_temperature, ...
};

struct InputSource {
  enum class Kind { kRequest, kApplication, kLiteral, kArtifact };
  Kind kind = Kind::kRequest;
  std::string name;  // application
  std::string path;  // artifact (package-relative)
};

struct WorkflowInput {
  TensorContract contract;
  InputRole role;
  InputSource source;
  bool required = true;
  std::optional<nlohmann::json> default_value;  // scalar or list, broadcast to the contract
  std::optional<std::string> present_as;
  bool externally_suppliable = false;
};

struct MediaOutput {
  std::string container;  // raw | wav
  std::string encoding;   // pcm_s16_le | pcm_f32_le (the schema's snake_case)
  std::optional<std::int64_t> sample_rate_hz, source_sample_rate_hz, channels;
  std::string delivery = "buffered";  // buffered | streaming
};

struct WorkflowOutput {
  TensorContract contract;
  std::string role;   // tokens | text | image | audio | tensor | event | video
  std::string stage;  // pre_adapter | post_adapter
  std::optional<MediaOutput> media;
  std::optional<std::string> value_range;  // zero_to_one | negative_one_to_one | zero_to_255
};

enum class PortRole {
  kTokenIds, kInputsEmbeds, kAttentionMask, kPositionIds, kLogits, kHiddenStates,
  kEncoderHiddenStates, kAudioFeatures,
};
const char* port_role_name(PortRole role);

struct ComponentPorts {
  NamedMap<TensorContract> inputs, outputs;
  NamedMap<PortRole> roles;
  // Both maps empty: the artifact is the only port list and port checks are skipped.
  bool inferred() const { return inputs.empty() && outputs.empty(); }
};

struct Implementation {
  enum class Kind { kOnnx, kAdapter, kBinding };
  Kind kind = Kind::kOnnx;
  std::string artifact;      // onnx (required), adapter (optional); package-relative
  std::string abi, version;  // adapter
};

struct ComponentContract {
  std::string id, version;
  NamedMap<std::string> bindings;      // semantic role -> port
  NamedMap<nlohmann::json> parameters; // scalars
  std::string equivalence = "semantic";  // bitwise | distribution_preserving | semantic
};

struct RowScope {
  std::int64_t axis = 0;
  bool stateful = false;
};

struct Component {
  Implementation implementation;
  ComponentPorts ports;
  std::optional<ComponentContract> contract;
  bool application_overridable = false;
  std::vector<std::string> effects;  // effect domains
  std::optional<RowScope> row_scope;
  std::vector<std::string> cache_affects_state;
};

struct Recurrence {
  enum class Kind { kInvariant, kGrowing, kBounded };
  Kind kind = Kind::kInvariant;
  std::int64_t axis = 0;
  std::string increment;  // growing: an SSA value
  std::string max;        // growing / bounded: an SSA value
};

struct SessionLease {
  std::string policy = "exclusive";  // exclusive | copy_on_write
  std::optional<std::int64_t> ttl_seconds;
  bool optimistic_metadata_version = false;
};

enum class StateClass { kSemantic, kAdvisory };
enum class StateScope { kInvocation, kSession };
enum class StateManagement { kWorkflow, kRuntime, kExternal };
enum class ReleaseBoundary { kInvocation, kSession, kRow };

struct StateCell {
  TensorContract contract;
  StateClass cls = StateClass::kSemantic;
  StateScope scope = StateScope::kInvocation;
  std::string initializer;  // SSA value
  Recurrence recurrence;
  StateManagement management = StateManagement::kWorkflow;
  std::optional<ReleaseBoundary> release_boundary;
  std::optional<std::string> service_group;
  std::optional<SessionLease> session;
};

struct Effect {
  std::string retry;  // pure | idempotent | transactional | non_retryable
  enum class Safety { kNone, kClonable, kRewindable };
  Safety safety = Safety::kNone;
  std::int64_t max_depth = 0;  // rewindable
};

// ---- steps ---------------------------------------------------------------------------------
struct Step;

struct InvokeStep {
  std::string component;
  NamedMap<std::string> inputs;   // port -> SSA value
  NamedMap<std::string> outputs;  // port -> SSA value
};
struct SequenceStep {
  std::vector<Step> steps;
};
struct Carry {
  std::string cell;
  std::optional<std::string> initial;
  std::string next;
};
struct LoopIteration {
  std::string value;
  TensorContract contract;
};
struct LoopStep {
  std::vector<Step> setup, steps;
  std::string continue_when, max_iterations;
  bool generation_eos = false;  // termination: predicate (false) | generation_eos
  std::optional<LoopIteration> iteration;
  std::vector<Carry> carried;
};
struct BranchCase {
  std::string key;
  std::vector<Step> body;  // exactly one step
};
struct BranchOutput {
  NamedMap<std::string> cases;  // case key -> SSA value
  std::optional<std::string> default_value;
};
struct BranchStep {
  std::string predicate;
  std::vector<BranchCase> cases;
  std::vector<Step> default_step;  // zero or one step
  NamedMap<BranchOutput> outputs;  // phi values
};
struct EmitStep {
  std::string value, output;
  std::string mode;  // replace | append | event
  std::optional<std::string> when, valid_length;
  std::optional<std::int64_t> axis;
};

struct Step {
  std::string path;  // document path, e.g. pipeline.workflow.steps[0].setup[1]
  std::variant<InvokeStep, SequenceStep, LoopStep, BranchStep, EmitStep> body;
};

// ---- serving -------------------------------------------------------------------------------
enum class GroupKind {
  kFullAttention, kSlidingAttention, kMultiLatentAttention, kRecurrent, kCrossAttention, kEncoder,
};
const char* group_kind_name(GroupKind kind);
bool is_self_attention(GroupKind kind);  // full, sliding, multi-latent

enum class Aliasing { kPermitted, kRequired, kForbidden };
const char* aliasing_name(Aliasing aliasing);

enum class KvRole { kKey, kValue, kCombined };  // ordered: key before value
const char* kv_role_name(KvRole role);

struct StateAlias {
  std::string input;                  // past port
  std::optional<std::string> output;  // present port
  bool read_only = false;             // access: read_only (default read_write)
  std::optional<KvRole> role;
  std::optional<std::int64_t> layer;
};

struct StateUpdate {
  enum class Kind { kAppend, kReplace, kIndexedScatter };
  Kind kind = Kind::kAppend;
  std::string write_indices;  // indexed_scatter: a state cell
  std::string capacity;       // indexed_scatter: an input or cell (integer scalar)
  NamedMap<std::string> write_indices_ports, kv_length_ports;  // component -> port
};

struct StateGroup {
  GroupKind kind = GroupKind::kFullAttention;
  std::optional<std::int64_t> sequence_axis;
  std::string layout;
  std::optional<std::string> logical_lengths, total_length;  // state cells
  Aliasing aliasing = Aliasing::kForbidden;
  std::optional<StateUpdate> update;  // absent: grows along sequence_axis
  bool prefix_reusable = false, evictable_prefix = false;
  std::optional<std::int64_t> rollback_positions;
  bool snapshot = false, fork = false;
  std::vector<std::string> cascade;
  std::optional<std::pair<std::string, std::string>> checkpoint;  // adapter, version
  NamedMap<NamedMap<StateAlias>> ports;  // component -> cell -> alias
};

struct Serving {
  std::string active, done;
  std::optional<std::string> accepted_len;
  NamedMap<StateGroup> groups;
};

struct Manifest {
  std::vector<std::string> capabilities;
  NamedMap<std::string> adapter_abis;  // abi -> version
};

struct Workflow {
  Manifest manifest;
  NamedMap<WorkflowInput> inputs;
  NamedMap<WorkflowOutput> outputs;
  NamedMap<Component> components;
  NamedMap<StateCell> state;
  NamedMap<Effect> effects;
  std::optional<Serving> serving;
  std::vector<Step> steps;
};

}  // namespace ogai::metadata
