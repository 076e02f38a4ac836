// HttpServer: the event-driven HTTP/1.1 transport of `ogai serve` (Boost.Beast's parser on Asio;
// the only code with server_impl.h's routes that sees HTTP). A few I/O threads serve every
// connection: a connection costs a socket and a small buffer, never a thread, so slow, idle or
// hostile clients cannot keep others from being answered. Requests reach Hooks::handle whole and
// within the Limits (limits.h); answers go back through the Exchange (exchange.h), from any
// thread. No Range, no compression, no TLS: an API's answers are sent as they are.
//
// Lifecycle: bind(), then run() on one thread until stop() (any thread, any time, idempotent;
// before run() it makes run() return at once). stop() closes the listener and every connection
// that is not being answered; those that are get their answer written, then close; run() returns
// once every connection has closed and every Exchange is gone, its I/O threads joined.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "serve/http/exchange.h"
#include "serve/http/limits.h"

namespace ogai::serve::http {

class HttpServer {
 public:
  HttpServer(Limits limits, Hooks hooks);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on host:port (0 = any free port) with SO_REUSEADDR only (never a shared port) and a
  // backlog of 1024; returns the port. Throws ogai::Error (kRuntime) naming host:port.
  int bind(const std::string& host, int port);
  // Serves on `io_threads` threads (this one included) until stop() and every connection ended.
  void run(int io_threads);
  void stop();

  std::size_t open_connections() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ogai::serve::http
