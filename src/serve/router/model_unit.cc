#include "serve/router/model_unit.h"

#include "serve/server_impl.h"

namespace ogai::serve::router {
namespace {

ServerOptions unit_options(ServerOptions options, const std::string& id) {
  options.model_name = id;
  options.model_aliases.clear();
  options.port = 0;
  return options;
}

}  // namespace

ModelUnit::ModelUnit(std::shared_ptr<const Model> model, ServerOptions options, const std::string& id,
                     const std::string& replica_id)
    : impl_(std::make_unique<Server::Impl>(std::move(model), unit_options(std::move(options), id))) {
  impl_->replica_id = replica_id;
  impl_->metrics.set_identity(id, replica_id);
  impl_->serving = true;
}

ModelUnit::~ModelUnit() {
  impl_->scheduler.shutdown();
  impl_->scheduler.join();
}

void ModelUnit::answer(const std::shared_ptr<http::Exchange>& exchange) { impl_->answer_route(exchange); }

std::string ModelUnit::metrics_text() const {
  const Scheduler& s = impl_->scheduler;
  std::string text = impl_->metrics.prometheus_text(s.running(), s.queued(), s.engine_stats());
  const ResponsesStore& store = impl_->responses_store;
  write_store_metrics(text, store.size(), store.bytes(), store.max_bytes());
  return text;
}

std::optional<http::Response> ModelUnit::stored_response(const std::string& id, const std::string& owner) const {
  try {
    return impl_->stored_response(id, owner);
  } catch (const ApiError& e) {
    if (e.status == 404) return std::nullopt;
    throw;
  }
}

std::int64_t ModelUnit::context_length() const { return impl_->model->info().context_length; }

void ModelUnit::shutdown() { impl_->scheduler.shutdown(); }

void ModelUnit::drain() { impl_->scheduler.drain(); }

bool ModelUnit::idle() const {
  return impl_->scheduler.running() + impl_->scheduler.queued() == 0 && impl_->embeddings_pending == 0;
}

}  // namespace ogai::serve::router
