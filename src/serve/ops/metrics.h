// Metrics: what GET /metrics reports, in Prometheus' text exposition format (version 0.0.4):
//   ogai_http_requests_total{endpoint,status}   counter  every answered HTTP request
//   ogai_generations_total{finish_reason}       counter  eos / stop / length / cancelled
//   ogai_prompt_tokens_total                    counter
//   ogai_generated_tokens_total                 counter
//   ogai_spec_decode_draft_tokens_total         counter  speculative decoding: tokens proposed
//   ogai_spec_decode_accepted_tokens_total      counter  ... and accepted by the model
//   ogai_requests_in_flight                     gauge    generations running now
//   ogai_queue_depth                            gauge    requests waiting for a worker
//   ogai_media_inputs_total{kind}               counter  images / audio clips in parsed requests
//                                                        (chat, Responses, Messages, transcriptions)
//   ogai_time_to_first_token_seconds            summary  prefill + first sampling
//   ogai_decode_tokens_per_second               summary  per generation, after the first token
//   ogai_queue_wait_seconds                     summary  admission to start of generation
// and the batched engine's (EngineStats, read at scrape time):
//   ogai_engine_steps_total                     counter  batched decode runs
//   ogai_engine_decoded_rows_total              counter  rows over those runs (/ steps = mean batch)
//   ogai_engine_max_batch                       gauge    most rows one decode run held
//   ogai_engine_prefill_tokens_total            counter  prompt tokens prefilled
//   ogai_prefix_cache_hits_total / _misses_total counter admitted prompts that did / did not reuse KV
//   ogai_prefix_cache_reused_tokens_total       counter  prompt tokens not prefilled thanks to hits
//   ogai_prefix_cache_bytes                     gauge    KV the prefix cache holds
//   ogai_kv_cache_bytes / ogai_kv_cache_budget_bytes gauge KV the batch holds, and its bound
// The names inference-aware gateways, autoscalers and dashboards read (vLLM's; docs/deploy.md
// sets them beside the Gateway API Inference Extension's model-server protocol), each with a
// model_name label:
//   vllm:num_requests_running / vllm:num_requests_waiting   gauge  rows decoding / admitted, waiting
//   vllm:kv_cache_usage_perc (and the older vllm:gpu_cache_usage_perc) gauge ogai_kv_cache_bytes / budget, 0-1
//   vllm:prefix_cache_queries_total / _hits_total           counter prompt tokens looked up / found cached
//   vllm:prompt_tokens_total, vllm:generation_tokens_total  counter
//   vllm:spec_decode_num_draft_tokens_total / _num_accepted_tokens_total counter (as ogai_spec_decode_*)
//   vllm:request_success_total{finished_reason}             counter stop / length / abort
//   vllm:time_to_first_token_seconds                        histogram queue + prefill + first sampling
//   vllm:inter_token_latency_seconds                        histogram a generation's mean gap, once per gap
//   vllm:e2e_request_latency_seconds                        histogram admission to last token
//   vllm:request_queue_time_seconds / _prefill_time_seconds / _decode_time_seconds histogram
// plus the process metrics (process_metrics.h) and ogai_replica_info{replica_id} 1.
// The summaries above report NaN quantiles until their first observation (never a made-up 0).
// Endpoint labels are the server's routes; any other path counts as "other". Thread-safe.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "ogai/ogai.h"
#include "serve/ops/histogram.h"
#include "serve/ops/summary.h"

namespace ogai::serve {

class Metrics {
 public:
  void count_request(const std::string& endpoint, int status);
  void observe_generation(const GenerationResult& result);
  void observe_queue_wait(double seconds) { queue_wait_.observe(seconds); }
  void count_media(std::size_t images, std::size_t audio) {
    media_images_ += images;
    media_audio_ += audio;
  }
  // The model_name label of the vllm:* samples and the replica id of ogai_replica_info; set once,
  // before the first scrape.
  void set_identity(std::string model_name, std::string replica_id);

  // `in_flight`, `queued` and `engine` are read from the scheduler at scrape time.
  std::string prometheus_text(int in_flight, int queued, const EngineStats& engine = {}) const;
  // Only the front's series: HTTP requests, replica and build info, process metrics (a router
  // writes these once beside its models' generation series; router/metrics_merge.h).
  std::string front_text() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;  // (endpoint, status) -> count
  std::map<std::string, std::uint64_t> finishes_;                  // finish reason -> count
  std::atomic<std::uint64_t> prompt_tokens_{0};
  std::atomic<std::uint64_t> generated_tokens_{0};
  std::atomic<std::uint64_t> draft_tokens_{0};
  std::atomic<std::uint64_t> accepted_draft_tokens_{0};
  std::atomic<std::uint64_t> media_images_{0};
  std::atomic<std::uint64_t> media_audio_{0};
  Summary ttft_;
  Summary decode_rate_;
  Summary queue_wait_;
  std::string labels_;      // model_name="..."
  std::string replica_id_;
  std::map<std::string, std::uint64_t> successes_;  // vLLM's finished_reason -> count
  Histogram ttft_hist_{request_latency_buckets()};
  Histogram itl_hist_{token_latency_buckets()};
  Histogram e2e_hist_{request_latency_buckets()};
  Histogram queue_hist_{request_latency_buckets()};
  Histogram prefill_hist_{request_latency_buckets()};
  Histogram decode_hist_{request_latency_buckets()};
};

// The Responses store's gauges (entries, bytes held, byte bound), appended to `out`.
void write_store_metrics(std::string& out, std::size_t entries, std::size_t bytes, std::size_t max_bytes);

}  // namespace ogai::serve
