// What Model::load builds beyond the metadata (the tokenizer, the chat template), checked so that
// a package `ogai validate` and ogai::validate() call valid also loads.
#pragma once

#include "metadata/package.h"

namespace ogai::generate {

// Loads the package's tokenizer.json and chat template, if any, and adds one LOAD diagnostic
// (the loader's message, at the file relative to the package root) for each that fails. Does
// nothing for a document-only report (no package root).
void check_loadable_text(metadata::ValidationReport& report);

// Opens every ONNX graph the package names in an ONNX Runtime session (graph optimizations off,
// one thread: what is checked is that ORT accepts the model, not its speed) and adds one LOAD
// diagnostic per graph ORT's model loading refuses (the protobuf, the graph's resolution, its
// operators; not later session-initialization limits), with ORT's reason: the rules read a graph's ports without
// its nodes or weights, so a damaged graph could pass them (issue 37). Costs a load of the
// weights. Does nothing for a document-only report.
void check_loadable_graphs(metadata::ValidationReport& report);

}  // namespace ogai::generate
