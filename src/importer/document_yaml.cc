#include "importer/document_yaml.h"

#include <cctype>
#include <set>

#include "base/dtype.h"

namespace ogai::importer {
namespace {

std::string scalar(const nlohmann::ordered_json& v) {
  if (v.is_string()) return quote(v.get<std::string>());
  if (v.is_array()) {
    std::string text;
    for (const auto& item : v) text += (text.empty() ? "" : ", ") + scalar(item);
    return "[" + text + "]";
  }
  if (v.is_number_float()) {  // a float that reads back as one (1.0, not 1; 1.0e-05, which YAML 1.1 readers need)
    std::string text = v.dump();
    const std::size_t exponent = text.find_first_of("eE");
    if (text.find('.') == std::string::npos) text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
    return text;
  }
  return v.dump();
}

bool is_block(const nlohmann::ordered_json& v) {
  if (v.is_object()) return !v.empty();
  if (!v.is_array()) return false;
  for (const auto& item : v)
    if (item.is_object() || item.is_array()) return true;
  return false;
}

}  // namespace

std::string quote(const std::string& s) {
  static const std::set<std::string> kReserved = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"};
  bool plain = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') && !kReserved.contains(s);
  for (char ch : s) plain = plain && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-');
  return plain ? s : nlohmann::json(s).dump();
}

std::string contract(const onnx::ValueInfo& v, int batch_axis) {
  std::string shape;
  bool known = v.has_shape;
  for (std::size_t i = 0; known && i < v.shape.size(); ++i) {
    const onnx::Dim& d = v.shape[i];
    known = d.is_fixed() || !d.symbol.empty();
    shape += (i ? ", " : "") + (d.is_fixed() ? std::to_string(d.value) : quote(d.symbol));
  }
  const std::string layout =
      batch_axis < 0 ? std::string() : fmt::format(", batch_layout: {{kind: request_aligned, axis: {}}}", batch_axis);
  return fmt::format("{{dtype: {}, rank: {}{}{}}}", dtype_name(v.dtype), v.rank(),
                     known ? ", shape: [" + shape + "]" : std::string(), layout);
}

void write_json(YamlLines& y, int indent, const nlohmann::ordered_json& value) {
  if (value.is_object()) {
    for (const auto& [key, v] : value.items()) {
      if (is_block(v)) {
        y.line(indent, "{}:", quote(key));
        write_json(y, indent + 1, v);
      } else {
        y.line(indent, "{}: {}", quote(key), scalar(v));
      }
    }
    return;
  }
  // A list holding mappings: each item opens with "- " and its first key.
  for (const auto& item : value) {
    if (!item.is_object() || item.empty()) {
      y.line(indent, "- {}", scalar(item));
      continue;
    }
    YamlLines inner;
    write_json(inner, 0, item);
    std::string text = inner.take();
    bool first = true;
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t end = text.find('\n', at);
      y.line(indent, "{}{}", first ? "- " : "  ", text.substr(at, end - at));
      first = false;
      at = end + 1;
    }
  }
}

}  // namespace ogai::importer
