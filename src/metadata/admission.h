// ONNX admission (digest §4.3, R1–R8): the document's claims checked against the real graphs,
// read with onnx::read_graph_info() (interface only: initializer bytes are never read, so a
// multi-gigabyte model is admitted in milliseconds).
//
//   R1  each component graph loads and names all its inputs and outputs
//   R2  declared ports exist with the declared dtype, rank and fixed dims; values bound to
//       undeclared (inferred) ports match the graph too
//   R3  an invoke binds only real ports and every graph input that is not initializer-backed
//       (a port declared `optional` may stay unbound); outputs may be a subset
//   R4  overridable components and their replacements have compatible signatures, and invokes of
//       overridable components bind only contract ports
//   R5  KV ports are float16/float32/bfloat16 of rank >= 3; any other rank >= 3 port of the sole
//       decoder needs a role (token/mask/positions/embeds/logits/hidden) or a state alias
//   R6  speculative token_embedding.table is an initializer of the target; chained ports exist
//   R7  `aliasing: required` is satisfiable (a known max length and an explicit-length attention op)
//   R8  static-cache (indexed_scatter) write-index and length ports are integer graph inputs
// plus PKG: external-data files resolve beside each graph and stay inside the package.
#pragma once

#include <map>
#include <string>

#include "metadata/diagnostics.h"
#include "metadata/document.h"
#include "metadata/package_files.h"
#include "onnx/graph_info.h"

namespace ogai::metadata {

// Reads the graph of every ONNX component in `files` and runs R1–R8. Returns the graphs that
// could be read (component -> graph). Problems are appended to `diags`; never throws for package
// content.
std::map<std::string, onnx::GraphInfo> admit_graphs(const Document& doc, const PackageFiles& files, Diagnostics& diags);

}  // namespace ogai::metadata
