// Exchange: the handle through which a route answers one HTTP request, from any thread and at any
// time, without holding a thread while it waits (a generation's tokens arrive on a worker thread;
// the route answers from there or from its own pool). Exactly one answer per request: either
// respond() once, or begin_stream(), write() any number of times, then finish(). Writes go out in
// the order they were made; the connection reads its next (pipelined) request only after the
// answer is complete. An Exchange dropped without an answer answers 500, so no request is left
// hanging. Thread-safe; every call returns at once (the I/O happens on the connection's strand).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "serve/http/message.h"

namespace ogai::serve::http {

class Connection;

// An error the transport answers itself (malformed request, body too large, too many
// connections); the server turns it into its error body (Hooks::failure_response).
struct Failure {
  int status = 400;
  std::string code;      // machine-readable reason, "" for none
  std::string message;   // says what was wrong and what is accepted
  std::string path;      // the request's path when its header was read, else ""
};

class Exchange;

// The signal that a request's client went away before its answer ended (a reset, a close the
// connection detected while the request waited, a failed write). Shared by the connection, which
// fires it, and the Exchange, through which a route listens. Thread-safe.
class ClientGone {
 public:
  // Runs `listener` once when fired (at once, on this thread, if it already was). One listener;
  // it must not block.
  void listen(std::function<void()> listener);
  void fire();
  bool fired() const;

 private:
  mutable std::mutex mutex_;
  bool fired_ = false;
  std::function<void()> listener_;
};

// What the transport calls. `handle` runs on an I/O thread and must not block: a route that
// waits hands the Exchange to another thread. `answered` runs once per answered request (after
// its last byte was written, or the write failed), on an I/O thread.
struct Hooks {
  std::function<void(std::shared_ptr<Exchange>)> handle;
  std::function<Response(const Failure&)> failure_response;
  std::function<void(const std::string& path, int status)> answered;
  // Header fields every answer carries (e.g. the replica id); may be empty. Called per answer.
  std::function<const std::vector<Field>&()> common_fields;
};

class Exchange {
 public:
  // Made by the transport. `keep_running` keeps its I/O threads running while the Exchange lives
  // (a route may hold it with no I/O pending), so no Exchange outlives the transport.
  // `id` tells the connection which of its requests this answers (a late call is ignored).
  Exchange(std::shared_ptr<Connection> connection, std::uint64_t id, Request request,
           std::shared_ptr<void> keep_running, std::shared_ptr<ClientGone> gone);
  ~Exchange();  // 500 if it was never answered
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  const Request& request() const { return request_; }

  // What the server attaches to a request before answering it (serve/ops/request_gate.h): its id
  // for logs, header fields added to the head of its answer (whole or streamed), and `on_done`,
  // run once when the Exchange is gone with the status answered (500 if none was) and the body
  // bytes handed over. Call before respond() / begin_stream(), from the thread that routes it.
  struct Annotations {
    std::string request_id;
    std::vector<Field> fields;
    std::function<void(int status, std::size_t body_bytes)> on_done;
  };
  void annotate(Annotations annotations) { annotations_ = std::move(annotations); }
  void add_field(Field field) { annotations_.fields.push_back(std::move(field)); }
  const std::string& request_id() const { return annotations_.request_id; }
  // Keeps `value` alive until the Exchange is gone (after on_done ran): e.g. the router's hold on
  // the model that answers it. Call before handing the Exchange on, from the thread holding it.
  void hold(std::shared_ptr<void> value) { held_.push_back(std::move(value)); }

  // The whole answer (Content-Length framing).
  void respond(Response response);
  // The status and header fields of a streamed answer (chunked framing; for an HTTP/1.0 client
  // the body runs to the connection's end instead).
  void begin_stream(Response head);
  // One piece of a streamed body. `done(true)` once it was written, `done(false)` when the
  // client is gone or too slow (write_timeout); then later writes fail too. `done` runs on an
  // I/O thread and must not block. Ignored if empty.
  void write(std::string data, std::function<void(bool ok)> done);
  // Ends a streamed answer.
  void finish();

  // The client went away before the answer ended: `gone` runs once (on an I/O thread, or at once
  // on this one if it already has), so the route can drop the request's work (a queued or running
  // generation, a grammar being compiled). Must not block.
  void on_client_gone(std::function<void()> gone) { gone_->listen(std::move(gone)); }
  bool client_gone() const { return gone_->fired(); }

 private:
  std::shared_ptr<void> keep_running_;  // first: released last, after the connection
  std::shared_ptr<Connection> connection_;
  std::uint64_t id_;
  Request request_;
  std::shared_ptr<ClientGone> gone_;
  // The caller's own sequence of calls (one thread at a time, ordered by the caller).
  bool answered_ = false;   // respond() or begin_stream() was called
  bool streaming_ = false;  // begin_stream() was called
  bool finished_ = false;   // finish() was called
  Annotations annotations_;
  int status_ = 500;            // the answer's status once answered
  std::size_t body_bytes_ = 0;  // body bytes handed to respond() / write()
  std::vector<std::shared_ptr<void>> held_;  // last: released first, after the destructor's on_done
};

}  // namespace ogai::serve::http
