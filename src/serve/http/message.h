// The HTTP transport's plain request and response values (src/serve/http/). Independent of the
// routes and of generation: the transport fills a Request once its header and body have arrived
// whole and within their limits, and writes a Response it is given.
// Plain value types; thread-compatible.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ogai::serve::http {

// One header field as it arrived; names compare case-insensitively (header()).
using Field = std::pair<std::string, std::string>;

struct Request {
  std::string method;          // "GET", "POST", ... as sent
  std::string target;          // the request target as sent ("/v1/models?x=1")
  std::string path;            // the target without its query string ("/v1/models")
  std::vector<Field> fields;   // every header field, in order
  std::string body;            // the whole body (Content-Length or chunked), at most the body limit
  int version = 11;            // 10 = HTTP/1.0, 11 = HTTP/1.1
  std::string remote_address;  // the client's IP address ("" if unknown)
  int remote_port = 0;

  // The first field called `name` (any case), or "" when there is none.
  std::string_view header(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<Field> fields;  // extra header fields (Retry-After, Allow, Cache-Control, ...)
  std::string body;           // a whole response's body; unused as the head of a stream
};

// The path a request target is routed by: an origin-form target ("/v1/models?x") without its
// query, or the path of an absolute-form one ("http://host:8080/v1/models", which a server MUST
// accept: RFC 9112 3.2.2; "/" when it has none).
std::string_view route_path(std::string_view target);

// The reason phrase of an HTTP status ("OK", "Too Many Requests"); "Unknown" for others.
std::string_view reason_phrase(int status);

}  // namespace ogai::serve::http
