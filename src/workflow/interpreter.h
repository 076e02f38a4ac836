// The workflow interpreter (digest §§4-6): binds one request and walks the workflow's steps over a
// flat store of immutable values: `sequence`, `invoke` (ONNX components by their concrete ports,
// `binding` components, the grammar-guidance@1 adapter), `loop` (setup per entry, pre-test
// `continue_when`, iteration value, carried cells with the recurrence check and the inactive-row
// merge, `max_iterations`, `generation_eos` with stop_on_eos=false), `branch` with phis, and
// `emit` (replace / append / event, dense or per row with `when` / `valid_length`). Before every
// invoke of a component that receives indexed_scatter destinations, the capacity check runs.
//
// Errors are ogai::Error naming the step's document path and the value. Synchronous; a request
// owns its store, so concurrent run() calls on one Program are safe.
#pragma once

#include "workflow/program.h"
#include "workflow/request.h"

namespace ogai::workflow {

RunResult run(const Program& program, RunRequest request, const EmitCallback& on_emit = {});

}  // namespace ogai::workflow
