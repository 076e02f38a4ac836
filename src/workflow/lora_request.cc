#include "workflow/lora_request.h"

#include "base/error.h"
#include "workflow/lora_overlay.h"

namespace ogai::workflow {

void add_named_adapters(const Program& program, RunRequest& request) {
  if (!request.adapters) return;
  if (!program.lora)
    fail(ErrorCode::kInvalidArgument, "request adapters", "the package declares no `adapters`; it has none to select");
  const LoraContract& c = program.lora->contract();
  for (auto& [name, tensor] : lora_selection_tensors(c, *request.adapters, "request adapters")) {
    if (!request.tensors.count(name)) {
      request.tensors.emplace(name, std::move(tensor));
    } else if (!c.active || name != *c.active) {
      fail(ErrorCode::kInvalidArgument, "request adapters",
           "names adapters and also passes the selection tensor '{}'; use one or the other", name);
    }
  }
  request.adapters.reset();
}

}  // namespace ogai::workflow
