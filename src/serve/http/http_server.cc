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
#include "serve/http/arrival.h"
#include "serve/http/connection.h"

namespace ogai::serve::http {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

constexpr int kListenBacklog = 4096;      // connections waiting to be accepted (the kernel caps it at somaxconn)
constexpr std::size_t kMaxRefusing = 64;  // connections being told "too many" at once; beyond, closed at once
// Connections with no place and no whole header yet, waiting for it (a socket and a timer each).
constexpr std::size_t kMaxWaiting = 256;
constexpr std::chrono::milliseconds kAcceptRetry{20};  // after an accept error (out of descriptors)
// A new connection's time to send its header: it is not evicted that young by one that has not sent
// a whole header either, and one that finds every place taken waits that long for its header.
constexpr std::chrono::milliseconds kEvictionGrace{200};

}  // namespace

struct HttpServer::Impl {
  Impl(Limits l, Hooks h)
      : limits(l), hooks(std::move(h)), acceptor(asio::make_strand(io)), retry(acceptor.get_executor()) {}

  void accept();
  void on_accept(boost::system::error_code ec, tcp::socket socket);
  // kLook: no room; what the connection sent decides (place_for again with its Arrival).
  // kWait: no room and no whole header yet: wait for it (wait_for_header), then decide.
  enum class Place { kAdmit, kReserve, kLook, kWait, kRefuse };
  void place(tcp::socket socket, const std::string& peer, bool waited);
  Place place_for(const std::string& peer, const Arrival* arrival, bool waited);  // mutex held
  bool evict_oldest(const std::string* peer, bool young_too);                     // mutex held
  std::size_t per_peer() const;
  std::size_t waiting_from(const std::string& peer) const;  // mutex held
  void admit(tcp::socket socket, const std::string& peer, bool reserve, bool whole);
  void wait_for_header(tcp::socket socket, const std::string& peer);
  void refuse(tcp::socket socket);
  void stop_all();

  const Limits limits;
  const Hooks hooks;
  asio::io_context io;
  tcp::acceptor acceptor;                              // and its handlers run on one strand
  asio::steady_timer retry;                            // on the acceptor's strand
  std::chrono::steady_clock::time_point last_warning;  // of an accept failure (acceptor's strand)

  mutable std::mutex mutex;  // guards the members below (connections close on any I/O thread)
  struct Open {
    std::weak_ptr<Connection> connection;
    std::string peer;
    std::chrono::steady_clock::time_point opened;
    bool whole = false;  // its whole request header had arrived when it was placed
  };
  std::map<std::uint64_t, Open> open;  // by id: the oldest first
  std::size_t reserved = 0;            // open connections in the probe reserve
  std::uint64_t next_id = 0;
  std::size_t refusing = 0;
  struct Waiting {  // a connection in wait_for_header
    Waiting(tcp::socket s, std::string p) : socket(std::move(s)), timer(socket.get_executor()), peer(std::move(p)) {}
    tcp::socket socket;
    asio::steady_timer timer;  // on the socket's strand
    std::string peer;
    std::uint64_t id = 0;
    int pending = 2;  // the wait and the timer: placed again once both have ended
  };
  std::map<std::uint64_t, std::weak_ptr<Waiting>> waiting;  // by id: the longest waiting first
  bool stopped = false;
};

void HttpServer::Impl::accept() {
  acceptor.async_accept(asio::make_strand(io),
                        [this](boost::system::error_code ec, tcp::socket socket) { on_accept(ec, std::move(socket)); });
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
    retry.async_wait([this](boost::system::error_code e) {
      if (!e) accept();
    });
    return;
  }
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);  // a header and its body must not wait for a delayed ACK
  const auto remote = socket.remote_endpoint(ignored);
  const std::string peer = ignored ? std::string() : remote.address().to_string();
  place(std::move(socket), peer, false);
  accept();
}

void HttpServer::Impl::place(tcp::socket socket, const std::string& peer, bool waited) {
  Place where;
  Arrival arrival;
  {
    std::lock_guard lock(mutex);
    where = place_for(peer, nullptr, waited);
  }
  if (where == Place::kLook) {
    arrival = peek_arrival(socket.native_handle(), limits);
    std::lock_guard lock(mutex);
    where = place_for(peer, &arrival, waited);
  }
  switch (where) {
    case Place::kAdmit:
    case Place::kReserve:
      return admit(std::move(socket), peer, where == Place::kReserve, arrival.whole_header);
    case Place::kWait:
      return wait_for_header(std::move(socket), peer);
    default:
      return refuse(std::move(socket));
  }
}

std::size_t HttpServer::Impl::per_peer() const {
  if (limits.max_connections_per_peer > 0) return limits.max_connections_per_peer;
  return std::max<std::size_t>(8, limits.max_connections / 8);
}

// The peer's open connections that are not answering a request: idle, or reading one. A reverse
// proxy is one peer whose streams would otherwise fill its cap; the requests those carry are
// bounded by admission (--max-concurrent, --queue), not by the connection cap.
std::size_t HttpServer::Impl::waiting_from(const std::string& peer) const {
  std::size_t n = 0;
  for (const auto& [id, o] : open) {
    if (o.peer != peer) continue;
    auto c = o.connection.lock();
    if (!c || !c->in_exchange()) ++n;
  }
  return n;
}

// A peer within its cap and the server within max_connections: admitted. Else what the new
// connection sent decides: the oldest connection still waiting for its header (of that peer when
// the peer is at its cap) makes room, whatever its age when the new one's whole request has arrived
// (a probe, or a client that sends at once, is not refused for the slow ones that reconnect
// fastest); a whole probe request takes a reserve place; a connection with no whole header yet
// waits kEvictionGrace for it, once; the rest are refused.
HttpServer::Impl::Place HttpServer::Impl::place_for(const std::string& peer, const Arrival* arrival, bool waited) {
  const std::size_t total = open.size() - reserved;
  const bool peer_full = waiting_from(peer) >= per_peer();
  const bool server_full = total >= limits.max_connections;
  if (!peer_full && !server_full) return Place::kAdmit;
  if (!arrival) return Place::kLook;
  if (evict_oldest(peer_full ? &peer : nullptr, arrival->whole_header)) return Place::kAdmit;
  if (arrival->whole_header)
    return arrival->probe && reserved < limits.probe_reserve ? Place::kReserve : Place::kRefuse;
  return waited ? Place::kRefuse : Place::kWait;
}

// Oldest first. A connection younger than kEvictionGrace is evicted only for a new one whose whole
// request has arrived (`young_too`), and never when its own whole header had arrived when it was
// placed: a client that connects and sends its request at once gets that long to be read.
bool HttpServer::Impl::evict_oldest(const std::string* peer, bool young_too) {
  const auto young = std::chrono::steady_clock::now() - kEvictionGrace;
  for (auto& [id, o] : open) {
    const bool is_young = o.opened > young;
    if (is_young && !young_too) break;  // the rest are younger still
    if ((peer && o.peer != *peer) || (is_young && o.whole)) continue;
    auto c = o.connection.lock();
    if (c && c->header_pending() && c->evict()) return true;
  }
  return false;
}

void HttpServer::Impl::admit(tcp::socket socket, const std::string& peer, bool reserve, bool whole) {
  std::lock_guard lock(mutex);
  if (stopped) return;  // accepted as stop() came: closed without an answer
  const std::uint64_t id = next_id++;
  auto c = std::make_shared<Connection>(io, std::move(socket), limits, hooks, [this, id, peer, reserve] {
    std::lock_guard l(mutex);
    open.erase(id);
    if (reserve) --reserved;
  });
  if (reserve) {
    ++reserved;
    c->set_probe_only();
  }
  open.emplace(id, Open{c, peer, std::chrono::steady_clock::now(), whole});
  c->start();
}

// No place and no whole header yet: the connection waits (holding no place) until it sends
// something or kEvictionGrace passes, then is placed again. At kMaxWaiting, the one that has waited
// longest is placed at once (refused unless its header came), so a flood of new connections cannot
// keep a probe out by filling the wait.
void HttpServer::Impl::wait_for_header(tcp::socket socket, const std::string& peer) {
  auto w = std::make_shared<Waiting>(std::move(socket), peer);
  std::shared_ptr<Waiting> longest;
  {
    std::lock_guard lock(mutex);
    if (stopped) return;  // the socket closes here
    if (waiting.size() >= kMaxWaiting) {
      longest = waiting.begin()->second.lock();
      waiting.erase(waiting.begin());
    }
    w->id = next_id++;
    waiting.emplace(w->id, w);
  }
  if (longest)
    asio::post(longest->socket.get_executor(), [longest] {
      boost::system::error_code ignored;
      longest->timer.cancel();
      longest->socket.cancel(ignored);
    });
  auto ended = [this, w] {
    if (--w->pending > 0) return;
    {
      std::lock_guard lock(mutex);
      waiting.erase(w->id);
    }
    place(std::move(w->socket), w->peer, true);
  };
  asio::post(w->socket.get_executor(), [w, ended] {  // on its strand, before any cancel of it
    w->timer.expires_after(kEvictionGrace);
    w->socket.async_wait(tcp::socket::wait_read, [w, ended](boost::system::error_code) {
      w->timer.cancel();
      ended();
    });
    w->timer.async_wait([w, ended](boost::system::error_code ec) {
      boost::system::error_code ignored;
      if (!ec) w->socket.cancel(ignored);
      ended();
    });
  });
}

void HttpServer::Impl::refuse(tcp::socket socket) {
  std::lock_guard lock(mutex);
  if (stopped || refusing >= kMaxRefusing) return;  // the socket closes here
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
