// POST /v1/completions with several prompts (`prompt` an array of strings or of token-id arrays)
// or with best_of > n: one Job per prompt, each admitted like its own request (its n choices, or
// its best_of candidates, share its prefill; candidate i samples with seed + i), answered as one
// response. Choice index = prompt_index * n + choice (OpenAI's order); usage adds up every
// prompt and every generated token (best_of candidates included, as OpenAI bills them).
//
// best_of: of a prompt's candidates, the n with the highest mean logprob of their sampled
// (reported) tokens are answered, highest first (ties: the lower candidate); a candidate without
// tokens ranks last. Logprobs are asked of the engine for the ranking and answered only when the
// request asked for them.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>

#include "serve/common/prompt.h"
#include "serve/server_impl.h"
#include "serve/openai/stream_encoder.h"
#include "serve/engine/stream_pump.h"

namespace ogai::serve {
namespace {

using Jobs = std::vector<std::shared_ptr<Job>>;

double mean_logprob(const GenerationResult& r) {
  if (r.logprobs.empty()) return -std::numeric_limits<double>::infinity();
  double sum = 0;
  for (const TokenLogprobs& t : r.logprobs) sum += t.logprob;
  return sum / static_cast<double>(r.logprobs.size());
}

// The candidates answered, in order: all of them, or the n best by mean logprob.
std::vector<std::size_t> chosen(const std::vector<GenerationResult>& results, int n, bool rank) {
  std::vector<std::size_t> order(results.size());
  std::iota(order.begin(), order.end(), 0);
  if (!rank) return order;
  std::vector<double> score;
  for (const auto& r : results) score.push_back(mean_logprob(r));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  order.resize(static_cast<std::size_t>(n));
  return order;
}

void cancel_all(const Jobs& jobs) {
  for (const auto& j : jobs) j->cancel();
}

void release_all(const Jobs& jobs) {
  for (const auto& j : jobs) j->release_handles();
}

}  // namespace

bool Server::Impl::is_completion_batch(const ApiRequest& request) {
  return request.endpoint == Endpoint::kCompletion && !request.messages_api &&
         (!request.more_prompts.empty() || request.best_of > request.n);
}

void Server::Impl::admit_completion_batch(const std::shared_ptr<http::Exchange>& exchange, ApiRequest request) {
  const int per = std::max(request.n, request.best_of);
  const char* per_field = request.best_of > request.n ? "best_of" : "n";
  if (per > options.max_concurrent)
    throw invalid_request(per_field, fmt::format("{}: {} choices per prompt; the server runs at most {} at once "
                                                 "(--max-concurrent)", per_field, per, options.max_concurrent));
  std::vector<CompletionPrompt> prompts;
  prompts.push_back({request.prompt_text, request.prompt_ids});
  for (auto& p : request.more_prompts) prompts.push_back(std::move(p));
  request.more_prompts.clear();
  const std::size_t total = prompts.size() * static_cast<std::size_t>(per);
  const std::size_t room = static_cast<std::size_t>(options.max_concurrent) + static_cast<std::size_t>(options.queue);
  if (total > room)
    throw invalid_request("prompt", fmt::format("prompt: {} prompts x {} {} = {} generations; the server takes at most {} "
                                                "at once (--max-concurrent {} + --queue {})",
                                                prompts.size(), per, per_field, total, room, options.max_concurrent,
                                                options.queue));
  const int n = request.n;
  const bool rank = request.best_of > n;
  const bool logprobs_asked = request.options.logprobs.has_value();
  // Every prompt is tokenized (and checked) before any is admitted.
  std::vector<ApiRequest> subs;
  std::vector<std::vector<std::int32_t>> ids;
  for (auto& p : prompts) {
    ApiRequest sub = request;
    sub.prompt_text = std::move(p.text);
    sub.prompt_ids = std::move(p.ids);
    sub.n = per;
    if (rank && !sub.options.logprobs) sub.options.logprobs = 0;
    ids.push_back(prompt_ids(*model, sub));
    subs.push_back(std::move(sub));
  }
  if (exchange->client_gone()) return;
  auto jobs = std::make_shared<Jobs>();
  try {
    for (std::size_t i = 0; i < subs.size(); ++i) jobs->push_back(admit(std::move(subs[i]), std::move(ids[i])));
  } catch (...) {  // queue full midway: the admitted prompts end too
    cancel_all(*jobs);
    release_all(*jobs);
    throw;
  }
  exchange->on_client_gone([weak = std::weak_ptr<Jobs>(jobs)] {
    if (auto j = weak.lock()) cancel_all(*j);
  });
  if (jobs->front()->request.stream) return stream_completion_batch(jobs, exchange);
  auto remaining = std::make_shared<std::atomic<std::size_t>>(total);
  for (const auto& job : *jobs) {
    for (auto& channel : job->channels) {
      channel->when_ready([this, jobs, exchange, remaining, n, rank, logprobs_asked, channel = channel.get()] {
        if (channel->failed()) on_route_pool([jobs] { cancel_all(*jobs); });
        if (remaining->fetch_sub(1) != 1) return;
        on_route_pool([this, jobs, exchange, n, rank, logprobs_asked] {
          try {
            exchange->respond(completion_batch_response(*jobs, n, rank, logprobs_asked));
          } catch (const ApiError& e) {
            exchange->respond(error_response(e, exchange->request()));
          } catch (const Error& e) {
            exchange->respond(error_response(from_engine_error(e, Endpoint::kCompletion), exchange->request()));
          } catch (const std::exception& e) {
            exchange->respond(error_response(internal_error(e.what()), exchange->request()));
          }
          release_all(*jobs);
        });
      });
    }
  }
}

http::Response Server::Impl::completion_batch_response(const std::vector<std::shared_ptr<Job>>& jobs, int n,
                                                       bool rank, bool logprobs_asked) {
  nlohmann::json choices = nlohmann::json::array();
  std::size_t prompt_tokens = 0, completion_tokens = 0;
  // A failed choice cancelled the others: its error is the answer, wherever it is.
  std::vector<std::vector<GenerationChannel::Update>> ends(jobs.size());
  for (std::size_t p = 0; p < jobs.size(); ++p)
    for (auto& channel : jobs[p]->channels) ends[p].push_back(channel->poll());
  for (const auto& prompt_ends : ends)
    for (const auto& end : prompt_ends)
      if (end.error) throw *end.error;
  for (std::size_t p = 0; p < jobs.size(); ++p) {
    Job& job = *jobs[p];
    std::vector<GenerationResult> results;
    std::vector<nlohmann::json> logprobs;
    for (auto& end : ends[p]) {
      logprobs.push_back(choice_logprobs(job, *end.result));
      completion_tokens += end.result->ids.size();
      results.push_back(std::move(*end.result));
    }
    prompt_tokens += results.front().prompt_ids.size();
    const std::vector<std::size_t> order = chosen(results, n, rank);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t c = order[k];
      nlohmann::json lp = logprobs_asked ? std::move(logprobs[c]) : nlohmann::json(nullptr);
      nlohmann::json choice = completion_json(job.meta, results[c], std::move(lp))["choices"][0];
      choice["index"] = p * static_cast<std::size_t>(n) + k;
      choices.push_back(std::move(choice));
    }
  }
  const ResponseMeta& meta = jobs.front()->meta;
  nlohmann::json j = {{"id", meta.id}, {"object", "text_completion"}, {"created", meta.created}, {"model", meta.model}};
  j["choices"] = std::move(choices);
  j["usage"] = usage_json(prompt_tokens, completion_tokens);
  http::Response res;
  res.body = to_text(j);
  return res;
}

// Streamed (best_of is never streamed): once the first prompt's first choice has its first
// update (a refusal still gets its 4xx), every choice of every prompt streams through one pump.
void Server::Impl::stream_completion_batch(const std::shared_ptr<std::vector<std::shared_ptr<Job>>>& jobs,
                                           std::shared_ptr<http::Exchange> exchange) {
  jobs->front()->channel->when_ready([this, jobs, exchange = std::move(exchange)] {
    on_route_pool([this, jobs, exchange] {
      GenerationChannel::Update first = jobs->front()->channel->poll();
      if (first.error) {
        cancel_all(*jobs);
        exchange->respond(error_response(*first.error));
        return release_all(*jobs);
      }
      const Job& head = *jobs->front();
      std::vector<StreamChoice> choices;
      for (const auto& job : *jobs) {
        for (std::size_t i = 0; i < job->channels.size(); ++i) {
          StreamChoice c;
          c.channel = job->channels[i];
          c.encoder = std::make_unique<StreamEncoder>(head.meta, head.request.include_usage,
                                                      static_cast<int>(choices.size()));
          if (head.request.options.logprobs) c.logprobs.emplace(*model, Endpoint::kCompletion);
          c.own_prompt = i == 0;
          choices.push_back(std::move(c));
        }
      }
      auto pump = std::make_shared<StreamPump>(
          std::move(choices), exchange, [this](std::function<void()> step) { on_route_pool(std::move(step)); },
          [jobs] { cancel_all(*jobs); }, [jobs] { release_all(*jobs); });
      pump->start(std::move(first));
    });
  });
}

}  // namespace ogai::serve
