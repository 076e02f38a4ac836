// Readiness and graceful drain: what a load balancer or Kubernetes asks a replica (GET /ready),
// the replica's id in every answer, and the drain that lets a rolling restart lose no request.
//
//   /ready 200 {"status":"ready"}     the model is loaded, the port bound, run() serving, admitting
//          503 {"status":"draining"}  begin_drain() was called: balancers stop sending new work
//          503 {"status":"stopping"}  stop() was called
//          503 {"status":"starting"}  bound, run() not serving yet
// A full queue does not make a replica unready (that would flap under load; 429 says it).
// During a drain a new generation is answered 503 shutting_down before any work is done, so a
// balancer may retry it elsewhere (HAProxy retry-on 503, nginx proxy_next_upstream http_503
// non_idempotent); admitted generations, queued ones included, run to their end.
#include <unistd.h>

#include <climits>

#include "base/log.h"
#include "serve/server_impl.h"

namespace ogai::serve {
namespace {

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "ogai";
  return buf;
}

http::Response status_response(int status, const char* state) {
  http::Response r;
  r.status = status;
  r.body = std::string(R"({"status":")") + state + "\"}";
  r.fields.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace

http::Response Server::Impl::answer_ready() const {
  if (scheduler.stopping()) return status_response(503, "stopping");
  if (scheduler.draining()) return status_response(503, "draining");
  if (!serving) return status_response(503, "starting");
  return status_response(200, "ready");
}

void Server::Impl::name_replica() {
  replica_id = options.replica_id.empty() ? host_name() + ":" + std::to_string(port) : options.replica_id;
  common_fields = {{"x-ogai-replica", replica_id}};
  metrics.set_identity(name, replica_id);
}

void Server::begin_drain() {
  if (impl_->scheduler.draining()) return;
  impl_->scheduler.drain();
  log(LogLevel::kInfo, "serve: draining: {} running, {} waiting", impl_->scheduler.running(), impl_->scheduler.queued());
}

bool Server::idle() const {
  return impl_->scheduler.running() + impl_->scheduler.queued() == 0 && impl_->embeddings_pending == 0;
}

const std::string& Server::replica_id() const { return impl_->replica_id; }

}  // namespace ogai::serve
