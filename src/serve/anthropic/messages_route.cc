// POST /v1/messages and /v1/messages/count_tokens (messages_request.h, messages_api.h): a
// messages request is parsed into a chat request and goes the chat completion's way (the grammar
// pool when tools are offered, admission, generation), then is answered as Anthropic's message
// object or its streaming events (messages_stream.h); count_tokens renders the same prompt and
// answers {"input_tokens": N}. Errors are in Anthropic's shape (error_response with the request).
#include "serve/anthropic/messages_stream.h"
#include "serve/common/prompt.h"
#include "serve/server_impl.h"
#include "tokenizer/cancel.h"

namespace ogai::serve {

void Server::Impl::handle_messages(MessagesRoute route, const std::shared_ptr<http::Exchange>& exchange) {
  try {
    ApiRequest request = parse_messages_request(exchange->request().body, route, request_limits);
    apply_surface(request, *exchange);
    if (!serves(request.model)) throw model_not_found(request.model, name);
    if (route == MessagesRoute::kCountTokens) return count_message_tokens(exchange, std::move(request));
    if (GrammarPool::needs(request)) return compile_then_admit(Endpoint::kChat, exchange, std::move(request));
    admit_and_answer(exchange, std::move(request));
  } catch (const ApiError& e) {
    exchange->respond(error_response(e, exchange->request()));
  } catch (const Error& e) {
    exchange->respond(error_response(from_engine_error(e, Endpoint::kChat), exchange->request()));
  }
}

// The prompt as /v1/messages renders it (tool schemas compile on the grammar pool, as there).
void Server::Impl::count_message_tokens(const std::shared_ptr<http::Exchange>& exchange, ApiRequest request) {
  auto count = [this, exchange](ApiRequest& r) {
    tokenizer::CancelScope cancel([&exchange] { return exchange->client_gone(); });
    http::Response res;
    res.body = to_text({{"input_tokens", prompt_ids(*model, r).size()}});
    exchange->respond(std::move(res));
  };
  if (!GrammarPool::needs(request)) return count(request);
  grammars.check_size(request);
  auto work = [this, exchange, count, request = std::move(request)]() mutable {
    if (exchange->client_gone()) return;
    try {
      CompileBudgetScope budget(grammars.budget([this, exchange] { return exchange->client_gone() || scheduler.stopping(); }));
      count(request);
    } catch (const ApiError& e) {
      exchange->respond(error_response(e, exchange->request()));
    } catch (const Error& e) {
      exchange->respond(error_response(from_engine_error(e, Endpoint::kChat), exchange->request()));
    }
  };
  if (!grammars.post(std::move(work))) {
    ApiError busy = internal_error("the server is busy compiling tool schemas; retry later");
    busy.status = 429;
    busy.type = "rate_limit_error";
    throw busy;
  }
}

// From admit_and_answer(): the job exists; it is answered whole or streamed.
void Server::Impl::answer_messages(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  const std::string hex = job->meta.id.substr(job->meta.id.find('-') + 1);
  job->messages = MessagesMeta{"msg_" + hex, name, job->prompt.size()};
  if (!job->request.stream) {
    return job->channel->when_ready([this, job, exchange] {
      respond_from_pool(job, exchange, &Impl::messages_response);
    });
  }
  job->channel->when_ready([this, job, exchange] {
    on_route_pool([this, job, exchange] { start_messages_stream(job, exchange); });
  });
}

std::optional<std::string> Server::Impl::stop_sequence(const std::vector<std::string>& stops,
                                                       const GenerationResult& result) const {
  if (result.finish_reason != FinishReason::kStop || stops.empty()) return std::nullopt;
  return matched_stop(result, model->detokenize(result.ids), stops);
}

http::Response Server::Impl::messages_response(Job& job) {
  GenerationChannel::Update end = job.channel->poll();
  if (end.error) throw *end.error;
  std::optional<ChatReply> reply;
  if (const ChatPrompt* p = parsed_prompt(job.request)) reply = parse_chat_reply(*p, end.result->text);
  http::Response res;
  const nlohmann::ordered_json message =
      message_json(*job.messages, *end.result, reply ? &*reply : nullptr, stop_sequence(job.request.options.stop, *end.result));
  res.body = message.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return res;
}

void Server::Impl::start_messages_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  auto stop_of = [this, stops = job->request.options.stop](const GenerationResult& r) { return stop_sequence(stops, r); };
  stream_one_choice(job, std::move(exchange), std::make_unique<MessagesEncoder>(*job->messages, std::move(stop_of)));
}

}  // namespace ogai::serve
