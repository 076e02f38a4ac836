#include "serve/http/http_server.h"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <algorithm>
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
constexpr std::chrono::milliseconds kEvictionGrace{200};  // a new connection's time to send its header

}  // namespace

struct HttpServer::Impl {
  Impl(Limits l, Hooks h)
      : limits(l), hooks(std::move(h)), acceptor(asio::make_strand(io)), retry(acceptor.get_executor()) {}

  void accept();
  void on_accept(boost::system::error_code ec, tcp::socket socket);
  enum class Place { kAdmit, kReserve, kRefuse };
  Place place_for(const std::string& peer);  // mutex held
  bool evict_oldest(const std::string* peer);  // mutex held
  std::size_t per_peer() const;
  void admit(tcp::socket socket, const std::string& peer, bool reserve);
  void refuse(tcp::socket socket);
  void stop_all();

  const Limits limits;
  const Hooks hooks;
  asio::io_context io;
  tcp::acceptor acceptor;    // and its handlers run on one strand
  asio::steady_timer retry;  // on the acceptor's strand
  std::chrono::steady_clock::time_point last_warning;  // of an accept failure (acceptor's strand)

  mutable std::mutex mutex;  // guards the members below (connections close on any I/O thread)
  struct Open {
    std::weak_ptr<Connection> connection;
    std::string peer;
    std::chrono::steady_clock::time_point opened;
  };
  std::map<std::uint64_t, Open> open;  // by id: the oldest first
  std::map<std::string, std::size_t> peers;  // open connections per client address
  std::size_t reserved = 0;  // open connections in the probe reserve
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
  const auto remote = socket.remote_endpoint(ignored);
  const std::string peer = ignored ? std::string() : remote.address().to_string();
  Place place;
  {
    std::lock_guard lock(mutex);
    place = place_for(peer);
  }
  if (place == Place::kRefuse) refuse(std::move(socket));
  else admit(std::move(socket), peer, place == Place::kReserve);
  accept();
}

std::size_t HttpServer::Impl::per_peer() const {
  if (limits.max_connections_per_peer > 0) return limits.max_connections_per_peer;
  return std::max<std::size_t>(8, limits.max_connections / 8);
}

// A peer within its cap and the server within max_connections: admitted. Else the oldest
// connection still waiting for its header (of that peer when the peer is at its cap) makes room;
// else a probe-only reserve place; else refused.
HttpServer::Impl::Place HttpServer::Impl::place_for(const std::string& peer) {
  const std::size_t total = open.size() - reserved;
  const auto it = peers.find(peer);
  const bool peer_full = it != peers.end() && it->second >= per_peer();
  const bool server_full = total >= limits.max_connections;
  if (!peer_full && !server_full) return Place::kAdmit;
  if (evict_oldest(peer_full ? &peer : nullptr)) return Place::kAdmit;
  if (reserved < limits.probe_reserve) return Place::kReserve;
  return Place::kRefuse;
}

// A connection younger than kEvictionGrace is not evicted: a client that connects and sends its
// request at once (a probe) gets that long to do so, however fast others reconnect.
bool HttpServer::Impl::evict_oldest(const std::string* peer) {
  const auto young = std::chrono::steady_clock::now() - kEvictionGrace;
  for (auto& [id, o] : open) {
    if (o.opened > young) break;  // the rest are younger still
    if (peer && o.peer != *peer) continue;
    auto c = o.connection.lock();
    if (c && c->header_pending() && c->evict()) return true;
  }
  return false;
}

void HttpServer::Impl::admit(tcp::socket socket, const std::string& peer, bool reserve) {
  std::lock_guard lock(mutex);
  if (stopped) return;  // accepted as stop() came: closed without an answer
  const std::uint64_t id = next_id++;
  auto c = std::make_shared<Connection>(io, std::move(socket), limits, hooks, [this, id, peer, reserve] {
    std::lock_guard l(mutex);
    open.erase(id);
    if (reserve) --reserved;
    if (auto p = peers.find(peer); p != peers.end() && --p->second == 0) peers.erase(p);
  });
  if (reserve) {
    ++reserved;
    c->set_probe_only();
  }
  ++peers[peer];
  open.emplace(id, Open{c, peer, std::chrono::steady_clock::now()});
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
    for (auto& [id, o] : open)
      if (auto c = o.connection.lock()) live.push_back(std::move(c));
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
