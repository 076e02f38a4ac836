// The HTTP transport (src/serve/http/) with routes of the test's own, over loopback sockets:
// answers from another thread, a late second answer ignored, a dropped Exchange answered 500, a
// streamed write to a client that left reported as failed, a client that does not read cut at
// the write deadline, a slow-header client cut at the header deadline while others are answered,
// and stop() waiting for an answer in progress (idle connections closed at once); the per-peer
// cap counting only connections not answering a request (a reverse proxy's streams).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include "serve/http/http_server.h"

namespace ogai::serve::http {
namespace {

using namespace std::chrono_literals;

// A blocking loopback client socket with a receive timeout.
class Client {
 public:
  explicit Client(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Client() {
    if (fd_ >= 0) close(fd_);
  }
  bool connected() const { return connected_; }
  void half_close() { shutdown(fd_, SHUT_WR); }
  // Closes the socket; `reset`: with a reset (SO_LINGER 0) instead of a FIN.
  void close_now(bool reset) {
    if (reset) {
      linger l{1, 0};
      setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    }
    close(fd_);
    fd_ = -1;
  }
  void send(const std::string& bytes) {
    ASSERT_EQ(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }
  // Everything until the server closes (or the 5 s receive timeout).
  std::string read_all() {
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = recv(fd_, buf, sizeof(buf), 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    return out;
  }
  // Whether the server closed the connection (end of stream, nothing sent) within `ms`.
  bool closed_within(std::chrono::milliseconds ms) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(ms.count())) != 1) return false;
    char byte;
    return recv(fd_, &byte, 1, MSG_DONTWAIT) == 0;
  }
  // Reads until `needle` arrived or the server closed.
  std::string read_until(const std::string& needle) {
    std::string out;
    char buf[4096];
    while (out.find(needle) == std::string::npos) {
      ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }

 private:
  int fd_;
  bool connected_ = false;
};

const std::string kGet = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
std::string get(const std::string& path) { return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"; }

class Transport : public ::testing::Test {
 protected:
  virtual void adjust(Limits&) {}
  void SetUp() override {
    Limits limits;
    limits.header_timeout = 300ms;
    limits.idle_timeout = 2000ms;
    limits.write_timeout = 300ms;
    adjust(limits);
    Hooks hooks;
    hooks.handle = [this](std::shared_ptr<Exchange> e) { handle(std::move(e)); };
    hooks.failure_response = [](const Failure& f) {
      Response r;
      r.status = f.status;
      r.body = "failure: " + f.message;
      return r;
    };
    hooks.answered = [this](const std::string& path, int status) {
      std::lock_guard lock(mutex_);
      answered_.push_back(path + " " + std::to_string(status));
    };
    server_ = std::make_unique<HttpServer>(limits, hooks);
    port_ = server_->bind("127.0.0.1", 0);
    running_ = std::async(std::launch::async, [this] { server_->run(2); });
  }
  void TearDown() override {
    server_->stop();
    EXPECT_EQ(running_.wait_for(5s), std::future_status::ready);
  }

  void handle(std::shared_ptr<Exchange> e) {
    const std::string path = e->request().path;
    if (path == "/drop") return;  // the Exchange dies unanswered
    if (path == "/later") {       // answered from another thread, a little later
      std::thread([e] {
        std::this_thread::sleep_for(50ms);
        Response r;
        r.body = "later";
        e->respond(r);
      }).detach();
      return;
    }
    if (path == "/twice") {  // a second, late answer must not reach the next request
      Response r;
      r.body = "first";
      e->respond(r);
      std::thread([e] {
        std::this_thread::sleep_for(50ms);
        Response late;
        late.body = "late";
        e->respond(late);
        e->write("late chunk", {});
        e->finish();
      }).detach();
      return;
    }
    if (path == "/hold") {
      std::lock_guard lock(mutex_);
      held_ = std::move(e);
      held_ready_.set_value();
      return;
    }
    if (path == "/park") {  // held unanswered, as a proxied stream in progress
      std::lock_guard lock(mutex_);
      parked_.push_back(std::move(e));
      return;
    }
    if (path == "/watch") {  // held unanswered; says when its client is gone
      e->on_client_gone([this] { gone_.set_value(std::chrono::steady_clock::now()); });
      std::lock_guard lock(mutex_);
      held_ = std::move(e);
      held_ready_.set_value();
      return;
    }
    if (path == "/flood") {  // a stream to a client that never reads
      e->begin_stream({200, "text/plain", {}, ""});
      std::thread([this, e] {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < 4000; ++i) {  // bounded: 256 MB at most
          std::promise<bool> written;
          e->write(std::string(64 << 10, 'x'), [&](bool ok) { written.set_value(ok); });
          if (!written.get_future().get()) break;
        }
        flood_ended_.set_value(std::chrono::steady_clock::now() - start);
      }).detach();
      return;
    }
    if (path == "/stream") {
      e->begin_stream({200, "text/plain", {}, ""});
      std::thread([this, e] {
        for (int i = 0; i < 2000; ++i) {  // bounded: 2 s at most
          std::promise<bool> written;
          e->write(std::string(1024, 'x'), [&](bool ok) { written.set_value(ok); });
          if (!written.get_future().get()) {
            stream_failed_.set_value(i);
            return;
          }
          if (i == 0) first_written_.set_value();
          std::this_thread::sleep_for(1ms);
        }
        e->finish();
        stream_failed_.set_value(-1);
      }).detach();
      return;
    }
    Response r;
    r.body = "path " + path;
    e->respond(r);
  }

  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
  std::future<void> running_;
  std::mutex mutex_;
  std::vector<std::string> answered_;
  std::shared_ptr<Exchange> held_;
  std::vector<std::shared_ptr<Exchange>> parked_;
  std::promise<void> held_ready_;
  std::promise<std::chrono::steady_clock::time_point> gone_;
  std::promise<void> first_written_;
  std::promise<int> stream_failed_;
  std::promise<std::chrono::steady_clock::duration> flood_ended_;
};

TEST_F(Transport, AnswersFromAnotherThreadAndKeepsTheConnection) {
  Client c(port_);
  ASSERT_TRUE(c.connected());
  c.send(get("/later") + get("/b?x=1"));
  std::string got = c.read_until("path /b");
  EXPECT_NE(got.find("HTTP/1.1 200 OK"), std::string::npos) << got;
  EXPECT_LT(got.find("later"), got.find("path /b")) << "pipelined answers out of order: " << got;
  EXPECT_NE(got.find("Connection: keep-alive"), std::string::npos) << got;
}

TEST_F(Transport, ALateSecondAnswerDoesNotReachTheNextRequest) {
  Client c(port_);
  c.send(get("/twice") + get("/hold"));  // /hold is unanswered while the late answer is tried
  ASSERT_EQ(held_ready_.get_future().wait_for(5s), std::future_status::ready);
  std::this_thread::sleep_for(150ms);  // the late answer (after 50 ms) has been tried
  {
    std::lock_guard lock(mutex_);
    Response r;
    r.body = "held";
    held_->respond(r);
    held_.reset();
  }
  std::string got = c.read_until("held");
  EXPECT_NE(got.find("first"), std::string::npos) << got;
  EXPECT_EQ(got.find("late"), std::string::npos) << "the late answer went to the next request: " << got;
  EXPECT_TRUE(got.ends_with("\r\n\r\nheld")) << got;
}

TEST_F(Transport, ADroppedExchangeIsAnswered500) {
  Client c(port_);
  c.send(get("/drop"));
  std::string got = c.read_until("not answered");
  EXPECT_EQ(got.rfind("HTTP/1.1 500 Internal Server Error", 0), 0u) << got;
}

TEST_F(Transport, AStreamToAClientThatLeftReportsTheWriteFailed) {
  auto failed = stream_failed_.get_future();
  {
    Client c(port_);
    c.send(get("/stream"));
    ASSERT_EQ(first_written_.get_future().wait_for(5s), std::future_status::ready);
  }  // the client closes with the stream going
  ASSERT_EQ(failed.wait_for(5s), std::future_status::ready) << "the writes never failed";
  EXPECT_GE(failed.get(), 1) << "the stream ran to its end";
}

TEST_F(Transport, AClientThatDoesNotReadIsCutAtTheWriteDeadline) {
  Client c(port_);
  c.send(get("/flood"));  // and never reads
  auto ended = flood_ended_.get_future();
  ASSERT_EQ(ended.wait_for(10s), std::future_status::ready) << "the writes to a client that does not read never failed";
  EXPECT_LT(ended.get(), 8s);
}

TEST_F(Transport, CutsASlowHeaderAtItsDeadlineWhileOthersAreAnswered) {
  Client slow(port_);
  slow.send("GET /a HTTP/1.1\r\nHo");
  const auto start = std::chrono::steady_clock::now();
  Client other(port_);
  other.send("GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_NE(other.read_all().find("path /b"), std::string::npos);
  EXPECT_EQ(slow.read_all(), "") << "a slow header is closed without an answer";
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 250ms);
  EXPECT_LT(waited, 3s);
}

TEST_F(Transport, StopWaitsForTheAnswerInProgressAndClosesIdleConnections) {
  Client idle(port_);
  idle.send(kGet);
  EXPECT_NE(idle.read_until("path /a").find("path /a"), std::string::npos);
  Client busy(port_);
  busy.send(get("/hold"));
  ASSERT_EQ(held_ready_.get_future().wait_for(5s), std::future_status::ready);
  server_->stop();
  EXPECT_EQ(idle.read_all(), "") << "the idle keep-alive connection was not closed";
  EXPECT_EQ(running_.wait_for(200ms), std::future_status::timeout) << "run() returned with an answer in progress";
  {
    std::lock_guard lock(mutex_);
    Response r;
    r.body = "held";
    held_->respond(r);
    held_.reset();
  }
  std::string got = busy.read_all();
  EXPECT_NE(got.find("held"), std::string::npos) << got;
  EXPECT_NE(got.find("Connection: close"), std::string::npos) << got;
  EXPECT_EQ(running_.wait_for(5s), std::future_status::ready);
  std::lock_guard lock(mutex_);
  EXPECT_EQ(answered_.back(), "/hold 200");
}
}  // namespace
}  // namespace ogai::serve::http

namespace ogai::serve::http {
namespace {

// Issue 28 finding 1: a client that closes or resets while its request waits is noticed at once
// (ClientGone fires); one that only half-closed still gets its answer and fires nothing.
TEST_F(Transport, NoticesAClientThatLeavesWhileItsRequestWaits) {
  for (const bool reset : {false, true}) {
    gone_ = {};
    held_ready_ = {};
    Client c(port_);
    c.send(get("/watch"));
    ASSERT_EQ(held_ready_.get_future().wait_for(2s), std::future_status::ready);
    const auto left = std::chrono::steady_clock::now();
    c.close_now(reset);
    auto gone = gone_.get_future();
    ASSERT_EQ(gone.wait_for(2s), std::future_status::ready) << (reset ? "reset" : "close") << " not noticed";
    EXPECT_LT(gone.get() - left, 500ms);
    std::lock_guard lock(mutex_);
    EXPECT_TRUE(held_->client_gone());
    held_.reset();
  }
}

// Issue 37: the answer a half-closed client reads is its response alone, with no interim 100
// Continue it did not ask for (and no probe byte in its stream); one that asked for 100-continue
// may get interim answers.
TEST_F(Transport, AnswersAHalfClosedClientAndFiresNothing) {
  for (const bool asks : {false, true}) {
    gone_ = {};
    held_ready_ = {};
    Client c(port_);
    c.send(asks ? "GET /watch HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n" : get("/watch"));
    ASSERT_EQ(held_ready_.get_future().wait_for(2s), std::future_status::ready);
    c.half_close();
    std::this_thread::sleep_for(200ms);  // the probes sent
    EXPECT_EQ(gone_.get_future().wait_for(0ms), std::future_status::timeout);
    {
      std::lock_guard lock(mutex_);
      Response r;
      r.body = "held";
      held_->respond(r);
      held_.reset();
    }
    const std::string got = c.read_all();
    if (asks) {
      EXPECT_TRUE(got.starts_with("HTTP/1.1 100 Continue\r\n\r\n")) << got;
    } else {
      EXPECT_TRUE(got.starts_with("HTTP/1.1 200 ")) << got;
      EXPECT_EQ(got.find("100 Continue"), std::string::npos) << got;
    }
    EXPECT_NE(got.find("held"), std::string::npos) << got;
  }
}

// One client address (a balancer in front) with a cap of 4 connections not answering a request.
class PeerCap : public Transport {
 protected:
  void adjust(Limits& limits) override {
    limits.max_connections_per_peer = 4;
    limits.probe_reserve = 0;
    limits.header_timeout = 3s;  // slow headers are evicted here, not cut at their deadline
  }
  std::size_t parked() {
    std::lock_guard lock(mutex_);
    return parked_.size();
  }
};

TEST_F(PeerCap, RequestsBeingAnsweredDoNotCountAgainstThePeersCap) {
  std::vector<std::unique_ptr<Client>> streams;
  for (std::size_t i = 0; i < 6; ++i) {  // more than the cap, each being answered before the next connects
    streams.push_back(std::make_unique<Client>(port_));
    streams.back()->send(get("/park"));
    for (int wait = 0; wait < 200 && parked() <= i; ++wait) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(parked(), i + 1);
  }
  Client next(port_);
  next.send(kGet);
  EXPECT_NE(next.read_until("path /a").find("path /a"), std::string::npos) << "a 7th request was not admitted";
  std::lock_guard lock(mutex_);
  for (auto& e : parked_) {
    Response r;
    r.body = "parked";
    e->respond(r);
  }
  parked_.clear();
}

// Issue 28 finding 4: slow-header clients that reconnect fast keep every connection young; a new
// connection whose whole request has arrived (a probe) still takes the place of the oldest of them,
// also when its request comes a little after it connected.
TEST_F(PeerCap, AWholeRequestTakesThePlaceOfAYoungSlowHeader) {
  for (const auto delay : {0ms, 50ms}) {
    std::vector<std::unique_ptr<Client>> slow;
    for (int i = 0; i < 4; ++i) {  // the cap, each younger than the eviction grace
      slow.push_back(std::make_unique<Client>(port_));
      slow.back()->send("GET /a HTTP/1.1\r\nHo");
    }
    std::this_thread::sleep_for(20ms);  // accepted
    Client next(port_);
    std::this_thread::sleep_for(delay);
    next.send(get("/b"));
    EXPECT_NE(next.read_until("path /b").find("path /b"), std::string::npos)
        << "refused after " << delay.count() << " ms";
    int closed = 0;
    for (auto& c : slow) closed += c->closed_within(100ms) ? 1 : 0;
    EXPECT_EQ(closed, 1) << "after " << delay.count() << " ms";
    slow.clear();
    std::this_thread::sleep_for(100ms);  // the server saw them close
  }
}

TEST_F(PeerCap, IdleConnectionsStillCountAndTheOldestMakesRoom) {
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(std::make_unique<Client>(port_));  // the cap, sending nothing
  std::this_thread::sleep_for(300ms);                                           // past the eviction grace
  Client next(port_);
  next.send(kGet);
  EXPECT_NE(next.read_until("path /a").find("path /a"), std::string::npos);
  int closed = 0;  // the oldest idle connection made room: closed now, not at the 2 s idle deadline
  for (auto& c : idle) closed += c->closed_within(100ms) ? 1 : 0;
  EXPECT_EQ(closed, 1);
}

}  // namespace
}  // namespace ogai::serve::http

namespace ogai::serve::http {
namespace {

// A new connection's first request may come late (its client's machine busy): it waits the longer
// of the idle and header deadlines, and one that sends nothing gets a 408 before the close.
class SlowFirstRequest : public Transport {
 protected:
  void adjust(Limits& limits) override {
    limits.idle_timeout = 300ms;
    limits.header_timeout = 1500ms;
  }
};

TEST_F(SlowFirstRequest, IsAnsweredPastTheIdleTimeoutAndTold408AtTheHeaderTimeout) {
  Client late(port_);
  Client silent(port_);
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(700ms);  // past the idle timeout
  late.send(get("/late-first"));
  EXPECT_NE(late.read_until("path /late-first").find("path /late-first"), std::string::npos);
  const std::string told = silent.read_all();
  EXPECT_EQ(told.rfind("HTTP/1.1 408 Request Timeout", 0), 0u) << told;
  EXPECT_NE(told.find("Connection: close"), std::string::npos) << told;
  EXPECT_NE(told.find("--header-timeout"), std::string::npos) << told;
  EXPECT_GE(std::chrono::steady_clock::now() - start, 1400ms);
}

}  // namespace
}  // namespace ogai::serve::http
