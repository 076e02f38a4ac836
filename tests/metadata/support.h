// Helpers for the metadata tests: shared conformance inputs, text edits that fail the test when
// their anchor is missing (so a drifted input can never turn a mutation into a no-op), temporary
// packages and generated text-format ONNX graphs.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "metadata/diagnostics.h"
#include "metadata/package.h"

namespace ogai::metadata::testing {

std::filesystem::path shared_path(const std::string& relative);  // OGAI_SHARED_DIR/relative
std::string catalogue_text(const std::string& file);              // catalogue/<file>
std::string fixture_text(const std::string& fixture);             // fixtures/<fixture>/inference_metadata.yaml
std::filesystem::path fixture_dir(const std::string& fixture);

// Replaces the first occurrence of `from` (which must occur).
std::string replace_once(std::string text, std::string_view from, std::string_view to);
// Replaces every occurrence of `from` (at least one must occur).
std::string replace_all(std::string text, std::string_view from, std::string_view to);
// Removes the first line containing `needle` (which must occur).
std::string erase_line(std::string text, std::string_view needle);

// Document-only diagnostics of metadata text.
Diagnostics check(const std::string& text, const std::string& origin = "inference_metadata.yaml");
// A diagnostic with this rule whose path and message contain the given fragments.
bool has(const Diagnostics& diags, const std::string& rule, const std::string& path_part = "",
         const std::string& message_part = "");

// A fresh directory under the build tree, removed on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& name);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& relative, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

// A port of a generated graph: dtype name (float16, float32, int64, bool, ...) and dims (a number
// or a symbol each).
struct Port {
  std::string name, dtype;
  std::vector<std::string> dims;
};
struct GraphSpec {
  std::vector<Port> inputs, outputs;
  std::vector<Port> initializers;  // also listed as graph inputs when `also_input`
  std::vector<std::string> ops;    // "domain:op" node op types
  std::vector<std::string> external_data;  // external-data locations of extra initializers
};
std::string graph_textproto(const GraphSpec& spec);

}  // namespace ogai::metadata::testing
