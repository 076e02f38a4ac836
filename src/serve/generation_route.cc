// POST /v1/chat/completions and /v1/completions: parse, build the prompt, admit the job to the
// scheduler (the batched engine), then answer it whole or as server-sent events while the engine
// generates.
#include <fmt/format.h>

#include <algorithm>

#include "serve/logprobs_json.h"
#include "serve/prompt.h"
#include "serve/server_impl.h"
#include "serve/stream_encoder.h"

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

// Writes one streaming response from its first update to the end; false when the client is gone.
// `logprobs` is null when the request did not ask for them.
bool pump(GenerationChannel& channel, const StreamEncoder& encoder, LogprobsJson* logprobs,
          GenerationChannel::Update update, httplib::DataSink& sink) {
  std::string out = encoder.start();
  for (;;) {
    if (!update.text.empty())
      out += encoder.text(update.text, logprobs ? (*logprobs)(update.logprobs) : nlohmann::json(nullptr));
    if (update.error) out += encoder.error(*update.error);
    else if (update.result) out += encoder.finish(*update.result);
    if (!out.empty() && !sink.write(out.data(), out.size())) {
      channel.cancel();  // the client went away: the engine's next token ends the generation
      return false;
    }
    out.clear();
    if (update.finished()) break;
    update = channel.wait();
  }
  sink.done();
  return true;
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

void Server::Impl::handle_generation(Endpoint endpoint, const httplib::Request& req, httplib::Response& res) {
  try {
    ApiRequest request = endpoint == Endpoint::kChat ? parse_chat_request(req.body) : parse_completion_request(req.body);
    if (request.model != name) throw model_not_found(request.model, name);
    std::vector<std::int32_t> prompt = prompt_ids(*model, request);
    std::shared_ptr<Job> job = admit(std::move(request), std::move(prompt));
    if (job->request.stream)
      answer_stream(job, res);
    else
      answer_whole(*job, res);
  } catch (const ApiError& e) {
    if (e.status == 429) res.set_header("Retry-After", "1");
    write_error(res, e);
  } catch (const Error& e) {
    write_error(res, from_engine_error(e, endpoint));
  }
}

void Job::cancel() {
  for (auto& c : channels) c->cancel();
  std::lock_guard lock(handles_mutex);
  for (auto& h : handles) h->cancel();
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
  submission.options = job->request.options;
  submission.n = job->request.n;
  // The engine's thread holds the job alive through these callbacks until every choice ended.
  submission.on_token = [this, job](int choice, const StreamEvent& e) {
    return !scheduler.stopping() && job->channels[static_cast<std::size_t>(choice)]->on_token(e.text, e.logprobs);
  };
  submission.on_done = [this, job](int choice, GenerationHandle& handle) { finish_choice(*job, choice, handle); };
  std::vector<std::shared_ptr<GenerationHandle>> handles;
  switch (scheduler.submit(std::move(submission), &handles)) {
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

void Server::Impl::answer_whole(Job& job, httplib::Response& res) {
  if (job.channels.size() > 1) return answer_choices(job, res);
  GenerationChannel::Update end = job.channel->wait_finished();
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
  res.set_content(to_text(completion_json(job.meta, *end.result, std::move(logprobs))), "application/json");
}

// n > 1 (not streamed, no echo): one choice per channel, index i = choice i (seed + i).
void Server::Impl::answer_choices(Job& job, httplib::Response& res) {
  std::vector<GenerationResult> results;
  std::vector<nlohmann::json> logprobs;
  LogprobsJson logprobs_json(*model, job.meta.endpoint);
  for (auto& channel : job.channels) {
    GenerationChannel::Update end = channel->wait_finished();
    if (end.error) {
      job.cancel();
      throw *end.error;
    }
    logprobs.push_back(job.request.options.logprobs ? logprobs_json(end.result->logprobs) : nlohmann::json(nullptr));
    results.push_back(std::move(*end.result));
  }
  res.set_content(to_text(completion_choices_json(job.meta, results, std::move(logprobs))), "application/json");
}

// Waits for the first token before answering, so a request the engine refuses (a sampling value
// out of range, say) still gets its 4xx instead of a stream that fails.
void Server::Impl::answer_stream(const std::shared_ptr<Job>& job, httplib::Response& res) {
  GenerationChannel::Update first = job->channel->wait();
  if (first.error) throw *first.error;
  auto encoder = std::make_shared<StreamEncoder>(job->meta, job->request.include_usage);
  auto pending = std::make_shared<GenerationChannel::Update>(std::move(first));
  std::shared_ptr<LogprobsJson> logprobs;
  if (job->request.options.logprobs) logprobs = std::make_shared<LogprobsJson>(*model, job->meta.endpoint);
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [job, encoder, pending, logprobs](std::size_t, httplib::DataSink& sink) {
        return pump(*job->channel, *encoder, logprobs.get(), std::move(*pending), sink);
      },
      [job](bool) { job->cancel(); });  // ends a generation whose response was never sent
}

}  // namespace ogai::serve
