// RequestGate: what every request passes before its route (server.cc calls admit() first).
// In order: it gets its request id (request_id.h), the CORS fields its origin earns (cors.h) and,
// when the access log is on, the line written once its answer is done (access_log.h); then a CORS
// preflight is answered 204 and a request without the right API key 401 (auth.h), both here.
// Thread-safe: admit() may run on many I/O threads at once.
#pragma once

#include "serve/ops/cors.h"
#include "serve/http/exchange.h"
#include "serve/ops/request_id.h"
#include "serve/server.h"

namespace ogai::serve {

class RequestGate {
 public:
  explicit RequestGate(SurfaceOptions options);

  // Annotates `exchange`; answers it when it must not reach a route. Returns whether the route
  // is to answer it.
  bool admit(http::Exchange& exchange);

 private:
  SurfaceOptions options_;
  CorsPolicy cors_;
  RequestIds ids_;
};

}  // namespace ogai::serve
