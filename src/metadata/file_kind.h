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

// Throws ogai::Error kNotFound naming `dir` and the next step when the directory, which has no
// metadata, is a format ogai does not run: it holds a GGUF file (llama.cpp's), or it is a Hugging
// Face checkpoint (config.json with *.safetensors or pytorch_model.bin, no ONNX graph). Returns
// for anything else. Lists at most 4096 entries of the directory and opens no file.
void refuse_non_package_directory(const std::filesystem::path& dir);

// The next step for a model in a format ogai does not run: the exporters that write an ONNX
// folder ogai runs (Optimum, ONNX Runtime GenAI's model builder).
extern const char* const kExportHint;

}  // namespace ogai::metadata
