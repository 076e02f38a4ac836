// The router's own routes: GET /v1/models (every model and its state), GET /ready, GET /metrics,
// GET /version, GET /v1/responses/{id} (looked up in each loaded model's store), and POST
// /models/load and /models/unload ({"model": ID}).
#include <fmt/format.h>

#include "ogai/version.h"
#include "serve/common/json_limits.h"
#include "serve/ops/auth.h"
#include "serve/route_table.h"
#include "serve/router/metrics_merge.h"
#include "serve/router/router_impl.h"
#include "serve/server_impl.h"

namespace ogai::serve {
namespace {

http::Response json_response(const nlohmann::json& value, int status = 200) {
  http::Response r = text_response(to_text(value));
  r.status = status;
  r.fields.emplace_back("Cache-Control", "no-store");
  return r;
}

router::ModelUnit& unit_of(const std::shared_ptr<router::Served>& served) {
  return static_cast<router::ModelUnit&>(*served);
}

// ogai_model_state{model,state} 1 for each model's present state.
std::string state_metrics(const std::vector<router::ModelStatus>& models) {
  std::string out =
      "# HELP ogai_model_state Each served model's state (not_loaded, loading, loaded, failed), as a label.\n"
      "# TYPE ogai_model_state gauge\n";
  for (const router::ModelStatus& m : models)
    out += router::with_model_label(fmt::format("ogai_model_state{{state=\"{}\"}} 1", router::state_name(m.state)),
                                    m.spec.id) + "\n";
  return out;
}

}  // namespace

nlohmann::json Router::Impl::model_entry(const router::ModelStatus& status) const {
  nlohmann::json entry = {{"id", status.spec.id},   {"object", "model"},
                          {"created", created},     {"owned_by", "ogai"},
                          {"state", router::state_name(status.state)},
                          {"in_flight", status.in_flight}, {"waiting", status.waiting},
                          {"bytes", status.spec.bytes}};
  if (status.state == router::ModelState::kFailed) entry["error"] = without_absolute_paths(status.error);
  if (status.state == router::ModelState::kLoaded)
    for (auto& [id, unit] : registry.loaded())
      if (id == status.spec.id) entry["context_length"] = unit_of(unit).context_length();
  return entry;
}

http::Response Router::Impl::answer_models(const std::string& id) const {
  nlohmann::json data = nlohmann::json::array();
  for (const router::ModelStatus& s : registry.list()) {
    if (id.empty()) data.push_back(model_entry(s));
    else if (s.spec.id == id) return json_response(model_entry(s));
  }
  if (!id.empty()) {
    ApiError e = invalid_request("model", "the model " + quote_value(id) + " is not served here", "model_not_found");
    e.status = 404;
    return error_response(e);
  }
  return json_response({{"object", "list"}, {"data", std::move(data)}});
}

// 200 while serving, not draining, and not every model failed to load (one that is not loaded
// yet loads on demand); the body names the models in each state.
http::Response Router::Impl::answer_ready() const {
  nlohmann::json by_state = {{"loaded", nlohmann::json::array()}, {"loading", nlohmann::json::array()},
                             {"not_loaded", nlohmann::json::array()}, {"failed", nlohmann::json::array()}};
  bool usable = false;
  for (const router::ModelStatus& s : registry.list()) {
    by_state[router::state_name(s.state)].push_back(s.spec.id);
    usable = usable || s.state != router::ModelState::kFailed;
  }
  const char* status = stopping ? "stopping" : draining ? "draining" : !serving ? "starting" : !usable ? "no_model"
                                                                                              : "ready";
  nlohmann::json body = {{"status", status}, {"models", std::move(by_state)}};
  return json_response(body, std::string_view(status) == "ready" ? 200 : 503);
}

http::Response Router::Impl::answer_metrics() const {
  std::vector<std::pair<std::string, std::string>> texts;
  for (auto& [id, unit] : registry.loaded()) texts.emplace_back(id, unit_of(unit).metrics_text());
  std::string front = metrics.front_text() + state_metrics(registry.list());
  return text_response(router::merge_model_metrics(front, texts), "text/plain; version=0.0.4; charset=utf-8");
}

http::Response Router::Impl::answer_version() const {
  return json_response({{"version", OGAI_VERSION_STRING}, {"onnxruntime", onnxruntime_version()},
                        {"models", registry.ids()}});
}

http::Response Router::Impl::answer_stored(const http::Request& request, const std::string& id) const {
  const std::string owner = api_key_owner(request, options.server.surface.api_keys);
  try {
    for (auto& [model, unit] : registry.loaded())
      if (std::optional<http::Response> found = unit_of(unit).stored_response(id, owner)) return *found;
  } catch (const ApiError& e) {
    return error_response(e, request);
  }
  ApiError e = invalid_request("", "No response found with id " + quote_value(id) +
                                       " (responses of a model that was unloaded are gone with it)", "not_found");
  e.status = 404;
  return error_response(e, request);
}

void Router::Impl::handle_model_control(bool load_it, const std::shared_ptr<http::Exchange>& exchange) {
  const http::Request& req = exchange->request();
  std::string id;
  try {
    const RequestJson doc = parse_json_body(req.body);
    const auto model = doc.find("model");
    if (model == doc.end() || !model->is_string())
      throw invalid_request("model", "model: required (a string naming one of the served models)");
    id = model->get<std::string>();
  } catch (const ApiError& e) {
    return exchange->respond(error_response(e));
  }
  if (!load_it) {
    if (std::optional<router::Refusal> r = registry.unload(id)) return exchange->respond(refusal_response(*r, req));
    return respond_control(exchange, id, false, {});
  }
  if (draining) {
    ApiError e = shutting_down();
    e.message = "the server is draining: no model is loaded now";
    return exchange->respond(error_response(e));
  }
  registry.load(id, [this, exchange, id](router::Grant grant) { respond_control(exchange, id, true, std::move(grant)); });
}

void Router::Impl::respond_control(const std::shared_ptr<http::Exchange>& exchange, const std::string& id,
                                   bool load_it, router::Grant grant) {
  if (grant.refusal) return exchange->respond(refusal_response(*grant.refusal, exchange->request()));
  grant.lease.reset();  // the load's own hold: not a request in flight
  for (const router::ModelStatus& s : registry.list())
    if (s.spec.id == id) {
      nlohmann::json body = model_entry(s);
      body["action"] = load_it ? "load" : "unload";
      return exchange->respond(json_response(body));
    }
}

}  // namespace ogai::serve
