// Adapters named in a request (RunRequest::adapters, `ogai run --adapters`) turned into the
// selection tensors the document declares (adapters.selection), before binding. Refuses, naming
// the request: a package without `adapters`, an unknown alias, more than max_adapters in a row,
// and a caller that passes both names and one of the segments / counts / scales tensors (a
// caller's `active` mask is kept: names and an inactive row combine). Thread-safe.
#pragma once

#include "workflow/program.h"
#include "workflow/request.h"

namespace ogai::workflow {

void add_named_adapters(const Program& program, RunRequest& request);

}  // namespace ogai::workflow
