#include "serve/webui/chat_page.h"

#include <string>

#include "serve/common/api_error.h"
#include "serve/openai/api_response.h"
#include "serve/webui/webui_assets.h"

namespace ogai::serve::webui {
namespace {

constexpr std::string_view kAssetPrefix = "/webui/";

const EmbeddedFile* find_file(std::string_view name) {
  for (const EmbeddedFile& f : embedded_files())
    if (f.name == name) return &f;
  return nullptr;
}

http::Response error_answer(int status, std::string message, std::string code) {
  ApiError e = invalid_request("", std::move(message), std::move(code));
  e.status = status;
  http::Response r;
  r.status = status;
  r.body = to_text(error_json(e));
  return r;
}

}  // namespace

bool is_page_path(std::string_view path) {
  return path == "/" || path == "/index.html" || (path.starts_with(kAssetPrefix) && path.size() > kAssetPrefix.size());
}

std::string_view content_type_of(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

http::Response page_response(const http::Request& request) {
  if (request.method != "GET" && request.method != "HEAD") {
    http::Response r = error_answer(405, request.method + " is not allowed on " + request.path + "; use GET",
                                    "method_not_allowed");
    r.fields.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  const bool page = !request.path.starts_with(kAssetPrefix);
  const std::string_view name = page ? std::string_view("index.html") : std::string_view(request.path).substr(kAssetPrefix.size());
  const EmbeddedFile* file = find_file(name);
  if (file == nullptr)
    return error_answer(404, "unknown route: " + request.method + " " + request.path + " (the chat page has no such file)",
                        "not_found");
  http::Response r;
  r.content_type = std::string(content_type_of(file->name));
  r.body = std::string(file->bytes);
  r.fields.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy));
  r.fields.emplace_back("X-Content-Type-Options", "nosniff");
  r.fields.emplace_back("Referrer-Policy", "no-referrer");
  r.fields.emplace_back("Cache-Control", page ? "no-cache" : "public, max-age=31536000, immutable");
  return r;
}

}  // namespace ogai::serve::webui
