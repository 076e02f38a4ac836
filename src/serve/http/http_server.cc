#include "serve/http/http_server.h"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/log.h"
#include "serve/http/connection.h"

namespace ogai::serve::http {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

constexpr int kListenBacklog = 1024;      // connections waiting to be accepted (the kernel may cap it)
constexpr std::size_t kMaxRefusing = 64;  // connections being told "too many" at once; beyond, closed at once
constexpr std::chrono::milliseconds kAcceptRetry{20};  // after an accept error (out of descriptors)

}  // namespace

struct HttpServer::Impl {
  Impl(Limits l, Hooks h)
      : limits(l), hooks(std::move(h)), acceptor(asio::make_strand(io)), retry(acceptor.get_executor()) {}

  void accept();
  void on_accept(boost::system::error_code ec, tcp::socket socket);
  void admit(tcp::socket socket);
  void refuse(tcp::socket socket);
  void stop_all();

  const Limits limits;
  const Hooks hooks;
  asio::io_context io;
  tcp::acceptor acceptor;    // and its handlers run on one strand
  asio::steady_timer retry;  // on the acceptor's strand
  std::chrono::steady_clock::time_point last_warning;  // of an accept failure (acceptor's strand)

  mutable std::mutex mutex;  // guards the members below (connections close on any I/O thread)
  std::map<std::uint64_t, std::weak_ptr<Connection>> open;
  std::uint64_t next_id = 0;
  std::size_t refusing = 0;
  bool stopped = false;
};

void HttpServer::Impl::accept() {
  acceptor.async_accept(asio::make_strand(io), [this](boost::system::error_code ec, tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

void HttpServer::Impl::on_accept(boost::system::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
  if (ec) {  // e.g. EMFILE: try again shortly rather than spin; warn once a second at most
    const auto now = std::chrono::steady_clock::now();
    if (now - last_warning >= std::chrono::seconds(1)) {
      last_warning = now;
      log(LogLevel::kWarn, "serve: accept failed: {} (--max-connections above the descriptor limit?)", ec.message());
    }
    retry.expires_after(kAcceptRetry);
    retry.async_wait([this](boost::system::error_code e) { if (!e) accept(); });
    return;
  }
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);  // a header and its body must not wait for a delayed ACK
  std::size_t count;
  {
    std::lock_guard lock(mutex);
    count = open.size();
  }
  if (count >= limits.max_connections) refuse(std::move(socket));
  else admit(std::move(socket));
  accept();
}

void HttpServer::Impl::admit(tcp::socket socket) {
  std::lock_guard lock(mutex);
  if (stopped) return;  // accepted as stop() came: closed without an answer
  const std::uint64_t id = next_id++;
  auto c = std::make_shared<Connection>(io, std::move(socket), limits, hooks, [this, id] {
    std::lock_guard l(mutex);
    open.erase(id);
  });
  open.emplace(id, c);
  c->start();
}

void HttpServer::Impl::refuse(tcp::socket socket) {
  std::lock_guard lock(mutex);
  if (refusing >= kMaxRefusing) return;  // the socket closes here
  ++refusing;
  auto c = std::make_shared<Connection>(io, std::move(socket), limits, hooks, [this] {
    std::lock_guard l(mutex);
    --refusing;
  });
  c->start_refused({503, "too_many_connections",
                    fmt::format("the server has {} connections open, its limit; retry later", limits.max_connections),
                    ""});
}

void HttpServer::Impl::stop_all() {
  boost::system::error_code ignored;
  acceptor.close(ignored);
  retry.cancel();
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard lock(mutex);
    for (auto& [id, weak] : open)
      if (auto c = weak.lock()) live.push_back(std::move(c));
  }
  for (auto& c : live) c->stop();
}

HttpServer::HttpServer(Limits limits, Hooks hooks) : impl_(std::make_unique<Impl>(limits, std::move(hooks))) {}

HttpServer::~HttpServer() = default;

int HttpServer::bind(const std::string& host, int port) {
  const std::string where = host + ":" + std::to_string(port);
  boost::system::error_code ec;
  tcp::resolver resolver(impl_->io);
  const auto flags = tcp::resolver::passive | tcp::resolver::numeric_service;
  auto endpoints = resolver.resolve(host, std::to_string(port), flags, ec);
  if (ec || endpoints.empty())
    fail(ErrorCode::kRuntime, where, "cannot listen there (not an address of this machine: {})", ec.message());
  tcp::acceptor& a = impl_->acceptor;
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(tcp::acceptor::reuse_address(true), ec);  // restart past TIME_WAIT; no SO_REUSEPORT
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(kListenBacklog, ec);
  if (ec) {
    boost::system::error_code ignored;
    a.close(ignored);
    fail(ErrorCode::kRuntime, where, "cannot listen there (in use, or not a local address: {})", ec.message());
  }
  return a.local_endpoint().port();
}

void HttpServer::run(int io_threads) {
  asio::post(impl_->acceptor.get_executor(), [impl = impl_.get()] {
    bool stopped;
    {
      std::lock_guard lock(impl->mutex);
      stopped = impl->stopped;
    }
    if (!stopped && impl->acceptor.is_open()) impl->accept();
  });
  std::vector<std::thread> threads;
  for (int i = 1; i < io_threads; ++i) threads.emplace_back([this] { impl_->io.run(); });
  impl_->io.run();
  for (auto& t : threads) t.join();
}

void HttpServer::stop() {
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopped) return;
    impl_->stopped = true;
  }
  asio::post(impl_->acceptor.get_executor(), [impl = impl_.get()] { impl->stop_all(); });
}

std::size_t HttpServer::open_connections() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->open.size();
}

}  // namespace ogai::serve::http
