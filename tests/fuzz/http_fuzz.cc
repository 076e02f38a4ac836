// libFuzzer target: arbitrary bytes as what a client sends on one connection to the server's
// HTTP transport (src/serve/http/): request lines, header fields, Content-Length and chunked
// framing, Expect, pipelined requests, a client that half-closes. One HttpServer runs on a
// loopback port for the whole run with a route that parses chat bodies as `ogai serve` does and
// answers each request; every input is written on a fresh connection, the client half-closes,
// and the target reads until the server closes. A crash, sanitizer report or a connection the
// server never closes (libFuzzer's -timeout) is the bug this finds.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "fuzz_support.h"
#include "serve/common/api_request.h"
#include "serve/http/http_server.h"

namespace {

namespace http = ogai::serve::http;

void answer(const std::shared_ptr<http::Exchange>& exchange) {
  http::Response r;
  try {
    (void)ogai::serve::parse_chat_request(exchange->request().body);
    r.body = "{}";
  } catch (const ogai::serve::ApiError& e) {
    r.status = e.status;
    r.body = e.message;
  } catch (const ogai::Error& e) {
    r.status = 500;
    r.body = e.what();
  }
  if (exchange->request().path == "/stream") {  // the streamed framing too
    exchange->begin_stream(std::move(r));
    exchange->write("data: 1\n\n", [](bool) {});
    exchange->finish();
    return;
  }
  exchange->respond(std::move(r));
}

// The server, started once; lives until the process exits.
int server_port() {
  static const int port = [] {
    http::Limits limits;
    limits.max_body_bytes = 64 << 10;
    limits.idle_timeout = std::chrono::milliseconds(300);
    limits.header_timeout = std::chrono::milliseconds(500);
    limits.body_timeout = std::chrono::milliseconds(500);
    limits.linger = std::chrono::milliseconds(50);
    http::Hooks hooks;
    hooks.handle = answer;
    hooks.failure_response = [](const http::Failure& f) {
      http::Response r;
      r.status = f.status;
      r.body = f.message;
      return r;
    };
    hooks.answered = [](const std::string&, int) {};
    auto* server = new http::HttpServer(limits, hooks);  // never freed: the process ends with it
    int p = server->bind("127.0.0.1", 0);
    std::thread([server] { server->run(2); }).detach();
    return p;
  }();
  return port;
}

void exchange_bytes(std::string_view bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return;
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(server_port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    ::shutdown(fd, SHUT_WR);
    char buffer[4096];
    while (::recv(fd, buffer, sizeof buffer, 0) > 0) {
    }
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  exchange_bytes(ogai::fuzz::as_text(data, size));
  return 0;
}
