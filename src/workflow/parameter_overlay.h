// The native onnx-genai.parameter-overlay@1 adapter (action `apply`): a LoRA overlay on the
// parameter `contract.parameters.component`.`parameter`, which must be a target of the
// document's `adapters.target_manifest`. Roles: `input` float32 [B, ..., in] -> `output`
// float32 [B, ..., out] (lora_overlay.h has the arithmetic). Each call reads the request's
// adapter selection (adapters.selection: segments, counts, scales, active) from the run's values,
// resolves it through the package's adapter cache (lora_cache.h: loads, LRU eviction, lifecycle
// counters) and applies each row's adapters to that row.
//
// Executed on the host: the standard's portable fallback. A document with
// `adapters.portable_fallback: false` asks for an execution provider's own adapter capability,
// which ogai does not have, so plan_parameter_overlay() refuses it at load, as it refuses an
// overlay without an `adapters` section, an action other than `apply`, and a target the manifest
// does not list. An OverlayPlan is immutable; the cache it shares is thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "metadata/workflow.h"
#include "ort/tensor.h"
#include "workflow/adapter.h"
#include "workflow/lora_overlay.h"

namespace ogai::workflow {

bool is_parameter_overlay(const std::string& abi, const std::string& version);

struct OverlayPlan {
  std::shared_ptr<LoraCache> cache;
  std::string component, parameter;  // the target parameter
  std::int64_t out_features = 0;     // the target's output width
};

// `path` names the component ("pipeline.workflow.components.overlay"); `cache` is the package's
// (null without `adapters`). Throws kInvalidPackage / kUnsupported naming the field.
OverlayPlan plan_parameter_overlay(const metadata::Component& component, std::shared_ptr<LoraCache> cache,
                                   const std::string& path);

// One invocation: the `input` role's tensor, the run's values (for the selection inputs), and
// `what` naming the step for errors. Returns the `output` role's tensor.
ort::Tensor run_parameter_overlay(const OverlayPlan& plan, const ort::Tensor& input, const ValueLookup& values,
                                  const std::string& what);

// The factory registered for onnx-genai.parameter-overlay@1 (adapter_registry.cc): the plan
// above, prepared at load (throws naming site.path), run per call by role.
std::unique_ptr<const Adapter> make_parameter_overlay_adapter(const AdapterSite& site);

}  // namespace ogai::workflow
