// POST /v1/chat/completions and /v1/completions: parse, build the prompt, admit the job to the
// scheduler (the batched engine), then answer it whole or as server-sent events while the engine
// generates (the channels call back; no thread waits).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <utility>

#include "base/secure_random.h"
#include "serve/common/logprobs_json.h"
#include "serve/common/prompt.h"
#include "serve/server_impl.h"
#include "serve/openai/stream_encoder.h"
#include "serve/engine/stream_pump.h"
#include "tokenizer/cancel.h"

namespace ogai::serve {
namespace {

ApiError queue_full(int max_concurrent, int queue) {
  ApiError e;
  e.status = 429;
  e.type = "rate_limit_error";
  e.code = "queue_full";
  e.message = fmt::format("the server is busy: {} generations are running and {} more are waiting; retry later",
                          max_concurrent, queue);
  return e;
}

ApiError grammar_queue_full(int queue) {
  ApiError e = queue_full(0, 0);
  e.message = fmt::format("the server is busy: {} requests are waiting for their grammar to compile; retry later", queue);
  return e;
}

}  // namespace

// 128 bits from the kernel's CSPRNG: response and item ids are derived from it, and a stored
// response is fetched by its id, so no id may give away another (issue 37 item 1).
std::string Server::Impl::next_id(Endpoint endpoint) {
  return fmt::format("{}-{}", endpoint == Endpoint::kChat ? "chatcmpl" : "cmpl", secure_random_hex(16));
}

void Server::Impl::handle_generation(Endpoint endpoint, const std::shared_ptr<http::Exchange>& exchange) {
  try {
    const std::string& body = exchange->request().body;
    ApiRequest request = endpoint == Endpoint::kChat ? parse_chat_request(body, request_limits)
                                                     : parse_completion_request(body, request_limits);
    apply_surface(request, *exchange);
    if (!serves(request.model)) throw model_not_found(request.model, name);
    if (GrammarPool::needs(request)) return compile_then_admit(endpoint, exchange, std::move(request));
    admit_and_answer(exchange, std::move(request));
  } catch (const ApiError& e) {
    exchange->respond(error_response(e, exchange->request()));
  } catch (const Error& e) {
    exchange->respond(error_response(from_engine_error(e, endpoint), exchange->request()));
  }
}

// A request with a grammar is built and admitted on the grammar pool, under its time budget (the
// response format, the tools' schemas in the chat prompt and the engine's binding of the grammar
// all compile there); a request whose client left is dropped, and its compilation stops.
void Server::Impl::compile_then_admit(Endpoint endpoint, const std::shared_ptr<http::Exchange>& exchange,
                                      ApiRequest request) {
  grammars.check_size(request);
  auto work = [this, endpoint, exchange, request = std::move(request)]() mutable {
    if (exchange->client_gone()) return;
    if (scheduler.stopping()) return exchange->respond(error_response(shutting_down(), exchange->request()));
    try {
      CompileBudgetScope budget(
          grammars.budget([this, exchange] { return exchange->client_gone() || scheduler.stopping(); }));
      if (request.options.response_format) grammars.check_format(*request.options.response_format);
      admit_and_answer(exchange, std::move(request));
    } catch (const ApiError& e) {
      exchange->respond(error_response(e, exchange->request()));
    } catch (const Error& e) {
      const ApiError error = e.code() == ErrorCode::kCancelled ? shutting_down()  // or gone
                                                               : from_engine_error(e, endpoint);
      exchange->respond(error_response(error, exchange->request()));
    }
  };
  if (!grammars.post(std::move(work))) throw grammar_queue_full(grammars.limits().queue);
}

void Server::Impl::admit_and_answer(const std::shared_ptr<http::Exchange>& exchange, ApiRequest request) {
  // Tokenizing a long prompt stops within milliseconds once its client left (issue 37 item 3).
  tokenizer::CancelScope cancel([&exchange] { return exchange->client_gone(); });
  if (is_completion_batch(request)) return admit_completion_batch(exchange, std::move(request));
  std::vector<std::int32_t> prompt = prompt_ids(*model, request);
  if (exchange->client_gone()) return;  // nothing to answer: do not take a place in the queue
  std::shared_ptr<Job> job = admit(std::move(request), std::move(prompt));
  exchange->on_client_gone([weak = std::weak_ptr<Job>(job)] {
    if (auto j = weak.lock()) j->cancel();
  });  // queued, prefilling or decoding
  if (job->request.messages_api)
    answer_messages(job, exchange);
  else if (job->request.transcription)
    answer_transcription(job, exchange);
  else if (job->request.responses)
    answer_responses(job, exchange);
  else if (job->request.stream)
    answer_stream(job, exchange);
  else
    answer_whole(job, exchange);
}

void Job::cancel() {
  for (auto& c : channels) c->cancel();
  std::lock_guard lock(handles_mutex);
  for (auto& h : handles) h->cancel();
}

void Job::release_handles() {
  std::lock_guard lock(handles_mutex);
  handles.clear();
}

std::shared_ptr<Job> Server::Impl::admit(ApiRequest request, std::vector<std::int32_t> prompt) {
  auto job = std::make_shared<Job>();
  job->meta = {request.endpoint, next_id(request.endpoint), static_cast<std::int64_t>(std::time(nullptr)), name};
  for (int i = 0; i < request.n; ++i) job->channels.push_back(std::make_shared<GenerationChannel>(request.stream));
  job->channel = job->channels.front();
  job->request = std::move(request);
  job->prompt = std::move(prompt);
  Scheduler::Submission submission;
  submission.prompt = job->prompt;
  // The files go to the engine; the job keeps their names (kind, type, origin) for refusals.
  std::vector<MediaInput> media = std::exchange(job->request.options.media, {});
  for (const MediaInput& m : media) job->request.options.media.push_back({m.kind, "", m.mime, m.origin});
  submission.options = job->request.options;
  submission.options.media = std::move(media);
  const bool plain_only = submission.options.prompt_logprobs || submission.options.max_new_tokens == 0;
  if (!plain_only) submission.options.speculative = options.speculative;
  submission.n = job->request.n;
  // The engine's thread holds the job alive through these callbacks until every choice ended.
  submission.on_token = [this, job](int choice, const StreamEvent& e) {
    return !scheduler.stopping() && job->channels[static_cast<std::size_t>(choice)]->on_token(e.text, e.logprobs);
  };
  submission.on_done = [this, job](int choice, GenerationHandle& handle) { finish_choice(*job, choice, handle); };
  std::vector<std::shared_ptr<GenerationHandle>> handles;
  Scheduler::Admission admission{};
  try {
    admission = scheduler.submit(std::move(submission), &handles);
  } catch (const Error& e) {  // a package that takes no media names the part the client sent
    if (auto refusal = media_refusal(e, job->request)) throw *refusal;
    throw;
  }
  switch (admission) {
    case Scheduler::Admission::kAccepted: {
      std::lock_guard lock(job->handles_mutex);
      job->handles = std::move(handles);
      return job;
    }
    case Scheduler::Admission::kQueueFull: throw queue_full(options.max_concurrent, options.queue);
    case Scheduler::Admission::kStopping: throw shutting_down();
  }
  throw internal_error("unknown admission result");
}

// On the engine's thread, once per choice.
void Server::Impl::finish_choice(Job& job, int choice, GenerationHandle& handle) {
  GenerationChannel& channel = *job.channels[static_cast<std::size_t>(choice)];
  try {
    GenerationResult result = handle.wait();
    metrics.observe_queue_wait(result.timings.queue_ms / 1e3);
    // Report only the tokens whose text was released, as a stream does (generation_channel.h).
    result.logprobs.resize(std::min(result.logprobs.size(), channel.reported_logprobs()));
    metrics.observe_generation(result);
    if (result.finish_reason == FinishReason::kCancelled && scheduler.stopping())
      channel.fail(shutting_down());
    else
      channel.complete(std::move(result));
  } catch (const Error& e) {
    channel.fail(from_engine_error(e, job.meta.endpoint));
  } catch (const std::exception& e) {
    channel.fail(internal_error(e.what()));
  }
}

// Answered once the generation ended; no thread waits for it meanwhile.
void Server::Impl::answer_whole(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  if (job->channels.size() > 1) return answer_choices(job, std::move(exchange));
  job->channel->when_ready([this, job, exchange = std::move(exchange)] {
    respond_from_pool(job, exchange, &Impl::whole_response);
  });
}

void Server::Impl::respond_from_pool(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange,
                                     http::Response (Impl::*build)(Job&)) {
  on_route_pool([this, job, exchange = std::move(exchange), build] {
    try {
      exchange->respond((this->*build)(*job));
    } catch (const ApiError& e) {
      exchange->respond(error_response(e, exchange->request()));
    } catch (const Error& e) {
      exchange->respond(error_response(from_engine_error(e, job->meta.endpoint), exchange->request()));
    } catch (const std::exception& e) {
      exchange->respond(error_response(internal_error(e.what()), exchange->request()));
    }
    job->release_handles();
  });
}

// Completions echo puts the prompt's text (and its logprobs) before the choice's.
nlohmann::json Server::Impl::choice_logprobs(const Job& job, GenerationResult& result) const {
  nlohmann::json logprobs;
  LogprobsJson logprobs_json(*model, job.meta.endpoint);
  if (job.request.echo) {
    if (job.request.options.logprobs) logprobs = logprobs_json.prompt(result.prompt_logprobs, result.prompt_ids);
    const std::string prompt = job.request.prompt_text ? *job.request.prompt_text
                                                       : model->detokenize(result.prompt_ids, true);
    result.text = prompt + result.text;
  }
  if (job.request.options.logprobs) {
    nlohmann::json generated = logprobs_json(result.logprobs);
    if (logprobs.is_null()) logprobs = std::move(generated);
    else LogprobsJson::append(logprobs, generated);
  }
  return logprobs;
}

http::Response Server::Impl::whole_response(Job& job) {
  GenerationChannel::Update end = job.channel->poll();
  if (end.error) throw *end.error;
  nlohmann::json logprobs = choice_logprobs(job, *end.result);
  http::Response res;
  std::optional<ChatReply> reply;
  if (const ChatPrompt* p = parsed_prompt(job.request)) reply = parse_chat_reply(*p, end.result->text);
  res.body = to_text(completion_json(job.meta, *end.result, std::move(logprobs), reply ? &*reply : nullptr));
  return res;
}

// n > 1, not streamed: answered once every choice ended; a failed choice cancels the others.
void Server::Impl::answer_choices(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  auto remaining = std::make_shared<std::atomic<std::size_t>>(job->channels.size());
  for (auto& channel : job->channels) {
    channel->when_ready([this, job, exchange, remaining, channel = channel.get()] {
      if (channel->failed()) on_route_pool([job] { job->cancel(); });
      if (remaining->fetch_sub(1) == 1) respond_from_pool(job, exchange, &Impl::choices_response);
    });
  }
}

// One choice per channel, index i = choice i (seed + i).
http::Response Server::Impl::choices_response(Job& job) {
  std::vector<GenerationResult> results;
  std::vector<nlohmann::json> logprobs;
  std::vector<ChatReply> replies;
  const ChatPrompt* parsed = parsed_prompt(job.request);
  for (auto& channel : job.channels) {
    GenerationChannel::Update end = channel->poll();
    if (end.error) throw *end.error;
    if (parsed) replies.push_back(parse_chat_reply(*parsed, end.result->text));
    logprobs.push_back(choice_logprobs(job, *end.result));
    results.push_back(std::move(*end.result));
  }
  http::Response res;
  res.body = to_text(completion_choices_json(job.meta, results, std::move(logprobs), replies));
  return res;
}

// Answers once choice 0's first token exists, so a request the engine refuses (a sampling value
// out of range, say) still gets its 4xx instead of a stream that fails (the n choices differ only
// in their seeds). Then every choice streams (stream_pump.h).
void Server::Impl::answer_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  job->channel->when_ready([this, job, exchange = std::move(exchange)] {
    on_route_pool([this, job, exchange] { start_stream(job, exchange); });
  });
}

void Server::Impl::start_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  GenerationChannel::Update first = job->channel->poll();
  if (first.error) {
    exchange->respond(error_response(*first.error));
    return job->release_handles();
  }
  const ChatPrompt* parsed = parsed_prompt(job->request);
  std::vector<StreamChoice> choices(job->channels.size());
  for (std::size_t i = 0; i < choices.size(); ++i) {
    StreamChoice& c = choices[i];
    c.channel = job->channels[i];
    c.encoder = std::make_unique<StreamEncoder>(job->meta, job->request.include_usage, static_cast<int>(i));
    if (job->request.options.logprobs) c.logprobs.emplace(*model, job->meta.endpoint);
    if (parsed) c.parser = std::make_unique<ChatReplyParser>(*parsed);
  }
  auto pump = std::make_shared<StreamPump>(std::move(choices), std::move(exchange),
                                           [this](std::function<void()> step) { on_route_pool(std::move(step)); },
                                           [job] { job->cancel(); }, [job] { job->release_handles(); });
  pump->start(std::move(first));
}

// A one-choice stream in another API's events (Messages, Responses): as start_stream(), a request
// the engine refuses still gets its 4xx instead of a failed stream; a parsed chat reply goes
// through its parser.
void Server::Impl::stream_one_choice(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange,
                                     std::unique_ptr<const EventEncoder> encoder) {
  GenerationChannel::Update first = job->channel->poll();
  if (first.error) {
    exchange->respond(error_response(*first.error, exchange->request()));
    return job->release_handles();
  }
  std::vector<StreamChoice> choices(1);
  choices[0].channel = job->channel;
  choices[0].encoder = std::move(encoder);
  if (const ChatPrompt* p = parsed_prompt(job->request)) choices[0].parser = std::make_unique<ChatReplyParser>(*p);
  auto pump = std::make_shared<StreamPump>(std::move(choices), std::move(exchange),
                                           [this](std::function<void()> step) { on_route_pool(std::move(step)); },
                                           [job] { job->cancel(); }, [job] { job->release_handles(); });
  pump->start(std::move(first));
}

}  // namespace ogai::serve
