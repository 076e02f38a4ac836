#include "serve/ops/request_gate.h"

#include <chrono>

#include "serve/ops/access_log.h"
#include "serve/ops/auth.h"
#include "serve/server_impl.h"

namespace ogai::serve {
namespace {

// Writes the access line of `request` when its Exchange ends.
std::function<void(int, std::size_t)> access_logger(const http::Request& request, std::string id) {
  AccessRecord record;
  record.request_id = std::move(id);
  record.remote = request.remote_address + ":" + std::to_string(request.remote_port);
  record.method = request.method;
  record.target = request.target;
  record.http_version = request.version;
  const auto start = std::chrono::steady_clock::now();
  return [record = std::move(record), start](int status, std::size_t bytes) mutable {
    record.status = status;
    record.bytes = bytes;
    record.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    write_access_log(record);
  };
}

}  // namespace

RequestGate::RequestGate(SurfaceOptions options) : options_(std::move(options)), cors_{options_.cors_origins} {}

bool RequestGate::admit(http::Exchange& exchange) {
  const http::Request& request = exchange.request();
  http::Exchange::Annotations a;
  a.request_id = ids_.id_for(request.header("x-request-id"));
  a.fields = cors_fields(cors_, request);
  a.fields.emplace_back("x-request-id", a.request_id);
  if (options_.access_log) a.on_done = access_logger(request, a.request_id);
  exchange.annotate(std::move(a));
  if (is_preflight(request)) {
    exchange.respond(preflight_response(cors_, request));
    return false;
  }
  if (auto denied = check_api_key(request, options_.api_keys, options_.protect_probes)) {
    http::Response r = error_response(*denied, request);
    r.fields.emplace_back("WWW-Authenticate", "Bearer");
    exchange.respond(std::move(r));
    return false;
  }
  return true;
}

}  // namespace ogai::serve
