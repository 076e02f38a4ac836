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

constexpr const char* kGgufHint =
    "ONNX Runtime GenAI's model builder converts it (python3 -m onnxruntime_genai.models.builder -i FILE.gguf -m "
    "HF_MODEL_ID -o OUT -p int4 -e cpu); or, from the original Hugging Face checkpoint, ";

bool is_gguf(const std::filesystem::path& file) {
  if (ends_with(file.filename().string(), ".gguf")) return true;
  try {
    return read_file_head(file, 4) == "GGUF";
  } catch (const Error&) {  // not a regular file, unreadable: the metadata read reports it
    return false;
  }
}

// What the file is, or nullptr when it may be metadata.
const char* kind_of(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (is_gguf(file)) return "a GGUF file (llama.cpp's format), not an ONNX package";
  if (ends_with(name, ".safetensors") || name == "pytorch_model.bin" || ends_with(name, ".pt") || ends_with(name, ".pth"))
    return "PyTorch / safetensors weights of a checkpoint, not an ONNX package";
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

const char* const kExportHint =
    "export it to ONNX with Hugging Face Optimum (optimum-cli export onnx --model MODEL_DIR_OR_ID --task "
    "text-generation-with-past OUT) or ONNX Runtime GenAI's model builder (python3 -m onnxruntime_genai.models.builder "
    "-m MODEL_ID -o OUT -p fp32 -e cpu); ogai runs OUT directly (`ogai generate OUT`; `ogai import OUT` writes its "
    "inference_metadata.yaml)";

void refuse_non_metadata_file(const std::filesystem::path& file) {
  const char* kind = kind_of(file);
  if (kind == nullptr) return;
  if (is_gguf(file)) fail(ErrorCode::kInvalidPackage, file.string(), "this is {}; {}{}", kind, kGgufHint, kExportHint);
  if (std::string_view(kind).starts_with("PyTorch"))
    fail(ErrorCode::kInvalidPackage, file.string(), "this is {}; {}", kind, kExportHint);
  fail(ErrorCode::kInvalidPackage, file.string(), "this is {}; {}", kind, kWhatToPass);
}

void refuse_non_package_directory(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string gguf;
  bool weights = false, onnx = false;
  std::size_t seen = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end && seen < 4096; it.increment(ec), ++seen) {
    const std::string name = it->path().filename().string();
    if (gguf.empty() && ends_with(name, ".gguf")) gguf = name;
    weights = weights || ends_with(name, ".safetensors") || name == "pytorch_model.bin" ||
              name == "pytorch_model.bin.index.json" || name == "model.safetensors.index.json";
    onnx = onnx || ends_with(name, ".onnx") || name == "onnx";
  }
  if (!gguf.empty())
    fail(ErrorCode::kNotFound, dir.string(), "no inference_metadata.yaml; this folder holds {}, a GGUF file (llama.cpp's "
         "format), which ogai does not run: {}{}", gguf, kGgufHint, kExportHint);
  if (weights && !onnx && fs::is_regular_file(dir / "config.json", ec))
    fail(ErrorCode::kNotFound, dir.string(), "no inference_metadata.yaml; this is a Hugging Face checkpoint (config.json "
         "and PyTorch / safetensors weights) without ONNX graphs, which ogai does not run: {}", kExportHint);
}

}  // namespace ogai::metadata
