// What Model::load builds beyond the metadata (the tokenizer, the chat template), checked so that
// a package `ogai validate` and ogai::validate() call valid also loads.
#pragma once

#include "metadata/package.h"

namespace ogai::generate {

// Loads the package's tokenizer.json and chat template, if any, and adds one LOAD diagnostic
// (the loader's message, at the file relative to the package root) for each that fails. Does
// nothing for a document-only report (no package root).
void check_loadable_text(metadata::ValidationReport& report);

}  // namespace ogai::generate
