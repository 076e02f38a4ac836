// Failures inside the engine. TemplateFailure carries only a message; the renderer adds the
// template's origin and the line:column of the node being evaluated when it converts the failure
// into ogai::Error. RaisedByTemplate is raise_exception(): its message is the template's own.
#pragma once

#include <fmt/format.h>

#include <string>

namespace ogai::chat::jinja {

struct TemplateFailure {
  std::string message;
};

struct RaisedByTemplate {
  std::string message;
};

template <typename... Args>
[[noreturn]] void template_fail(fmt::format_string<Args...> format, Args&&... args) {
  throw TemplateFailure{fmt::format(format, std::forward<Args>(args)...)};
}

}  // namespace ogai::chat::jinja
