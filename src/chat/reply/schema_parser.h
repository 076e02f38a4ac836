// The older `response_schema` form of a reply's layout (a JSON Schema annotated with `x-regex`,
// `x-regex-iterator` and `x-parser`, as Gemma-4's tokenizer_config.json ships it), applied to a
// whole reply: `x-regex` named groups give an object's properties, `x-regex-iterator` finds an
// array's items, `x-parser` "json" or "gemma4-tool-call" reads a value, `const` fills itself in.
// Schemas are checked when loaded (regexes compile, annotations are strings). Immutable.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "chat/reply/response_template.h"

namespace ogai::chat::reply {

class ResponseSchema {
 public:
  // Throws ogai::Error kInvalidArgument naming the path of a bad annotation under `where`.
  static std::shared_ptr<const ResponseSchema> load(const Json& schema, const std::string& where);
  // The message (transformers' parse_response shape); a reply the regex does not fit is content.
  Json parse(std::string_view reply) const;
  // Every string of the schema document (its x-regex and x-regex-iterator patterns among them),
  // plus the string delimiters of the gemma4-tool-call parser when the schema names it.
  const std::vector<std::string>& strings() const { return strings_; }

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  std::vector<std::string> strings_;
};

}  // namespace ogai::chat::reply
