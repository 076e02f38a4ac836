#include "support.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "base/file.h"

namespace ogai::metadata::testing {

namespace fs = std::filesystem;

fs::path shared_path(const std::string& relative) { return fs::path(OGAI_SHARED_DIR) / relative; }
std::string catalogue_text(const std::string& file) { return read_file(shared_path("conformance/metadata/catalogue/" + file)); }
fs::path fixture_dir(const std::string& fixture) { return shared_path("conformance/metadata/fixtures/" + fixture); }
std::string fixture_text(const std::string& fixture) { return read_file(fixture_dir(fixture) / "inference_metadata.yaml"); }

std::string replace_once(std::string text, std::string_view from, std::string_view to) {
  auto at = text.find(from);
  if (at == std::string::npos) {
    ADD_FAILURE() << "edit anchor not found: " << from;
    return text;
  }
  return text.replace(at, from.size(), to);
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  std::size_t at = text.find(from);
  if (at == std::string::npos) ADD_FAILURE() << "edit anchor not found: " << from;
  while (at != std::string::npos) {
    text.replace(at, from.size(), to);
    at = text.find(from, at + to.size());
  }
  return text;
}

std::string erase_line(std::string text, std::string_view needle) {
  auto at = text.find(needle);
  if (at == std::string::npos) {
    ADD_FAILURE() << "line to erase not found: " << needle;
    return text;
  }
  auto begin = text.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  auto end = text.find('\n', at);
  return text.erase(begin, end == std::string::npos ? std::string::npos : end - begin + 1);
}

Diagnostics check(const std::string& text, const std::string& origin) {
  return validate_text(text, origin).diagnostics;
}

bool has(const Diagnostics& diags, const std::string& rule, const std::string& path_part, const std::string& message_part) {
  for (const auto& d : diags.items())
    if (d.rule == rule && d.path.find(path_part) != std::string::npos && d.message.find(message_part) != std::string::npos)
      return true;
  return false;
}

TempDir::TempDir(const std::string& name) {
  path_ = fs::path(OGAI_BINARY_DIR) / "test_tmp" / (name + "_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(path_);
  fs::create_directories(path_);
  path_ = fs::canonical(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path TempDir::write(const std::string& relative, const std::string& text) const {
  fs::path file = path_ / relative;
  fs::create_directories(file.parent_path());
  write_file(file, text);
  return file;
}

namespace {

int elem_type(const std::string& dtype) {
  static const std::map<std::string, int> kTypes = {{"float32", 1}, {"uint8", 2}, {"int8", 3}, {"int32", 6}, {"int64", 7},
                                                    {"bool", 9}, {"float16", 10}, {"float64", 11}, {"bfloat16", 16}};
  return kTypes.at(dtype);
}

std::string value_info(const char* field, const Port& p) {
  std::string dims;
  for (const auto& d : p.dims) {
    bool number = !d.empty() && std::all_of(d.begin(), d.end(), ::isdigit);
    dims += number ? fmt::format(" dim {{ dim_value: {} }}", d) : fmt::format(" dim {{ dim_param: \"{}\" }}", d);
  }
  return fmt::format("  {} {{ name: \"{}\" type {{ tensor_type {{ elem_type: {} shape {{{} }} }} }} }}\n", field, p.name,
                     elem_type(p.dtype), dims);
}

}  // namespace

std::string graph_textproto(const GraphSpec& spec) {
  std::string g = "ir_version: 8\nopset_import { domain: \"\" version: 17 }\nopset_import { domain: \"com.microsoft\" version: 1 }\ngraph {\n  name: \"generated\"\n";
  for (const auto& op : spec.ops) {
    auto colon = op.find(':');
    g += fmt::format("  node {{ op_type: \"{}\" domain: \"{}\" }}\n", op.substr(colon + 1), op.substr(0, colon));
  }
  for (const auto& init : spec.initializers) {
    std::string dims;
    for (const auto& d : init.dims) dims += " dims: " + d;
    g += fmt::format("  initializer {{ name: \"{}\" data_type: {}{} }}\n", init.name, elem_type(init.dtype), dims);
  }
  for (std::size_t i = 0; i < spec.external_data.size(); ++i)
    g += fmt::format("  initializer {{ name: \"ext{}\" data_type: 1 dims: 1 data_location: EXTERNAL external_data {{ key: "
                     "\"location\" value: \"{}\" }} }}\n", i, spec.external_data[i]);
  for (const auto& p : spec.inputs) g += value_info("input", p);
  for (const auto& p : spec.outputs) g += value_info("output", p);
  return g + "}\n";
}

}  // namespace ogai::metadata::testing
