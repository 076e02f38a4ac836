// POST /v1/responses (responses_api.h): parsed into a chat request, admitted like a chat
// completion, answered as a response object or as the Responses API's streaming events.
#include <ctime>

#include "serve/prompt.h"
#include "serve/responses_stream.h"
#include "serve/server_impl.h"
#include "serve/stream_pump.h"

namespace ogai::serve {
namespace {

// Errors raised for the chat request a Responses request became name the Responses fields.
ApiError with_responses_names(ApiError e) {
  if (e.param == "messages" || e.param.starts_with("messages[")) e.param = "input";
  else if (e.param == "max_tokens") e.param = "max_output_tokens";
  return e;
}

}  // namespace

void Server::Impl::handle_responses(const std::shared_ptr<http::Exchange>& exchange) {
  try {
    ResponsesRequest parsed = parse_responses_request(exchange->request().body);
    apply_surface(parsed.request, *exchange);
    if (!serves(parsed.request.model)) throw model_not_found(parsed.request.model, name);
    std::vector<std::int32_t> prompt = prompt_ids(*model, parsed.request);
    if (exchange->client_gone()) return;  // nothing to answer: do not take a place in the queue
    std::shared_ptr<Job> job = admit(std::move(parsed.request), std::move(prompt));
    exchange->on_client_gone([weak = std::weak_ptr<Job>(job)] {
      if (auto j = weak.lock()) j->cancel();
    });
    const std::string hex = job->meta.id.substr(job->meta.id.find('-') + 1);
    job->responses = ResponsesMeta{"resp_" + hex, "msg_" + hex, job->meta.created, name, std::move(parsed.echo)};
    if (!job->request.stream) {
      return job->channel->when_ready([this, job, exchange] {
        respond_from_pool(job, exchange, &Impl::responses_response);
      });
    }
    job->channel->when_ready([this, job, exchange] {
      on_route_pool([this, job, exchange] { start_responses_stream(job, exchange); });
    });
  } catch (const ApiError& e) {
    exchange->respond(error_response(with_responses_names(e)));
  } catch (const Error& e) {
    exchange->respond(error_response(with_responses_names(from_engine_error(e, Endpoint::kChat))));
  }
}

http::Response Server::Impl::responses_response(Job& job) {
  GenerationChannel::Update end = job.channel->poll();
  if (end.error) throw *end.error;
  http::Response res;
  res.body = to_text(responses_json(*job.responses, &*end.result, end.result->text));
  return res;
}

// As start_stream(): a request the engine refuses still gets its 4xx instead of a failed stream.
void Server::Impl::start_responses_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  GenerationChannel::Update first = job->channel->poll();
  if (first.error) {
    exchange->respond(error_response(*first.error));
    return job->release_handles();
  }
  std::vector<StreamChoice> choices(1);
  choices[0].channel = job->channel;
  choices[0].encoder = std::make_unique<ResponsesEncoder>(*job->responses);
  auto pump = std::make_shared<StreamPump>(std::move(choices), std::move(exchange),
                                           [this](std::function<void()> step) { on_route_pool(std::move(step)); },
                                           [job] { job->cancel(); }, [job] { job->release_handles(); });
  pump->start(std::move(first));
}

}  // namespace ogai::serve
