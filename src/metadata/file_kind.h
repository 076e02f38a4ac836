// What a file passed where a package is expected is, when it is not metadata: a user who points
// `ogai generate`, `validate` or `serve` at a tokenizer.json, a chat template or a bare ONNX graph
// hears what the file is and what to pass instead, not a list of "unknown key" diagnostics.
#pragma once

#include <filesystem>

namespace ogai::metadata {

// Throws ogai::Error kInvalidPackage naming `file` and what it is when its name or first bytes
// say it is a tokenizer (tokenizer.json), a tokenizer_config.json, a chat template (.jinja), an
// ONNX graph or its external data; returns for anything else. Reads at most 4 KiB.
void refuse_non_metadata_file(const std::filesystem::path& file);

}  // namespace ogai::metadata
