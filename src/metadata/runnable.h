// What ogai needs, beyond a valid document, before it loads a package to run it (rule RUN).
// A valid v1 document may be one ogai cannot run; load_package() refuses it here, by name, rather
// than letting it run wrongly. The document rules (validate.h) stay equal to the reference's:
//   - a capability id (manifest or required_capabilities) that is neither one of the 30 built-ins
//     nor an extension id (containing a '.') is one no runtime can promise;
//   - a document with neither pipeline.workflow nor the legacy model.io has nothing to run;
//   - a `literal` workflow input without its `default` has no value to run with.
// Pure function of the parsed document; no I/O.
#pragma once

#include "metadata/diagnostics.h"
#include "metadata/document.h"

namespace ogai::metadata {

void check_runnable(const Document& doc, Diagnostics& diags);

}  // namespace ogai::metadata
