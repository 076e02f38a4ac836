// Diagnostics: the errors a metadata check collects instead of stopping at the first.
//
// Every diagnostic carries a stable rule id (the V-* ids of the onnx-genai v1 digest §4.2, `P`
// for parse errors, `PKG` for package rules, `R1`..`R8` for ONNX admission, `ABI` for the decoder
// ABI), the document path it concerns (`pipeline.workflow.state.full_key_0.service_group`) and a
// message that quotes the offending value and says what was expected. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

namespace ogai::metadata {

struct Diagnostic {
  std::string rule;
  std::string path;
  std::string message;
  std::string text() const { return rule + " " + path + ": " + message; }  // `RULE path: message`
  bool operator==(const Diagnostic&) const = default;
};

class Diagnostics {
 public:
  void add(std::string rule, std::string path, std::string message) {
    items_.push_back({std::move(rule), std::move(path), std::move(message)});
  }
  template <typename... Args>
  void report(const char* rule, std::string path, fmt::format_string<Args...> format, Args&&... args) {
    add(rule, std::move(path), fmt::format(format, std::forward<Args>(args)...));
  }
  void append(const Diagnostics& other) { items_.insert(items_.end(), other.items_.begin(), other.items_.end()); }
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  bool has_rule(const std::string& rule) const {
    for (const auto& d : items_)
      if (d.rule == rule) return true;
    return false;
  }
  // All diagnostics as `RULE path: message` lines.
  std::string text() const {
    std::string out;
    for (const auto& d : items_) out += d.text() + "\n";
    return out;
  }

 private:
  std::vector<Diagnostic> items_;
};

}  // namespace ogai::metadata
