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
// which ogai does not have, so it is refused at load, as is an overlay without an `adapters`
// section, an action other than `apply`, or a target the manifest does not list.
// Immutable after load except the shared cache (thread-safe); run() may be called concurrently.
#pragma once

#include <memory>

#include "workflow/adapter.h"

namespace ogai::workflow {

class LoraCache;

// The factory registered for onnx-genai.parameter-overlay@1. Throws naming site.path.
std::unique_ptr<const Adapter> make_parameter_overlay_adapter(const AdapterSite& site);

}  // namespace ogai::workflow
