// POST /v1/chat/completions and /v1/completions: parse, build the prompt, admit the job to the
// scheduler, then answer it whole or as server-sent events while a worker generates (the channel
// calls back; no thread waits).
#include <fmt/format.h>

#include <algorithm>

#include "serve/logprobs_json.h"
#include "serve/prompt.h"
#include "serve/server_impl.h"
#include "serve/stream_encoder.h"
#include "serve/stream_pump.h"

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

}  // namespace

std::string Server::Impl::next_id(Endpoint endpoint) {
  std::uint64_t bits;
  {
    std::lock_guard lock(id_mutex);
    bits = id_rng();
  }
  return fmt::format("{}-{:016x}", endpoint == Endpoint::kChat ? "chatcmpl" : "cmpl", bits);
}

void Server::Impl::handle_generation(Endpoint endpoint, const std::shared_ptr<http::Exchange>& exchange) {
  try {
    const std::string& body = exchange->request().body;
    ApiRequest request = endpoint == Endpoint::kChat ? parse_chat_request(body) : parse_completion_request(body);
    if (request.model != name) throw model_not_found(request.model, name);
    std::vector<std::int32_t> prompt = prompt_ids(*model, request);
    std::shared_ptr<Job> job = admit(std::move(request), std::move(prompt));
    if (job->request.stream)
      answer_stream(job, exchange);
    else
      answer_whole(job, exchange);
  } catch (const ApiError& e) {
    exchange->respond(error_response(e));
  } catch (const Error& e) {
    exchange->respond(error_response(from_engine_error(e, endpoint)));
  }
}

std::shared_ptr<Job> Server::Impl::admit(ApiRequest request, std::vector<std::int32_t> prompt) {
  auto job = std::make_shared<Job>();
  job->meta = {request.endpoint, next_id(request.endpoint), static_cast<std::int64_t>(std::time(nullptr)), name};
  job->channel = std::make_shared<GenerationChannel>(request.stream);
  job->request = std::move(request);
  job->prompt = std::move(prompt);
  job->admitted = std::chrono::steady_clock::now();
  Scheduler::Task task{[this, job] { run_job(*job); }, [job] { job->channel->fail(shutting_down()); }};
  switch (scheduler.submit(std::move(task))) {
    case Scheduler::Admission::kAccepted: return job;
    case Scheduler::Admission::kQueueFull: throw queue_full(options.max_concurrent, options.queue);
    case Scheduler::Admission::kStopping: throw shutting_down();
  }
  throw internal_error("unknown admission result");
}

void Server::Impl::run_job(Job& job) {
  metrics.observe_queue_wait(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - job.admitted).count());
  GenerationChannel& channel = *job.channel;
  auto on_token = [&](const StreamEvent& e) { return !scheduler.stopping() && channel.on_token(e.text, e.logprobs); };
  try {
    GenerationResult result = model->generate(job.prompt, job.request.options, on_token);
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
  job->channel->when_ready([this, job, exchange = std::move(exchange)] {
    on_route_pool([this, job, exchange] {
      try {
        exchange->respond(whole_response(*job));
      } catch (const ApiError& e) {
        exchange->respond(error_response(e));
      } catch (const Error& e) {
        exchange->respond(error_response(from_engine_error(e, job->meta.endpoint)));
      } catch (const std::exception& e) {
        exchange->respond(error_response(internal_error(e.what())));
      }
    });
  });
}

http::Response Server::Impl::whole_response(Job& job) {
  GenerationChannel::Update end = job.channel->poll();
  if (end.error) throw *end.error;
  nlohmann::json logprobs;
  LogprobsJson logprobs_json(*model, job.meta.endpoint);
  if (job.request.echo) {  // completions: the prompt first (text and logprobs)
    GenerationResult& result = *end.result;
    if (job.request.options.logprobs) logprobs = logprobs_json.prompt(result.prompt_logprobs, result.prompt_ids);
    const std::string prompt = job.request.prompt_text ? *job.request.prompt_text
                                                       : model->detokenize(result.prompt_ids, true);
    result.text = prompt + result.text;
  }
  if (job.request.options.logprobs) {
    nlohmann::json generated = logprobs_json(end.result->logprobs);
    if (logprobs.is_null()) logprobs = std::move(generated);
    else LogprobsJson::append(logprobs, generated);
  }
  http::Response res;
  res.body = to_text(completion_json(job.meta, *end.result, std::move(logprobs)));
  return res;
}

// Answers once the first token exists, so a request the engine refuses (a sampling value out of
// range, say) still gets its 4xx instead of a stream that fails.
void Server::Impl::answer_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  job->channel->when_ready([this, job, exchange = std::move(exchange)] {
    on_route_pool([this, job, exchange] { start_stream(job, exchange); });
  });
}

void Server::Impl::start_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  GenerationChannel::Update first = job->channel->poll();
  if (first.error) return exchange->respond(error_response(*first.error));
  std::optional<LogprobsJson> logprobs;
  if (job->request.options.logprobs) logprobs.emplace(*model, job->meta.endpoint);
  auto pump = std::make_shared<StreamPump>(job->channel, std::move(exchange),
                                           StreamEncoder(job->meta, job->request.include_usage), std::move(logprobs),
                                           [this](std::function<void()> step) { on_route_pool(std::move(step)); });
  pump->start(std::move(first));
}

}  // namespace ogai::serve
