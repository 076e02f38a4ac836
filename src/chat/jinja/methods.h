// String and dict helpers shared by methods (methods.cc) and filters (filters.cc).
#pragma once

#include <string_view>

#include "chat/jinja/interpreter.h"

namespace ogai::chat::jinja {

// str.replace(old, new[, count]) as @huggingface/jinja does it (an empty `old` inserts `new`
// between every code point).
Value replace_text(Renderer& r, std::string_view s, const Args& args);
// dict.dictsort(case_sensitive=false, by='key', reverse=false): a list of [key, value] pairs.
Value dictsort(Renderer& r, const ObjectData& o, const Args& args);

}  // namespace ogai::chat::jinja
