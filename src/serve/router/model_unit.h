// ModelUnit: one loaded model behind the router (router/router.h), the same unit that serves a
// package in the one-model server: a Server::Impl with its scheduler and batched engine, route
// pools, grammar pool, metrics and Responses store, under the id `id` (aliases none). The router
// answers HTTP (its own transport, API key gate and access log) and hands each request for this
// model to answer(); the unit's own transport is never bound. Destroying the unit stops its
// scheduler and joins its threads: the registry does that only when no request holds it
// (model_registry.h). Thread-safe as Server::Impl's routes are.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ogai/ogai.h"
#include "serve/http/exchange.h"
#include "serve/router/model_registry.h"
#include "serve/server.h"

namespace ogai::serve::router {

class ModelUnit : public Served {
 public:
  // Throws ogai::Error as Server's constructor does (options out of range, a speculative drafter
  // the package cannot run).
  ModelUnit(std::shared_ptr<const Model> model, ServerOptions options, const std::string& id,
            const std::string& replica_id);
  ~ModelUnit() override;

  // A request whose model is this one, past the router's gate: answered as the one-model server would.
  void answer(const std::shared_ptr<http::Exchange>& exchange);
  // Its generation metrics (Prometheus text; router/metrics_merge.h adds the model label).
  std::string metrics_text() const;
  // A stored Responses answer of this model for `owner`'s key, or nullopt when it holds none.
  std::optional<http::Response> stored_response(const std::string& id, const std::string& owner) const;
  std::int64_t context_length() const;
  void drain();       // refuse new generations with 503; admitted ones run to their end
  bool idle() const;  // nothing admitted is left
  void shutdown();    // the server stops: queued generations 503, running ones cancelled

 private:
  std::unique_ptr<Server::Impl> impl_;
};

}  // namespace ogai::serve::router
