// The imported document of an ONNX Runtime GenAI folder, validated exactly as validate_package()
// validates a folder it imports in memory (package.h): the imported facts applied (its stop set;
// tokenizer ids past the graph's logits warned about once, as ONNX Runtime GenAI never generates
// them, instead of refused). `ogai import` uses it, so it and the commands that run the folder
// (`generate`, `validate`, `serve`, ...) agree on what the folder is (issue 37: import reported 39
// problems for a folder generate ran). Thread-safe (no shared state).
#pragma once

#include "importer/import.h"
#include "metadata/package.h"

namespace ogai::metadata {

// Every diagnostic validate_package(folder) reports for the folder `imported` came from.
ValidationReport validate_import(const importer::ImportResult& imported);

}  // namespace ogai::metadata
