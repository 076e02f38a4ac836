// Server lifecycle without a client: option checks, and stop() racing run() from another thread
// (before it starts, as it starts, while it serves) always returns promptly.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "serve/server.h"

namespace ogai::serve {
namespace {

using namespace std::chrono_literals;

class ServerLifecycle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = Model::load(std::filesystem::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b"); }
  static void TearDownTestSuite() { model_.reset(); }
  static ServerOptions local() {
    ServerOptions o;
    o.port = 0;
    o.max_concurrent = 2;
    o.queue = 2;
    return o;
  }
  static std::shared_ptr<const Model> model_;
};
std::shared_ptr<const Model> ServerLifecycle::model_;

TEST_F(ServerLifecycle, RefusesOptionsOutOfRange) {
  for (auto change : std::vector<void (*)(ServerOptions&)>{
           [](ServerOptions& o) { o.max_concurrent = 0; }, [](ServerOptions& o) { o.max_concurrent = kMaxConcurrentLimit + 1; },
           [](ServerOptions& o) { o.queue = -1; }, [](ServerOptions& o) { o.queue = kQueueLimit + 1; },
           [](ServerOptions& o) { o.port = 70000; }, [](ServerOptions& o) { o.max_body_bytes = 0; }}) {
    ServerOptions o = local();
    change(o);
    EXPECT_THROW(Server(model_, o), Error);
  }
}

TEST_F(ServerLifecycle, NamesTheModelAfterItsPackage) {
  EXPECT_EQ(Server(model_, local()).model_name(), "tiny-e2b");
  ServerOptions named = local();
  named.model_name = "tiny";
  EXPECT_EQ(Server(model_, named).model_name(), "tiny");
}

std::size_t open_descriptors() {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                                std::filesystem::directory_iterator()));
}

TEST_F(ServerLifecycle, BindsAFreePortAndClosesIt) {
  const std::size_t before = open_descriptors();
  {
    Server a(model_, local());
    const int port = a.bind();
    EXPECT_GT(port, 0);
    ServerOptions same = local();
    same.port = port;
    Server b(model_, same);
    EXPECT_THROW(b.bind(), Error);  // no sharing of a port (no SO_REUSEPORT)
  }
  EXPECT_EQ(open_descriptors(), before);  // the listener of a server that never ran is closed too
}

TEST_F(ServerLifecycle, StopBeforeRunReturnsAtOnce) {
  Server server(model_, local());
  server.bind();
  server.stop();
  auto done = std::async(std::launch::async, [&] { server.run(); });
  EXPECT_EQ(done.wait_for(5s), std::future_status::ready);
}

TEST_F(ServerLifecycle, StopRacingRunAlwaysEndsIt) {
  for (int i = 0; i < 20; ++i) {
    Server server(model_, local());
    server.bind();
    auto done = std::async(std::launch::async, [&] { server.run(); });
    if (i % 2) std::this_thread::sleep_for(std::chrono::milliseconds(i));
    server.stop();
    server.stop();  // idempotent
    ASSERT_EQ(done.wait_for(5s), std::future_status::ready) << "iteration " << i;
  }
}

}  // namespace
}  // namespace ogai::serve

namespace ogai::serve {
namespace {

TEST_F(ServerLifecycle, RefusesTransportOptionsOutOfRange) {
  for (auto change : std::vector<void (*)(ServerOptions&)>{
           [](ServerOptions& o) { o.max_connections = 0; },
           [](ServerOptions& o) { o.max_connections = kMaxConnectionsLimit + 1; },
           [](ServerOptions& o) { o.idle_timeout_s = 0; }, [](ServerOptions& o) { o.header_timeout_s = -1; },
           [](ServerOptions& o) { o.body_timeout_s = 1e9; }}) {
    ServerOptions o = local();
    change(o);
    EXPECT_THROW(Server(model_, o), Error);
  }
  ServerOptions fine = local();
  fine.max_connections = 1;
  fine.idle_timeout_s = 0.05;
  EXPECT_NO_THROW(Server(model_, fine));
}

}  // namespace
}  // namespace ogai::serve
