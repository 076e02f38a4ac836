// Text-format ONNX graphs (`.onnx.textproto`, as the onnx-genai conformance fixtures store them).
//
// The text is parsed with Debian's ONNX protobuf schema (1.12). Fields newer than that schema
// (e.g. NodeProto.metadata_props in IR 11) are skipped: they carry no I/O, type or shape
// information. Everything the schema knows is kept and re-serialized, so the binary form loads in
// ONNX Runtime and reads back through read_graph_info_from_bytes().
#pragma once

#include <filesystem>
#include <string>

namespace ogai::onnx {

// Converts a text-format ModelProto file to binary protobuf bytes. Throws ogai::Error with the
// file, line and column of a syntax error.
std::string textproto_to_binary(const std::filesystem::path& path);

// The model as binary ModelProto bytes: the file itself for `.onnx`, converted for textproto.
std::string load_model_bytes(const std::filesystem::path& path);

}  // namespace ogai::onnx
