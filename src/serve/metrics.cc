#include "serve/metrics.h"

#include <fmt/format.h>

namespace ogai::serve {
namespace {

void header(std::string& out, const char* name, const char* type, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void write_engine(std::string& out, const EngineStats& e) {
  auto metric = [&](const char* name, const char* type, const char* help, auto value) {
    header(out, name, type, help);
    out += fmt::format("{} {}\n", name, value);
  };
  metric("ogai_engine_steps_total", "counter", "Batched decode runs of the engine.", e.steps);
  metric("ogai_engine_decoded_rows_total", "counter", "Rows over all decode runs (divided by steps: the mean batch).",
         e.decoded_rows);
  metric("ogai_engine_max_batch", "gauge", "Most rows one decode run held.", e.max_batch);
  metric("ogai_engine_prefill_tokens_total", "counter", "Prompt tokens prefilled.", e.prefill_tokens);
  metric("ogai_prefix_cache_hits_total", "counter", "Admitted prompts that reused cached KV.", e.prefix_hits);
  metric("ogai_prefix_cache_misses_total", "counter", "Admitted prompts that found no cached prefix.", e.prefix_misses);
  metric("ogai_prefix_cache_reused_tokens_total", "counter", "Prompt tokens not prefilled thanks to the prefix cache.",
         e.prefix_reused_tokens);
  metric("ogai_prefix_cache_bytes", "gauge", "KV bytes the prefix cache holds.", e.prefix_cache_bytes);
  metric("ogai_kv_cache_bytes", "gauge", "KV bytes the decoding batch holds.", e.kv_bytes);
  metric("ogai_kv_cache_budget_bytes", "gauge", "Bound on the KV the admitted requests may grow to.", e.kv_budget_bytes);
}

}  // namespace

void Metrics::count_request(const std::string& endpoint, int status) {
  std::lock_guard lock(mutex_);
  ++requests_[{endpoint, status}];
}

void Metrics::observe_generation(const GenerationResult& result) {
  {
    std::lock_guard lock(mutex_);
    ++finishes_[finish_reason_name(result.finish_reason)];
  }
  prompt_tokens_ += result.prompt_ids.size();
  generated_tokens_ += result.ids.size();
  if (result.ids.empty()) return;
  ttft_.observe(result.timings.ttft_ms / 1000.0);
  if (result.ids.size() > 1 && result.timings.decode_tok_s > 0) decode_rate_.observe(result.timings.decode_tok_s);
}

std::string Metrics::prometheus_text(int in_flight, int queued, const EngineStats& engine) const {
  std::string out;
  {
    std::lock_guard lock(mutex_);
    header(out, "ogai_http_requests_total", "counter", "HTTP requests answered, by endpoint and status code.");
    for (const auto& [key, n] : requests_)
      out += fmt::format("ogai_http_requests_total{{endpoint=\"{}\",status=\"{}\"}} {}\n", key.first, key.second, n);
    header(out, "ogai_generations_total", "counter", "Generations ended, by finish reason.");
    for (const auto& [reason, n] : finishes_)
      out += fmt::format("ogai_generations_total{{finish_reason=\"{}\"}} {}\n", reason, n);
  }
  header(out, "ogai_prompt_tokens_total", "counter", "Prompt tokens processed.");
  out += fmt::format("ogai_prompt_tokens_total {}\n", prompt_tokens_.load());
  header(out, "ogai_generated_tokens_total", "counter", "Tokens generated.");
  out += fmt::format("ogai_generated_tokens_total {}\n", generated_tokens_.load());
  header(out, "ogai_requests_in_flight", "gauge", "Generations running now.");
  out += fmt::format("ogai_requests_in_flight {}\n", in_flight);
  header(out, "ogai_queue_depth", "gauge", "Requests waiting for a free generation slot.");
  out += fmt::format("ogai_queue_depth {}\n", queued);
  ttft_.write(out, "ogai_time_to_first_token_seconds", "Time to first token (prefill and first sampling).");
  decode_rate_.write(out, "ogai_decode_tokens_per_second", "Decode rate of each generation after its first token.");
  queue_wait_.write(out, "ogai_queue_wait_seconds", "Time from admission to the start of generation.");
  write_engine(out, engine);
  return out;
}

}  // namespace ogai::serve
