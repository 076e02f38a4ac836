#include "metadata/file_kind.h"

#include <fstream>
#include <string>

#include "base/error.h"
#include "base/file.h"
#include "base/input_file.h"

namespace ogai::metadata {
namespace {

constexpr const char* kWhatToPass =
    "pass the package directory (the one holding inference_metadata.yaml) or its metadata file";

bool ends_with(const std::string& s, std::string_view suffix) { return s.ends_with(suffix); }

std::string head_of(const std::filesystem::path& file) { return read_file_head(file, 4096); }

// What the file is, or nullptr when it may be metadata.
const char* kind_of(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (ends_with(name, ".onnx") || ends_with(name, ".onnx.textproto") || ends_with(name, ".ort"))
    return "an ONNX graph, not a package (`ogai inspect` reads a bare graph; a package's metadata names its graphs)";
  if (ends_with(name, ".onnx.data") || ends_with(name, ".onnx_data"))
    return "an ONNX graph's external weights, not a package";
  if (ends_with(name, ".jinja") || ends_with(name, ".jinja2"))
    return "a chat template, not a package (give it to a package with --chat-template FILE)";
  if (name == "tokenizer_config.json" || name == "chat_template.json")
    return "a tokenizer's configuration, not a package";
  if (name == "genai_config.json") return nullptr;  // imported by the caller before this point
  if (!ends_with(name, ".json")) return nullptr;
  const std::string head = head_of(file);
  if (name == "tokenizer.json" ||
      (head.find("\"added_tokens\"") != std::string::npos && head.find("\"normalizer\"") != std::string::npos))
    return "a tokenizer (tokenizer.json), not a package (`ogai tokenize` reads it alone)";
  return nullptr;
}

}  // namespace

void refuse_non_metadata_file(const std::filesystem::path& file) {
  if (const char* kind = kind_of(file)) fail(ErrorCode::kInvalidPackage, file.string(), "this is {}; {}", kind, kWhatToPass);
}

}  // namespace ogai::metadata
