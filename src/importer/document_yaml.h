// YAML text for the importer's documents (internal to the importer): indented lines, scalars
// quoted only when they must be, port contracts copied from a graph's ValueInfo, and a JSON value
// (a preprocessing program) as block YAML. Deterministic; pure.
#pragma once

#include <iterator>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "onnx/graph_info.h"

namespace ogai::importer {

class YamlLines {
 public:
  template <typename... Args>
  void line(int indent, fmt::format_string<Args...> format, Args&&... args) {
    out_.append(static_cast<std::size_t>(indent) * 2, ' ');
    fmt::format_to(std::back_inserter(out_), format, std::forward<Args>(args)...);
    out_ += '\n';
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// A plain scalar when `s` is a simple name, else a JSON (= YAML double-quoted) string.
std::string quote(const std::string& s);

// `{dtype: float32, rank: 3, shape: [batch, sequence, 64], batch_layout: {kind: request_aligned,
// axis: N}}` (no shape when a dim is unnamed; no batch_layout when `batch_axis` is negative).
std::string contract(const onnx::ValueInfo& v, int batch_axis = 0);

// `value` as block YAML at `indent`: mappings and lists of mappings as blocks, lists of scalars
// in flow form, scalars as JSON (strings through quote()).
void write_json(YamlLines& y, int indent, const nlohmann::ordered_json& value);

}  // namespace ogai::importer
