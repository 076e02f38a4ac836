// GET /v1/responses/{id}: a stored response object (responses_store.h).
// POST /v1/responses (responses_api.h): parsed into a chat request, which goes the chat
// completion's way (the grammar pool when tools or a format are given, admission, generation),
// then is answered as a response object or as the Responses API's streaming events
// (responses_stream.h). Errors are OpenAI's, under the Responses field names.
#include "serve/ops/auth.h"
#include "serve/common/prompt.h"
#include "serve/responses/responses_stream.h"
#include "serve/server_impl.h"

namespace ogai::serve {

void Server::Impl::handle_responses(const std::shared_ptr<http::Exchange>& exchange) {
  try {
    const std::string owner = api_key_owner(exchange->request(), options.surface.api_keys);
    ResponsesRequest parsed = parse_responses_request(
        exchange->request().body, request_limits,
        [this, &owner](const std::string& id) { return responses_store.get(id, owner); }, owner);
    ApiRequest& request = parsed.request;
    apply_surface(request, *exchange);
    if (!serves(request.model)) throw model_not_found(request.model, name);
    if (GrammarPool::needs(request)) return compile_then_admit(Endpoint::kChat, exchange, std::move(request));
    admit_and_answer(exchange, std::move(request));
  } catch (const ApiError& e) {
    exchange->respond(error_response(e, exchange->request()));
  } catch (const Error& e) {
    exchange->respond(error_response(from_engine_error(e, Endpoint::kChat), exchange->request()));
  }
}

void Server::Impl::answer_responses(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  const std::string hex = job->meta.id.substr(job->meta.id.find('-') + 1);
  job->responses = ResponsesMeta{"resp_" + hex, "msg_" + hex, job->meta.created, name, job->request.responses->echo};
  if (!job->request.stream) {
    return job->channel->when_ready([this, job, exchange] {
      respond_from_pool(job, exchange, &Impl::responses_response);
    });
  }
  job->channel->when_ready([this, job, exchange] {
    on_route_pool([this, job, exchange] { start_responses_stream(job, exchange); });
  });
}

http::Response Server::Impl::responses_response(Job& job) {
  GenerationChannel::Update end = job.channel->poll();
  if (end.error) throw *end.error;
  ChatReply reply{end.result->text, "", {}};
  if (const ChatPrompt* p = parsed_prompt(job.request)) reply = parse_chat_reply(*p, end.result->text);
  nlohmann::json response = responses_json(*job.responses, &*end.result, reply);
  store_response(job, reply, response);
  http::Response res;
  res.body = to_text(response);
  return res;
}

void Server::Impl::store_response(const Job& job, const ChatReply& reply, const nlohmann::json& response) {
  const ResponsesState& state = *job.request.responses;
  if (!state.store) return;
  nlohmann::json conversation = state.conversation;
  conversation.push_back(reply_message(reply));
  responses_store.put(job.responses->id, conversation, response, state.owner);
}

http::Response Server::Impl::stored_response(const std::string& id, const std::string& owner) {
  std::optional<nlohmann::json> response = responses_store.response(id, owner);
  if (!response) {
    ApiError e = invalid_request("", "No response found with id " + quote_value(id) +
                                         " (responses with store: false are not kept, and the server keeps only "
                                         "the most recent ones)", "not_found");
    e.status = 404;
    throw e;
  }
  http::Response res;
  res.body = to_text(*response);
  return res;
}

void Server::Impl::start_responses_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  auto store = [this, job](const ChatReply& reply, const nlohmann::json& response) { store_response(*job, reply, response); };
  stream_one_choice(job, std::move(exchange), std::make_unique<ResponsesEncoder>(*job->responses, std::move(store)));
}

}  // namespace ogai::serve
