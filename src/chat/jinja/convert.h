// JSON -> template values, without copying strings: string values and object keys are views into
// the caller's JSON, which must outlive the render. Object keys keep JavaScript's property order
// (array-index keys such as "0", "1" first, ascending; then insertion order), as the
// @huggingface/jinja oracle sees objects.
#pragma once

#include <nlohmann/json.hpp>

#include "chat/jinja/interpreter.h"

namespace ogai::chat::jinja {

Value from_json(Renderer& r, const nlohmann::ordered_json& j, int depth = 0);

}  // namespace ogai::chat::jinja
