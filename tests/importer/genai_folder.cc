#include "genai_folder.h"

#include <stdexcept>
#include <vector>

#include "base/file.h"

namespace ogai::importer::testing {
namespace fs = std::filesystem;

fs::path generated_dir(const std::string& source) { return fs::path(OGAI_BINARY_DIR) / "importer_folders" / source; }

nlohmann::json base_config(const std::string& source) {
  if (source.starts_with("builder-llama"))
    return nlohmann::json::parse(read_file(generated_dir(source) / "genai_config.json"));
  const std::string config = source == "tiny-e2b-fp16" ? "tiny-e2b" : source;  // one config, two dtypes
  return nlohmann::json::parse(read_file(fs::path(OGAI_SOURCE_DIR) / "tests/data/genai" / config / "genai_config.json"));
}

fs::path make_folder(const std::string& name, const std::string& source, const nlohmann::json& config) {
  const fs::path dir = fs::path(OGAI_BINARY_DIR) / "importer_folders" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<fs::path> files;
  if (source == "stories260k") {
    const fs::path shared = fs::path(OGAI_SHARED_DIR) / "models/stories260k";
    const fs::path side = fs::path(OGAI_SOURCE_DIR) / "tests/data/stories260k";
    files = {shared / "model.onnx", shared / "tokenizer.json", side / "tokenizer_config.json",
             side / "generation_config.json"};
  } else if (source == "tiny-e2b" || source == "tiny-e2b-fp16") {
    const fs::path pkg = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages" / source;
    files = {pkg / "model.onnx", pkg / "tokenizer.json", pkg / "tokenizer_config.json", pkg / "generation_config.json",
             pkg / "chat_template.jinja"};
    if (source == "tiny-e2b-fp16") files.push_back(pkg / "model.onnx.data");
  } else if (source == "builder-llama" || source == "builder-llama-mha") {
    const fs::path generated = generated_dir(source);
    files = {generated / "model.onnx", generated / "model.onnx.data", generated / "tokenizer.json"};
  } else {
    throw std::invalid_argument("unknown folder source " + source);
  }
  for (const fs::path& file : files) fs::copy_file(file, dir / file.filename());
  write_file(dir / "genai_config.json", config.dump(4));
  return dir;
}

fs::path make_folder(const std::string& name, const std::string& source, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json config = base_config(source);
  if (edit) edit(config);
  return make_folder(name, source, config);
}

}  // namespace ogai::importer::testing
