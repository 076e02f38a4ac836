#include "serve/ops/metrics.h"

#include <fmt/format.h>

#include <algorithm>

#include "ogai/model.h"
#include "ogai/version.h"
#include "serve/ops/process_metrics.h"

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

// vLLM's finished_reason label values.
const char* vllm_finished_reason(FinishReason reason) {
  switch (reason) {
    case FinishReason::kLength: return "length";
    case FinishReason::kCancelled: return "abort";
    default: return "stop";
  }
}

// Prometheus label values escape backslash, double quote and newline.
std::string label_value(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// The series gateways and autoscalers read, in vLLM's names; `labels` is model_name="...".
void write_vllm_gauges(std::string& out, const std::string& labels, int running, int waiting, const EngineStats& e) {
  auto metric = [&](const char* name, const char* type, const char* help, auto value) {
    header(out, name, type, help);
    out += fmt::format("{}{} {}\n", name, labels.empty() ? "" : "{" + labels + "}", value);
  };
  metric("vllm:num_requests_running", "gauge", "Requests prefilling or decoding (rows of the engine's batch).", running);
  metric("vllm:num_requests_waiting", "gauge", "Admitted requests waiting for a row.", waiting);
  const double usage = e.kv_budget_bytes == 0 ? 0.0
                       : std::min(1.0, static_cast<double>(e.kv_bytes) / static_cast<double>(e.kv_budget_bytes));
  metric("vllm:kv_cache_usage_perc", "gauge", "KV cache usage: the batch's KV over its bound, 0-1.", usage);
  metric("vllm:gpu_cache_usage_perc", "gauge", "The older name of vllm:kv_cache_usage_perc (the same value).", usage);
  metric("vllm:prefix_cache_queries_total", "counter", "Prompt tokens looked up in the prefix cache.",
         e.prefill_tokens + e.prefix_reused_tokens);
  metric("vllm:prefix_cache_hits_total", "counter", "Prompt tokens found in the prefix cache (not prefilled).",
         e.prefix_reused_tokens);
}

}  // namespace

void Metrics::set_identity(std::string model_name, std::string replica_id) {
  std::lock_guard lock(mutex_);
  labels_ = "model_name=\"" + label_value(model_name) + "\"";
  replica_id_ = std::move(replica_id);
}

void Metrics::count_request(const std::string& endpoint, int status) {
  std::lock_guard lock(mutex_);
  ++requests_[{endpoint, status}];
}

void Metrics::observe_generation(const GenerationResult& result) {
  {
    std::lock_guard lock(mutex_);
    ++finishes_[finish_reason_name(result.finish_reason)];
    ++successes_[vllm_finished_reason(result.finish_reason)];
  }
  prompt_tokens_ += result.prompt_ids.size();
  generated_tokens_ += result.ids.size();
  draft_tokens_ += static_cast<std::uint64_t>(result.draft_tokens);
  accepted_draft_tokens_ += static_cast<std::uint64_t>(result.accepted_draft_tokens);
  const Timings& t = result.timings;
  queue_hist_.observe(t.queue_ms / 1000.0);
  if (result.ids.empty()) return;
  ttft_.observe(t.ttft_ms / 1000.0);
  ttft_hist_.observe(t.ttft_ms / 1000.0);
  e2e_hist_.observe((t.ttft_ms + t.decode_ms) / 1000.0);
  prefill_hist_.observe(t.prefill_ms / 1000.0);
  decode_hist_.observe(t.decode_ms / 1000.0);
  if (const std::size_t gaps = result.ids.size() - 1; gaps > 0)
    itl_hist_.observe(t.decode_ms / 1000.0 / static_cast<double>(gaps), gaps);
  if (result.ids.size() > 1 && result.timings.decode_tok_s > 0) decode_rate_.observe(result.timings.decode_tok_s);
}

void write_store_metrics(std::string& out, std::size_t entries, std::size_t bytes, std::size_t max_bytes) {
  header(out, "ogai_responses_store_entries", "gauge", "Responses kept for previous_response_id and GET.");
  out += fmt::format("ogai_responses_store_entries {}\n", entries);
  header(out, "ogai_responses_store_bytes", "gauge", "Text the Responses store holds.");
  out += fmt::format("ogai_responses_store_bytes {}\n", bytes);
  header(out, "ogai_responses_store_max_bytes", "gauge", "The store's byte bound (--responses-store-bytes).");
  out += fmt::format("ogai_responses_store_max_bytes {}\n", max_bytes);
}

std::string Metrics::front_text() const {
  std::string out;
  {
    std::lock_guard lock(mutex_);
    header(out, "ogai_http_requests_total", "counter", "HTTP requests answered, by endpoint and status code.");
    for (const auto& [key, n] : requests_)
      out += fmt::format("ogai_http_requests_total{{endpoint=\"{}\",status=\"{}\"}} {}\n", key.first, key.second, n);
    header(out, "ogai_replica_info", "gauge", "This replica's id (--replica-id), as a label.");
    out += fmt::format("ogai_replica_info{{replica_id=\"{}\"}} 1\n", label_value(replica_id_));
  }
  header(out, "ogai_build_info", "gauge", "ogai's version and the ONNX Runtime version it runs on, as labels.");
  out += fmt::format("ogai_build_info{{version=\"{}\",onnxruntime=\"{}\"}} 1\n", OGAI_VERSION_STRING,
                     label_value(onnxruntime_version()));
  write_process_metrics(out);
  return out;
}

std::string Metrics::prometheus_text(int in_flight, int queued, const EngineStats& engine) const {
  std::string out;
  std::string labels;
  {
    std::lock_guard lock(mutex_);
    labels = labels_;
    header(out, "ogai_http_requests_total", "counter", "HTTP requests answered, by endpoint and status code.");
    for (const auto& [key, n] : requests_)
      out += fmt::format("ogai_http_requests_total{{endpoint=\"{}\",status=\"{}\"}} {}\n", key.first, key.second, n);
    header(out, "ogai_generations_total", "counter", "Generations ended, by finish reason.");
    for (const auto& [reason, n] : finishes_)
      out += fmt::format("ogai_generations_total{{finish_reason=\"{}\"}} {}\n", reason, n);
    header(out, "vllm:request_success_total", "counter", "Requests finished, by vLLM's finished_reason.");
    for (const auto& [reason, n] : successes_)
      out += fmt::format("vllm:request_success_total{{{}{}finished_reason=\"{}\"}} {}\n", labels_,
                         labels_.empty() ? "" : ",", reason, n);
    header(out, "ogai_replica_info", "gauge", "This replica's id (--replica-id), as a label.");
    out += fmt::format("ogai_replica_info{{replica_id=\"{}\"}} 1\n", label_value(replica_id_));
  }
  header(out, "ogai_build_info", "gauge", "ogai's version and the ONNX Runtime version it runs on, as labels.");
  out += fmt::format("ogai_build_info{{version=\"{}\",onnxruntime=\"{}\"}} 1\n", OGAI_VERSION_STRING,
                     label_value(onnxruntime_version()));
  header(out, "ogai_prompt_tokens_total", "counter", "Prompt tokens processed.");
  out += fmt::format("ogai_prompt_tokens_total {}\n", prompt_tokens_.load());
  header(out, "ogai_generated_tokens_total", "counter", "Tokens generated.");
  out += fmt::format("ogai_generated_tokens_total {}\n", generated_tokens_.load());
  header(out, "ogai_spec_decode_draft_tokens_total", "counter", "Speculative decoding: tokens the drafter proposed.");
  out += fmt::format("ogai_spec_decode_draft_tokens_total {}\n", draft_tokens_.load());
  header(out, "ogai_spec_decode_accepted_tokens_total", "counter", "Speculative decoding: proposed tokens accepted.");
  out += fmt::format("ogai_spec_decode_accepted_tokens_total {}\n", accepted_draft_tokens_.load());
  header(out, "ogai_requests_in_flight", "gauge", "Generations running now.");
  out += fmt::format("ogai_requests_in_flight {}\n", in_flight);
  header(out, "ogai_queue_depth", "gauge", "Requests waiting for a free generation slot.");
  out += fmt::format("ogai_queue_depth {}\n", queued);
  header(out, "ogai_media_inputs_total", "counter", "Images and audio clips in parsed requests, by kind.");
  out += fmt::format("ogai_media_inputs_total{{kind=\"image\"}} {}\n", media_images_.load());
  out += fmt::format("ogai_media_inputs_total{{kind=\"audio\"}} {}\n", media_audio_.load());
  ttft_.write(out, "ogai_time_to_first_token_seconds", "Time to first token (prefill and first sampling).");
  decode_rate_.write(out, "ogai_decode_tokens_per_second", "Decode rate of each generation after its first token.");
  queue_wait_.write(out, "ogai_queue_wait_seconds", "Time from admission to the start of generation.");
  write_engine(out, engine);
  const std::string braces = labels.empty() ? "" : "{" + labels + "}";
  write_vllm_gauges(out, labels, in_flight, queued, engine);
  header(out, "vllm:prompt_tokens_total", "counter", "Prompt tokens processed.");
  out += fmt::format("vllm:prompt_tokens_total{} {}\n", braces, prompt_tokens_.load());
  header(out, "vllm:generation_tokens_total", "counter", "Tokens generated.");
  out += fmt::format("vllm:generation_tokens_total{} {}\n", braces, generated_tokens_.load());
  header(out, "vllm:spec_decode_num_draft_tokens_total", "counter", "Speculative decoding: tokens proposed.");
  out += fmt::format("vllm:spec_decode_num_draft_tokens_total{} {}\n", braces, draft_tokens_.load());
  header(out, "vllm:spec_decode_num_accepted_tokens_total", "counter", "Speculative decoding: tokens accepted.");
  out += fmt::format("vllm:spec_decode_num_accepted_tokens_total{} {}\n", braces, accepted_draft_tokens_.load());
  ttft_hist_.write(out, "vllm:time_to_first_token_seconds", "Time to first token: queue, prefill, first sampling.",
                   labels);
  itl_hist_.write(out, "vllm:inter_token_latency_seconds",
                  "Gap between generated tokens (each generation's mean gap, counted once per gap).", labels);
  e2e_hist_.write(out, "vllm:e2e_request_latency_seconds", "Admission to the last generated token.", labels);
  queue_hist_.write(out, "vllm:request_queue_time_seconds", "Admission to the start of prefill.", labels);
  prefill_hist_.write(out, "vllm:request_prefill_time_seconds", "Prompt processing time.", labels);
  decode_hist_.write(out, "vllm:request_decode_time_seconds", "First to last generated token.", labels);
  write_process_metrics(out);
  return out;
}

}  // namespace ogai::serve
