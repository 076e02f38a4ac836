// `NAME=JSON` / `NAME=@FILE.npy` / `NAME=@FILE` input specs: the CLI's `--input` (`ogai run`,
// `ogai generate`, `ogai serve` on an interpreted package) and LoadOptions::workflow_inputs
// (tensors every request of a loaded workflow package gets). NAME is a workflow input or an
// application alias; JSON is typed by that input's contract (workflow/tensor_json.h). `@FILE`
// not ending in .npy, for a uint8 rank-1 input (an encoded media port), is the file's bytes
// (at most 1 GiB; the decoders have their own budgets).
#pragma once

#include <string>
#include <vector>

#include "metadata/workflow.h"
#include "workflow/request.h"

namespace ogai::workflow {

// Adds each spec's tensor to request.tensors. Throws ogai::Error (kInvalidArgument) naming the
// flag on a malformed spec, an unknown NAME, a NAME given twice or a value that does not parse.
void add_input_tensors(const metadata::Workflow& wf, const std::vector<std::string>& specs, RunRequest& request);

}  // namespace ogai::workflow
