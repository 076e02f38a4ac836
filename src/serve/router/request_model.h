// Which model a request asks for, read before the request is parsed for real (that happens in
// the model's own unit): the top-level "model" string of a JSON body, or the "model" field of a
// multipart/form-data body (audio transcriptions). Reads at most the body it is given (the
// transport bounds it) and stops at the first top-level "model" key; a body that is not JSON, or
// whose "model" is no string, yields nullopt (the unit's parser then answers its own 400). Pure
// functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "serve/http/message.h"

namespace ogai::serve::router {

std::optional<std::string> json_model_field(std::string_view body);
std::optional<std::string> multipart_model_field(std::string_view content_type, std::string_view body);
// By the request's Content-Type: multipart/form-data, else JSON.
std::optional<std::string> requested_model(const http::Request& request);

}  // namespace ogai::serve::router
