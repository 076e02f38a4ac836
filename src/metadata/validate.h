// The document rules of inference_metadata v1 (digest §4.2): every V-* rule, run over a parsed
// Document without touching the file system or any ONNX graph.
//
// Rule ids are stable: V-ABI V-CAP V-TYPE V-IN V-OUT V-COMP V-INVOKE V-SEQ V-LOOP V-BRANCH V-EMIT
// V-STATE V-LIFE V-GROUP V-UPDATE V-LAYER V-ROLE V-SERVE V-EFFECT V-ROW V-GEN V-PROFILE V-PREPROC
// V-ADAPTER V-SPEC, plus R7 for `model.attention.sliding_window: 0`. Each diagnostic names the
// document path and says what was expected. Where the reference is laxer than its own text, these
// rules fail closed (docs/metadata.md lists the choices).
#pragma once

#include "metadata/diagnostics.h"
#include "metadata/document.h"

namespace ogai::metadata {

// Appends every rule violation of `doc` to `diags`. Never throws for document content.
void validate_document(const Document& doc, Diagnostics& diags);

}  // namespace ogai::metadata
