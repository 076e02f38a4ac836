// The adapter interface of the workflow interpreter (digest §8): a component whose
// implementation is `kind: adapter` names an ABI and a version (`onnx-genai.grammar-guidance`,
// `1`), and ogai executes it natively through the unit registered for that pair.
//
// An adapter is prepared once per component when the program loads (prepare_adapter): the
// factory reads the component (its contract parameters, bindings, artifact) and anything else of
// the package it needs (e.g. the `preprocessing` section), and throws naming the component's
// document path when something is missing or unknown. Unknown ABIs are refused there, naming the
// invoking step and the ABI. Running it maps tensors by role to tensors by role.
//
// Roles: a port named in `contract.bindings` (role -> port) carries that role; any other port
// (every port of a component without bindings) carries its own name as its role (adapter_role()).
//
// Registry: builtin_adapters() in adapter_registry.cc lists every native adapter, one line each.
// A prepared Adapter is immutable and its run() const; it may be called from several threads.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "metadata/package.h"
#include "metadata/workflow.h"
#include "media/media_limits.h"
#include "ort/tensor.h"

namespace ogai::workflow {

class LoraCache;

using RoleInputs = std::map<std::string, const ort::Tensor*>;  // absent optional inputs are left out
using RoleOutputs = std::map<std::string, ort::Tensor>;

// What a factory sees at load. References live for the call only: copy what run() needs.
struct AdapterSite {
  const metadata::Package& package;
  const metadata::Component& component;
  std::string name;  // the component's name
  std::string path;  // "pipeline.workflow.components.<name>"
  // The package's LoRA adapter cache (lora_cache.h), shared by its parameter overlays; null
  // when the document has no `adapters`.
  std::shared_ptr<LoraCache> lora = nullptr;
  // Budgets on the media an image / audio preprocess adapter decodes (include/ogai/media.h).
  media::MediaLimits media_limits = {};
};

// One invocation: the inputs by role, and the value names the step binds each role to (inputs
// and requested outputs), which an adapter may use to name what it reads in errors, or, like
// image-preprocess@1, to pick which of its products a port receives.
struct AdapterCall {
  RoleInputs inputs;
  std::map<std::string, std::string> input_values;   // role -> value name read
  std::map<std::string, std::string> output_values;  // role -> value name the step stores
  std::string what;                                  // the step and component, for errors
  // Any value of the run's store by name (nullptr: not defined), for adapters that read request
  // values no port binds (parameter-overlay@1 reads the adapter selection).
  std::function<const ort::Tensor*(const std::string& name)> value;
};

class Adapter {
 public:
  virtual ~Adapter() = default;
  // Inputs by role -> outputs by role. Throws ogai::Error naming call.what (and the input) on
  // inputs it cannot take. Outputs for roles the step does not request are dropped by the caller.
  virtual RoleOutputs run(const AdapterCall& call) const = 0;
};

using AdapterFactory = std::function<std::unique_ptr<const Adapter>(const AdapterSite&)>;

struct AdapterEntry {
  std::string abi, version;
  AdapterFactory make;
};

// Every adapter ogai executes, in a fixed order (adapter_registry.cc).
const std::vector<AdapterEntry>& builtin_adapters();
// The entry for abi@version, or null.
const AdapterEntry* find_adapter(const std::string& abi, const std::string& version);

// Checks and prepares an adapter component. Throws kUnsupported naming `step_path` and the ABI when
// no unit implements it, and whatever the factory throws (naming site.path) when the component is
// malformed for its ABI.
std::unique_ptr<const Adapter> prepare_adapter(const AdapterSite& site, const std::string& step_path);

// The role a port carries: the role contract.bindings gives it, else the port's own name.
const std::string& adapter_role(const metadata::Component& component, const std::string& port);

}  // namespace ogai::workflow
