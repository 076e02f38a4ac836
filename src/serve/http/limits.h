// The limits the HTTP transport enforces on every connection, with their defaults. A client that
// exceeds one gets a clear answer (413, 431, 503) or, for deadlines, a closed connection; none of
// them costs a thread, so slow or idle clients cannot stop others from being answered.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace ogai::serve::http {

struct Limits {
  std::size_t max_connections = 512;  // open connections at once; one more gets 503 and is closed
  // Open connections from one client address that are not answering a request (idle, or still
  // reading one; a reverse proxy's streams do not count); 0 = max_connections / 8 (at least 8). A new one
  // beyond it (or beyond max_connections) takes the place of the oldest connection of that peer
  // (of any peer, at max_connections) that has not sent a whole request header yet, else is refused
  // (http_server.cc: what the new one has sent decides which places it may take).
  std::size_t max_connections_per_peer = 0;
  // Beyond max_connections, this many connections more may each ask one of `probe_paths` (a
  // health check or a scrape, answered while slow clients hold every other place); any other
  // request on them is answered 503.
  std::size_t probe_reserve = 8;
  std::vector<std::string> probe_paths = {"/health", "/ready", "/metrics"};
  std::size_t max_header_bytes = 16 << 10;  // request line and header fields together; more -> 431
  std::size_t max_body_bytes = 8 << 20;     // Content-Length or chunked, counted as it arrives; more -> 413
  std::size_t max_form_body_bytes = 8192;   // the same for application/x-www-form-urlencoded bodies
  int max_requests_per_connection = 100;    // keep-alive requests before the server closes the connection
  // A keep-alive connection with no byte of a next request for this long is closed (its
  // Keep-Alive field announces 2 s less). A new connection waits for its first request the longer
  // of this and header_timeout, then is answered 408 (a client on a busy machine may be slow to
  // send it, and reads the 408 rather than a socket closed under its request).
  std::chrono::milliseconds idle_timeout{5000};
  // From a request's first byte, its whole header must arrive within this (slow-header clients).
  std::chrono::milliseconds header_timeout{10000};
  // From the end of the header, the whole body must arrive within this.
  std::chrono::milliseconds body_timeout{60000};
  // Each write of a response (a whole response, or one streamed chunk) must finish within this.
  std::chrono::milliseconds write_timeout{30000};
  // After an early answer (413, 431, 400) the server discards what the client still sends for at
  // most this long before closing, so the client reads the answer instead of a reset.
  std::chrono::milliseconds linger{2000};
};

}  // namespace ogai::serve::http
