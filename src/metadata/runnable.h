// What ogai needs, beyond a valid document, before it loads a package to run it (rule RUN).
// A valid v1 document may be one ogai cannot run; load_package() refuses it here, by name, rather
// than letting it run wrongly. The document rules (validate.h) stay equal to the reference's:
//   - a capability id (manifest or required_capabilities) that is neither one of the 30 built-ins
//     nor an extension id (containing a '.') is one no runtime can promise;
//   - a document with neither pipeline.workflow nor the legacy model.io has nothing to run;
//   - a `literal` workflow input without its `default` has no value to run with;
//   - a required profile ogai does not execute (profile_not_run): ogai runs `generation` profiles
//     (the workflow itself) and `transcription` profiles decoded by `ctc` or `greedy_argmax` from a
//     `logits` output role with an inline or tokenizer vocabulary (src/workflow/transcription.h);
//     embedding, reranking, classification and reward profiles are refused. Ignorable ones are skipped.
// Pure function of the parsed document; no I/O.
#pragma once

#include <optional>
#include <string>

#include "metadata/diagnostics.h"
#include "metadata/document.h"

namespace ogai::metadata {

void check_runnable(const Document& doc, Diagnostics& diags);

// Why ogai does not execute profile `name` (nullopt: it does), with the field's document path in `path`.
std::optional<std::string> profile_not_run(const std::string& name, const Profile& profile, std::string& path);

}  // namespace ogai::metadata
