// Connection: one accepted TCP connection of the HTTP transport (internal to src/serve/http/).
// It reads one request at a time under the Limits' deadlines and sizes (a next request's first
// byte within idle_timeout, a new connection's within the longer of idle_timeout and
// header_timeout, else 408; its header within header_timeout of that byte, its body within
// body_timeout, else 408; header and body sizes checked as they arrive, an oversized Content-Length refused
// before its body is read), hands it to Hooks::handle as an Exchange, writes the answer, and only
// then reads the next request, so pipelined requests are answered in order and a client that
// half-closed after its request still gets its answer. While a request is answered the socket is
// watched: a reset, or a close told from a half-close by a probe the client cannot mistake for its
// answer (a closed peer resets it), fires the Exchange's ClientGone. The probe is an interim 100
// Continue only for a request that asked for one (Expect: 100-continue); otherwise one byte of
// TCP urgent data, which a reader never sees in its stream. Everything runs on the
// connection's strand; no thread waits for a client. Owned through shared_ptr by its pending operations and its
// Exchange.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "serve/http/exchange.h"
#include "serve/http/limits.h"

namespace ogai::serve::http {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `socket` must use a strand of `io`; `closed` runs (on the strand) once the socket is closed.
  Connection(boost::asio::io_context& io, boost::asio::ip::tcp::socket socket, const Limits& limits, const Hooks& hooks,
             std::function<void()> closed);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void start();
  // Only one request, whose path must be one of Limits::probe_paths (a reserve place).
  void set_probe_only() { probe_only_ = true; }
  // Whether it is still waiting for a whole request header (idle, or reading one): evictable.
  bool header_pending() const { return header_pending_.load(); }
  // Whether a whole request has arrived and is being answered (a reverse proxy's streams).
  bool in_exchange() const { return in_exchange_.load(); }
  // Closes it if it still is header-pending (to make room for a new connection) and its whole
  // header has not arrived meanwhile (read or not: such a request is kept); false if it was
  // already being evicted. Any thread.
  bool evict();
  // Shutdown: closes the connection now unless a request is being answered, in which case it is
  // closed once that answer has been written. Any thread.
  void stop();

  // The Exchange's operations (any thread; each is posted to the strand). `id` names the request
  // answered; a call for another than the one being answered (a late one) is ignored.
  void respond(std::uint64_t id, Response response);
  void begin_stream(std::uint64_t id, Response head);
  void write(std::uint64_t id, std::string data, std::function<void(bool)> done);
  void finish(std::uint64_t id);
  // The route dropped its Exchange without answering: 500.
  void abandon(std::uint64_t id);
  // Answers `failure` without reading a request (too many connections), then closes.
  void start_refused(Failure failure);

 private:
  enum class State { kWaiting, kHeader, kBody, kAnswering, kLingering, kClosed };
  enum class After { kNone, kRead, kLinger };  // what follows an answer once the watch read ended
  struct Out {
    std::string bytes;
    std::function<void(bool)> done;  // may be empty
    bool last = false;               // the answer's end
  };

  void read_next();
  void on_first_bytes(boost::beast::error_code ec, std::size_t n);
  void answer_timeout(std::chrono::milliseconds deadline, const char* what, const char* flag);  // 408 at `deadline`
  void on_header(boost::beast::error_code ec);
  bool refuse_head();  // true when the header alone is answered (413, 400, 415, 501)
  std::optional<Failure> head_failure() const;
  void read_body();
  void on_body(boost::beast::error_code ec);
  void dispatch();
  bool answering(std::uint64_t id) const { return state_ == State::kAnswering && id == exchange_id_; }
  void refuse(Failure failure);     // an early answer, then linger and close
  void cut_short(Failure failure);  // the same while the header or body is still being read
  Failure shutting_down_failure() const;
  // Watching the client while its request is answered (connection.cc, "Watching").
  void watch_peer();
  void on_watch(boost::beast::error_code ec, std::size_t n);
  void probe_peer(int probe);
  void probe_urgent();
  void check_reset();
  void then(After next);  // after the answer: read the next request or linger, once no watch read is pending

  void do_respond(Response response);
  void do_begin_stream(Response head);
  void queue(Out out);
  void write_next();
  void on_written(boost::beast::error_code ec);
  void answered();
  void linger();
  void close();

  std::string head(int status, const std::string& content_type, const std::vector<Field>& fields,
                   const std::string* length);
  template <class F>
  void post(F&& f);

  boost::asio::io_context& io_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  const Limits& limits_;
  const Hooks& hooks_;
  std::function<void()> closed_;
  std::string remote_address_;
  int remote_port_ = 0;

  State state_ = State::kWaiting;
  bool stopping_ = false;
  int served_ = 0;                 // requests answered on this connection
  std::uint64_t exchange_id_ = 0;  // of the request being answered (incremented per request)
  // The request being answered.
  std::string path_;
  int status_ = 0;
  bool head_only_ = false;   // a HEAD request: no body bytes
  bool keep_alive_ = true;   // the connection stays open after this answer
  int version_ = 11;         // the request's HTTP version (10 or 11)
  bool asked_continue_ = false;  // the request carried Expect: 100-continue
  bool chunked_ = false;     // the answer is streamed with chunked framing
  bool failed_ = false;      // an early refusal: close after it
  bool form_ = false;        // the body is form-urlencoded (its own, smaller limit)
  std::vector<char> drain_;  // what a lingering client still sends, discarded
  bool probe_only_ = false;
  std::atomic<bool> header_pending_{true};
  std::atomic<bool> in_exchange_{false};
  std::atomic<bool> evicting_{false};
  std::shared_ptr<ClientGone> gone_;  // of the request being answered
  bool watching_ = false;             // a read watching the client is pending
  bool peer_eof_ = false;             // the client closed its sending side
  After after_watch_ = After::kNone;
  boost::asio::steady_timer probe_timer_;
  // The read deadlines answered 408 rather than closed: a new connection's first byte, and a body.
  boost::asio::steady_timer deadline_;

  std::deque<Out> out_;
  bool writing_ = false;
  bool broken_ = false;  // a write failed: the client is gone
};

}  // namespace ogai::serve::http
