// A parsed Jinja chat template and its renderer. Renders the subset of Jinja that Hugging Face
// chat templates use, with HF's environment (trim_blocks, lstrip_blocks, tojson, raise_exception,
// strftime_now), and produces exactly what @huggingface/jinja produces; see
// docs/chat_templates.md for the supported constructs and the few documented differences.
//
// Thread safety: a Template is immutable once parsed; render() is const and may run on many
// threads at once. Copies share the parsed program (cheap).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ctime>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ogai::chat {

// Order-preserving JSON: templates see object keys in the order the request gave them (tool
// schemas are printed with tojson), so inputs must be parsed as ordered_json.
using Json = nlohmann::ordered_json;

namespace jinja {
struct Program;
}

// Bounds that keep a hostile template from hanging, exhausting memory or the stack. Exceeding
// one raises ogai::Error (kInvalidArgument) saying which.
struct RenderLimits {
  std::size_t max_output_bytes = 64u << 20;      // the prompt, and any single string built on the way
  std::size_t max_memory_bytes = 512u << 20;     // all values created during one render
  std::uint64_t max_loop_iterations = 10'000'000;  // summed over every loop and range() of the render
  int max_depth = 200;                           // nested blocks plus macro calls
};

struct RenderOptions {
  RenderLimits limits;
  std::optional<std::time_t> now;  // strftime_now's clock (local time); default: the current time
};

// One template variable: a name and a JSON value that must outlive the render call.
struct Binding {
  std::string_view name;
  const Json* value;
};

class Template {
 public:
  // Parses `source`. `origin` names it in errors (a file path, "tokenizer_config.json:chat_template").
  // Throws ogai::Error kParse: "<origin>:<line>:<column>: <what is wrong>".
  static Template parse(std::string_view source, std::string origin);

  // Renders with the given variables (later bindings of the same name win). Throws ogai::Error
  // kInvalidArgument with where() = "<origin>:<line>:<column>" of the failing expression; for
  // raise_exception(msg), message() is exactly msg.
  std::string render(std::span<const Binding> variables, const RenderOptions& options = {}) const;
  // Same, with the variables as the members of a JSON object.
  std::string render(const Json& variables, const RenderOptions& options = {}) const;

  const std::string& origin() const { return origin_; }
  const std::string& source() const;

 private:
  Template(std::shared_ptr<const jinja::Program> program, std::string origin);
  std::shared_ptr<const jinja::Program> program_;
  std::string origin_;
};

}  // namespace ogai::chat
