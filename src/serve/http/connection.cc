#include "serve/http/connection.h"

#include <fmt/format.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <limits>

#include "serve/http/arrival.h"

namespace ogai::serve::http {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using beast::error_code;

namespace {

constexpr std::size_t kReadChunk = 16 << 10;
constexpr std::chrono::milliseconds kStoppingLinger{200};  // at shutdown, lingering is cut short
constexpr std::chrono::seconds kKeepAliveSlack{2};         // the Keep-Alive timeout announced is this much shorter

// A parse error of the request itself (answered 400), as opposed to the client going away.
bool is_malformed(const error_code& ec) {
  return ec.category() == make_error_code(bhttp::error::bad_target).category() && ec != bhttp::error::end_of_stream &&
         ec != bhttp::error::partial_message;
}

Failure too_large(bool form, std::size_t limit) {
  if (form)
    return {413, "request_too_large",
            fmt::format("form-urlencoded request bodies are limited to {} bytes; send the JSON body with "
                        "Content-Type: application/json",
                        limit),
            ""};
  return {413, "request_too_large", fmt::format("the request body is larger than the limit of {} bytes", limit), ""};
}

std::string_view sv(beast::string_view s) { return {s.data(), s.size()}; }

bool iequal(std::string_view a, std::string_view b) {
  return beast::iequals({a.data(), a.size()}, {b.data(), b.size()});
}

// A Host field value: a host name, IPv4 or [IPv6] literal with an optional port, or empty.
bool valid_host(std::string_view host) {
  constexpr std::string_view kAllowed = "-._~!$&'()*+,;=:%[]";
  return std::ranges::all_of(host, [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           kAllowed.find(c) != std::string_view::npos;
  });
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

constexpr const char* kProbe = "HTTP/1.1 100 Continue\r\n\r\n";

// How long a reset takes to come back: twice the smoothed round trip, within [5 ms, 500 ms].
std::chrono::microseconds reset_wait(int fd) {
  tcp_info info{};
  socklen_t size = sizeof info;
  std::int64_t rtt = 0;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) == 0) rtt = info.tcpi_rtt;
  return std::chrono::microseconds(std::clamp<std::int64_t>(2 * rtt + 2000, 5000, 500000));
}

}  // namespace

Connection::Connection(asio::io_context& io, asio::ip::tcp::socket socket, const Limits& limits, const Hooks& hooks,
                       std::function<void()> closed)
    : io_(io),
      stream_(std::move(socket)),
      buffer_(limits.max_header_bytes + 2 * kReadChunk),
      limits_(limits),
      hooks_(hooks),
      closed_(std::move(closed)),
      probe_timer_(stream_.get_executor()),
      deadline_(stream_.get_executor()) {
  error_code ec;
  auto peer = stream_.socket().remote_endpoint(ec);
  if (!ec) {
    remote_port_ = peer.port();
    remote_address_ = peer.address().to_string();
  }
}

template <class F>
void Connection::post(F&& f) {
  asio::post(stream_.get_executor(), [self = shared_from_this(), f = std::forward<F>(f)]() mutable { f(); });
}

void Connection::start() {
  post([this] { read_next(); });
}

void Connection::start_refused(Failure failure) {
  post([this, failure = std::move(failure)]() mutable { refuse(std::move(failure)); });
}

bool Connection::evict() {
  if (!header_pending_ || evicting_.exchange(true)) return false;
  post([this] {
    const std::string_view read(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    const bool waiting = state_ == State::kWaiting || state_ == State::kHeader;
    if (waiting && !peek_arrival(stream_.socket().native_handle(), limits_, read).whole_header) return close();
    evicting_ = false;  // its whole header arrived meanwhile (read or not yet): kept, evictable again once idle
  });
  return true;
}

void Connection::stop() {
  post([this] {
    stopping_ = true;
    if (state_ == State::kWaiting)
      close();
    else if (state_ == State::kHeader || state_ == State::kBody)
      cut_short(shutting_down_failure());
    else if (state_ == State::kLingering)
      stream_.expires_after(std::chrono::milliseconds(0));
  });
}

// Reading ----------------------------------------------------------------------------------------

void Connection::read_next() {
  if (stopping_ || state_ == State::kClosed) return close();
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(limits_.max_header_bytes));
  // The real limit is set in refuse_head() once the header says which applies. (Not boost::none:
  // Beast 1.74 compares a Content-Length against a disabled limit as exceeding it.)
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  path_.clear();
  gone_.reset();
  header_pending_ = true;
  in_exchange_ = false;
  status_ = 0;
  head_only_ = chunked_ = failed_ = form_ = false;
  state_ = State::kWaiting;
  if (buffer_.size() > 0) return on_first_bytes({}, 0);  // a pipelined request is already here
  if (served_ == 0) {
    // A new connection's client may be slow to send its first request (its machine busy): it gets
    // the longer of the idle and header deadlines, then a 408 it can read rather than a socket
    // closed under its request.
    stream_.expires_never();
    const bool header = limits_.header_timeout > limits_.idle_timeout;
    answer_timeout(std::max(limits_.idle_timeout, limits_.header_timeout),
                   "no request arrived within {} s of the connection's opening",
                   header ? "--header-timeout" : "--idle-timeout");
  } else {
    stream_.expires_after(limits_.idle_timeout);  // keep-alive: announced in the Keep-Alive field
  }
  stream_.async_read_some(buffer_.prepare(kReadChunk),
                          [self = shared_from_this()](error_code ec, std::size_t n) { self->on_first_bytes(ec, n); });
}

// Answers 408 (then lingers) if the request is still being waited for when `deadline` passes.
void Connection::answer_timeout(std::chrono::milliseconds deadline, const char* what, const char* flag) {
  const State waiting = state_;
  deadline_.expires_after(deadline);
  deadline_.async_wait([this, self = shared_from_this(), waiting, deadline, what, flag](error_code ec) {
    if (ec || state_ != waiting) return;
    const auto seconds = std::chrono::duration<double>(deadline).count();
    cut_short({408, "request_timeout", fmt::format(fmt::runtime(what), seconds) + " (" + flag + ")", ""});
  });
}

void Connection::on_first_bytes(error_code ec, std::size_t n) {
  if (state_ != State::kWaiting) return;  // closed, or answered 408 (answer_timeout) meanwhile
  deadline_.cancel();
  if (ec) return close();  // keep-alive idle timeout, end of stream, reset
  buffer_.commit(n);
  state_ = State::kHeader;
  stream_.expires_after(limits_.header_timeout);  // the whole header, however slowly it trickles
  bhttp::async_read_header(stream_, buffer_, *parser_,
                           [self = shared_from_this()](error_code ec, std::size_t) { self->on_header(ec); });
}

void Connection::on_header(error_code ec) {
  if (state_ != State::kHeader) return;  // closed, or answered early (cut_short) meanwhile
  if (ec == bhttp::error::header_limit || ec == bhttp::error::buffer_overflow) {
    const std::string why =
        fmt::format("the request header is larger than the limit of {} bytes", limits_.max_header_bytes);
    return refuse({431, "request_header_too_large", why, ""});
  }
  if (ec && is_malformed(ec)) return refuse({400, "", "malformed HTTP request: " + ec.message(), ""});
  if (ec) return close();  // header deadline, or the client went away mid-header
  const auto& req = parser_->get();
  header_pending_ = false;
  path_ = std::string(route_path({req.target().data(), req.target().size()}));
  keep_alive_ = req.keep_alive();
  version_ = static_cast<int>(req.version());
  head_only_ = req.method() == bhttp::verb::head;
  if (refuse_head()) return;
  const auto expect = req[bhttp::field::expect];
  asked_continue_ = beast::iequals(expect, "100-continue");
  if (!parser_->is_done() && version_ >= 11 && beast::iequals(expect, "100-continue")) {
    auto interim = std::make_shared<std::string>("HTTP/1.1 100 Continue\r\n\r\n");
    stream_.expires_after(limits_.write_timeout);
    auto then = [self = shared_from_this(), interim](error_code ec, std::size_t) {
      if (ec) return self->close();
      self->read_body();
    };
    asio::async_write(stream_, asio::buffer(*interim), std::move(then));
    return;
  }
  read_body();
}

// RFC 9112's MUSTs on the header (sections 3.2, 6.1, 7) and RFC 9110's on codings (8.4, 15.5.16).
std::optional<Failure> Connection::head_failure() const {
  const auto& req = parser_->get();
  const std::size_t hosts = req.count(bhttp::field::host);
  if (hosts > 1) return Failure{400, "", "malformed HTTP request: more than one Host header field", ""};
  if (hosts == 0 && version_ >= 11)
    return Failure{400, "", "malformed HTTP request: an HTTP/1.1 request needs a Host header field", ""};
  if (hosts == 1 && !valid_host(sv(req[bhttp::field::host])))
    return Failure{400, "", "malformed HTTP request: the Host header field is not a host[:port]", ""};
  if (req.count(bhttp::field::authorization) > 1)
    return Failure{400, "", "malformed HTTP request: more than one Authorization header field", ""};
  const std::size_t codings = req.count(bhttp::field::transfer_encoding);
  if (codings > 0 && !parser_->chunked())
    return Failure{400, "", "malformed HTTP request: a Transfer-Encoding other than chunked is not accepted", ""};
  if (codings > 1 || (codings == 1 && !iequal(trimmed(sv(req[bhttp::field::transfer_encoding])), "chunked")))
    return Failure{501, "not_implemented",
                   "the request's Transfer-Encoding applies a coding other than chunked; only chunked is implemented",
                   ""};
  const auto [first, last] = req.equal_range(bhttp::field::content_encoding);
  for (auto it = first; it != last; ++it)
    if (!iequal(trimmed(sv(it->value())), "identity"))
      return Failure{415, "unsupported_media_type",
                     "the request body has a Content-Encoding the server does not decode (only identity); send it "
                     "uncompressed",
                     ""};
  return std::nullopt;
}

bool Connection::refuse_head() {
  const auto& req = parser_->get();
  if (probe_only_ && std::ranges::find(limits_.probe_paths, path_) == limits_.probe_paths.end()) {
    refuse({503, "too_many_connections",
            fmt::format("the server has {} connections open, its limit; retry later", limits_.max_connections), ""});
    return true;
  }
  if (probe_only_) keep_alive_ = false;  // a reserve place serves one probe
  if (auto failure = head_failure()) {
    refuse(std::move(*failure));
    return true;
  }
  const auto type = req[bhttp::field::content_type];
  form_ = type.starts_with("application/x-www-form-urlencoded");
  const std::size_t limit = form_ ? limits_.max_form_body_bytes : limits_.max_body_bytes;
  if (auto length = parser_->content_length(); length && *length > limit) {  // refused before a byte of it is read
    refuse(too_large(form_, limit));
    return true;
  }
  parser_->body_limit(limit);  // chunked bodies: counted as they arrive
  return false;
}

void Connection::read_body() {
  if (parser_->is_done()) return dispatch();
  state_ = State::kBody;
  // The body's deadline is this timer's, not the stream's (which would close the socket): a body
  // shorter than its Content-Length is answered 408 (RFC 9110 15.5.9).
  stream_.expires_never();
  answer_timeout(limits_.body_timeout, "the request body did not arrive whole within {} s", "--body-timeout");
  bhttp::async_read(stream_, buffer_, *parser_,
                    [self = shared_from_this()](error_code ec, std::size_t) { self->on_body(ec); });
}

void Connection::on_body(error_code ec) {
  deadline_.cancel();
  if (state_ != State::kBody) return;  // closed, or answered early (cut_short) meanwhile
  if (ec == bhttp::error::body_limit)
    return refuse(too_large(form_, form_ ? limits_.max_form_body_bytes : limits_.max_body_bytes));
  if (ec && is_malformed(ec)) return refuse({400, "", "malformed HTTP request: " + ec.message(), ""});
  if (ec) return close();
  dispatch();
}

void Connection::dispatch() {
  state_ = State::kAnswering;
  in_exchange_ = true;
  stream_.expires_never();
  auto message = parser_->release();
  Request r;
  r.method = std::string(message.method_string());
  r.target = std::string(message.target());
  r.path = path_;
  for (const auto& f : message) r.fields.emplace_back(std::string(f.name_string()), std::string(f.value()));
  r.body = std::move(message.body());
  r.version = static_cast<int>(message.version());
  r.remote_address = remote_address_;
  r.remote_port = remote_port_;
  // The route may hold the Exchange with no I/O pending: it keeps the I/O threads running.
  auto keep_running = std::make_shared<asio::executor_work_guard<asio::io_context::executor_type>>(io_.get_executor());
  gone_ = std::make_shared<ClientGone>();
  auto exchange =
      std::make_shared<Exchange>(shared_from_this(), ++exchange_id_, std::move(r), std::move(keep_running), gone_);
  try {
    hooks_.handle(std::move(exchange));
  } catch (...) {  // the hook must not throw; a dropped Exchange answers 500
  }
  watch_peer();
}

// Watching ---------------------------------------------------------------------------------------

// Reads while the request is answered (on the raw socket: no deadline), so that a client that goes
// away is noticed while its request waits. Bytes of a pipelined request are kept for read_next();
// past a header's worth of them the watch stops (the client cannot make the server buffer more).
void Connection::watch_peer() {
  if (watching_ || peer_eof_ || state_ != State::kAnswering || after_watch_ != After::kNone) return;
  if (buffer_.size() + kReadChunk > std::min(buffer_.max_size(), limits_.max_header_bytes + kReadChunk)) return;
  watching_ = true;
  stream_.socket().async_read_some(
      buffer_.prepare(kReadChunk),
      [self = shared_from_this()](error_code ec, std::size_t n) { self->on_watch(ec, n); });
}

void Connection::on_watch(error_code ec, std::size_t n) {
  watching_ = false;
  if (state_ == State::kClosed) return;
  if (!ec) buffer_.commit(n);
  if (after_watch_ != After::kNone) {
    const After next = std::exchange(after_watch_, After::kNone);
    return next == After::kLinger ? linger() : read_next();
  }
  if (state_ != State::kAnswering || ec == asio::error::operation_aborted) return;
  if (!ec) return watch_peer();
  if (ec != asio::error::eof) return close();  // a reset: the client is gone
  peer_eof_ = true;                            // a half-close or a close: the probes tell which
  probe_peer(1);
}

// A socket the client closed answers any data with a reset; one it only half-closed takes it.
// Only before the answer's head: after it, the answer's own writes tell. A client that asked for
// 100 Continue gets interim answers (harmless to it, RFC 9110 15.2): the second, sent once a reset
// had time to come back, fails. Any other client gets no interim answer (issue 37: one it did not
// ask for): the probe is one urgent byte instead, kept out of the stream the client reads
// (without SO_OOBINLINE), and the reset is read from the socket's state.
void Connection::probe_peer(int probe) {
  if (state_ != State::kAnswering || status_ != 0 || after_watch_ != After::kNone) return;
  if (!asked_continue_ || version_ < 11) return probe_urgent();
  auto sent = [this, self = shared_from_this(), probe](bool ok) {
    if (!ok || probe == 2) return;
    probe_timer_.expires_after(reset_wait(stream_.socket().native_handle()));
    probe_timer_.async_wait([this, self](error_code ec) {
      if (!ec) probe_peer(2);
    });
  };
  queue({kProbe, std::move(sent), false});
}

void Connection::probe_urgent() {
  const char byte = 0;
  const int fd = stream_.socket().native_handle();
  if (::send(fd, &byte, 1, MSG_OOB | MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;  // the client's window is full: it is there
    broken_ = true;
    return close();
  }
  probe_timer_.expires_after(reset_wait(fd));
  probe_timer_.async_wait([this, self = shared_from_this()](error_code ec) {
    if (!ec) check_reset();
  });
}

// After an urgent probe: a reset closed the socket (TCP_CLOSE) when the client had closed it.
void Connection::check_reset() {
  if (state_ != State::kAnswering || status_ != 0 || after_watch_ != After::kNone) return;
  tcp_info info{};
  socklen_t size = sizeof info;
  if (getsockopt(stream_.socket().native_handle(), IPPROTO_TCP, TCP_INFO, &info, &size) != 0 ||
      info.tcpi_state != TCP_CLOSE)
    return;
  broken_ = true;
  close();
}

void Connection::then(After next) {
  probe_timer_.cancel();
  if (!watching_) return next == After::kLinger ? linger() : read_next();
  after_watch_ = next;
  state_ = State::kWaiting;  // no late write of the answered request is queued meanwhile
  error_code ignored;
  stream_.socket().cancel(ignored);
}

void Connection::refuse(Failure failure) {
  failure.path = path_;
  Response response = hooks_.failure_response(failure);
  keep_alive_ = false;
  failed_ = true;
  state_ = State::kAnswering;
  ++exchange_id_;  // no Exchange answers this one
  stream_.expires_never();
  do_respond(std::move(response));
}

// A request whose header or body is still arriving answered now (its read is cancelled first, so
// that the linger's read that follows the answer is the only one).
void Connection::cut_short(Failure failure) {
  error_code ignored;
  stream_.socket().cancel(ignored);
  refuse(std::move(failure));
}

Failure Connection::shutting_down_failure() const {
  return {503, "shutting_down", "the server is stopping; retry on another replica", ""};
}

// Writing ----------------------------------------------------------------------------------------

void Connection::respond(std::uint64_t id, Response response) {
  post([this, id, response = std::move(response)]() mutable {
    if (answering(id)) do_respond(std::move(response));
  });
}

void Connection::begin_stream(std::uint64_t id, Response head) {
  post([this, id, head = std::move(head)]() mutable {
    if (answering(id)) do_begin_stream(std::move(head));
  });
}

void Connection::write(std::uint64_t id, std::string data, std::function<void(bool)> done) {
  post([this, id, data = std::move(data), done = std::move(done)]() mutable {
    if (!answering(id) || status_ == 0 || data.empty()) {
      if (done) done(answering(id) && !broken_);
      return;
    }
    std::string bytes = chunked_ ? fmt::format("{:x}\r\n", data.size()) + data + "\r\n" : std::move(data);
    queue({std::move(bytes), std::move(done), false});
  });
}

void Connection::finish(std::uint64_t id) {
  post([this, id] {
    if (answering(id) && status_ != 0) queue({chunked_ ? "0\r\n\r\n" : "", {}, true});
  });
}

void Connection::abandon(std::uint64_t id) {
  post([this, id] {
    if (answering(id) && status_ == 0)
      do_respond(hooks_.failure_response({500, "", "internal error: the request was not answered", path_}));
  });
}

void Connection::do_respond(Response response) {
  if (state_ != State::kAnswering || status_ != 0) return;  // one answer per request
  status_ = response.status;
  const std::string length = std::to_string(response.body.size());
  std::string bytes = head(response.status, response.content_type, response.fields, &length);
  if (!head_only_) bytes += response.body;
  queue({std::move(bytes), {}, true});
}

void Connection::do_begin_stream(Response response) {
  if (state_ != State::kAnswering || status_ != 0) return;
  status_ = response.status;
  chunked_ = version_ >= 11;
  if (!chunked_) keep_alive_ = false;  // HTTP/1.0: the body ends with the connection
  queue({head(response.status, response.content_type, response.fields, nullptr), {}, false});
}

std::string Connection::head(int status, const std::string& content_type, const std::vector<Field>& fields,
                             const std::string* length) {
  if (stopping_ || served_ + 1 >= limits_.max_requests_per_connection) keep_alive_ = false;
  std::string h = fmt::format("HTTP/1.1 {} {}\r\n", status, reason_phrase(status));
  if (!content_type.empty()) h += "Content-Type: " + content_type + "\r\n";
  for (const auto& [name, value] : fields) h += name + ": " + value + "\r\n";
  if (hooks_.common_fields)
    for (const auto& [name, value] : hooks_.common_fields()) h += name + ": " + value + "\r\n";
  if (length)
    h += "Content-Length: " + *length + "\r\n";
  else if (chunked_)
    h += "Transfer-Encoding: chunked\r\n";
  if (keep_alive_) {
    // The idle timeout less kKeepAliveSlack as a hint, so that a client does not reuse a connection
    // the server is closing, even when it is slow to send on it (its own machine busy).
    const auto idle = std::chrono::duration_cast<std::chrono::seconds>(limits_.idle_timeout - kKeepAliveSlack).count();
    h += fmt::format("Connection: keep-alive\r\nKeep-Alive: timeout={}, max={}\r\n", std::max<std::int64_t>(idle, 1),
                     limits_.max_requests_per_connection - served_ - 1);
  } else {
    h += "Connection: close\r\n";
  }
  return h + "\r\n";
}

void Connection::queue(Out out) {
  out_.push_back(std::move(out));
  if (!writing_) write_next();
}

void Connection::write_next() {
  if (out_.empty() || state_ != State::kAnswering) return;
  writing_ = true;
  stream_.expires_after(limits_.write_timeout);
  asio::async_write(stream_, asio::buffer(out_.front().bytes),
                    [self = shared_from_this()](error_code ec, std::size_t) { self->on_written(ec); });
}

void Connection::on_written(error_code ec) {
  writing_ = false;
  if (out_.empty()) return;
  Out sent = std::move(out_.front());
  out_.pop_front();
  if (state_ == State::kClosed) {  // closed while this piece was being written (close() kept it)
    if (sent.done) sent.done(false);
    return;
  }
  if (ec) {  // the client is gone (or too slow): every queued piece fails, the answer ends here
    broken_ = true;
    if (sent.done) sent.done(false);
    for (Out& o : out_)
      if (o.done) o.done(false);
    out_.clear();
    if (status_ != 0) answered();  // else only a probe was written: nothing was answered
    return close();
  }
  if (sent.done) sent.done(true);
  if (sent.last) return answered();
  write_next();
}

// The answer is out (or failed): count it, then read the next request or close.
void Connection::answered() {
  if (state_ != State::kAnswering) return;
  ++served_;
  if (hooks_.answered) hooks_.answered(path_, status_);
  if (broken_) return;
  then(failed_ || !keep_alive_ || stopping_ ? After::kLinger : After::kRead);
}

// Half-closes, then discards what the client still sends until it closes too (or the linger time
// ends), so that unread request bytes do not make the kernel reset the answer away.
void Connection::linger() {
  state_ = State::kLingering;
  error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  stream_.expires_after(stopping_ ? std::min(limits_.linger, kStoppingLinger) : limits_.linger);
  drain_.resize(kReadChunk);
  struct Drain {
    std::shared_ptr<Connection> self;
    void operator()(error_code ec, std::size_t) const {
      if (ec || self->state_ != State::kLingering) return self->close();
      self->stream_.async_read_some(asio::buffer(self->drain_), *this);
    }
  };
  stream_.async_read_some(asio::buffer(drain_), Drain{shared_from_this()});
}

void Connection::close() {
  if (state_ == State::kClosed) return;
  const bool unanswered = state_ == State::kAnswering;
  state_ = State::kClosed;
  probe_timer_.cancel();
  deadline_.cancel();
  if (unanswered && gone_) gone_->fire();  // the answer did not end: the route may drop its work
  error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.close();
  // The piece being written stays until its completion runs (the write reads from its bytes).
  const std::size_t kept = writing_ && !out_.empty() ? 1 : 0;
  std::deque<Out> dropped(std::make_move_iterator(out_.begin() + kept), std::make_move_iterator(out_.end()));
  out_.erase(out_.begin() + kept, out_.end());
  for (Out& o : dropped)
    if (o.done) o.done(false);
  if (closed_) std::exchange(closed_, nullptr)();
}

}  // namespace ogai::serve::http
