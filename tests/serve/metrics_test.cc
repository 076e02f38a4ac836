// Prometheus text of the server's metrics and the summaries' quantiles.
#include <gtest/gtest.h>

#include "serve/ops/metrics.h"

namespace ogai::serve {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(Summary, QuantilesOverTheRecentWindow) {
  Summary s(100);
  for (int i = 1; i <= 100; ++i) s.observe(i);
  EXPECT_EQ(s.quantile(0.5), 50);
  EXPECT_EQ(s.quantile(0.99), 99);
  for (int i = 0; i < 100; ++i) s.observe(1000);  // the window now holds only these
  EXPECT_EQ(s.quantile(0.5), 1000);
  EXPECT_EQ(s.count(), 200u);
  std::string out;
  s.write(out, "x_seconds", "help");
  EXPECT_TRUE(has_line(out, "# TYPE x_seconds summary"));
  EXPECT_TRUE(has_line(out, "x_seconds{quantile=\"0.5\"} 1000"));
  EXPECT_TRUE(has_line(out, "x_seconds_sum 105050"));
  EXPECT_TRUE(has_line(out, "x_seconds_count 200"));
}

TEST(Metrics, PrometheusText) {
  Metrics m;
  m.count_request("/v1/completions", 200);
  m.count_request("/v1/completions", 200);
  m.count_request("/v1/completions", 400);
  GenerationResult r;
  r.prompt_ids = {1, 2, 3};
  r.ids = {4, 5};
  r.finish_reason = FinishReason::kEos;
  r.timings.ttft_ms = 20;
  r.timings.decode_tok_s = 500;
  m.observe_generation(r);
  std::string text = m.prometheus_text(3, 7);
  EXPECT_TRUE(has_line(text, "ogai_http_requests_total{endpoint=\"/v1/completions\",status=\"200\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "ogai_http_requests_total{endpoint=\"/v1/completions\",status=\"400\"} 1"));
  EXPECT_TRUE(has_line(text, "ogai_generations_total{finish_reason=\"eos\"} 1"));
  EXPECT_TRUE(has_line(text, "ogai_prompt_tokens_total 3"));
  EXPECT_TRUE(has_line(text, "ogai_generated_tokens_total 2"));
  EXPECT_TRUE(has_line(text, "ogai_requests_in_flight 3"));
  EXPECT_TRUE(has_line(text, "ogai_queue_depth 7"));
  EXPECT_TRUE(has_line(text, "ogai_time_to_first_token_seconds{quantile=\"0.5\"} 0.02"));
  EXPECT_TRUE(has_line(text, "ogai_decode_tokens_per_second_count 1"));
}

TEST(Summary, AFreshSummaryReportsNaNNotZero) {
  Summary s;
  std::string out;
  s.write(out, "x_seconds", "help");
  EXPECT_TRUE(has_line(out, "x_seconds{quantile=\"0.99\"} NaN")) << out;
  EXPECT_TRUE(has_line(out, "x_seconds_count 0"));
}

TEST(Histogram, CumulativeBucketsSumAndCount) {
  Histogram h({0.1, 1, 10});
  h.observe(0.05);
  h.observe(0.1);      // le is inclusive
  h.observe(5, 3);     // three observations at once
  h.observe(100);
  std::string out;
  h.write(out, "lat_seconds", "help", "model_name=\"m\"");
  EXPECT_TRUE(has_line(out, "# TYPE lat_seconds histogram")) << out;
  EXPECT_TRUE(has_line(out, "lat_seconds_bucket{model_name=\"m\",le=\"0.1\"} 2")) << out;
  EXPECT_TRUE(has_line(out, "lat_seconds_bucket{model_name=\"m\",le=\"1\"} 2"));
  EXPECT_TRUE(has_line(out, "lat_seconds_bucket{model_name=\"m\",le=\"10\"} 5"));
  EXPECT_TRUE(has_line(out, "lat_seconds_bucket{model_name=\"m\",le=\"+Inf\"} 6"));
  EXPECT_TRUE(has_line(out, "lat_seconds_count{model_name=\"m\"} 6"));
  EXPECT_DOUBLE_EQ(h.sum(), 0.05 + 0.1 + 15 + 100);
  std::string bare;
  Histogram({1}).write(bare, "x", "help", "");
  EXPECT_TRUE(has_line(bare, "x_bucket{le=\"+Inf\"} 0")) << bare;
  EXPECT_TRUE(has_line(bare, "x_count 0"));
}

TEST(Metrics, VllmNamesForGatewaysAndAutoscalers) {
  Metrics m;
  m.set_identity("stories", "r1");
  std::string fresh = m.prometheus_text(0, 0);
  EXPECT_TRUE(has_line(fresh, "vllm:time_to_first_token_seconds_count{model_name=\"stories\"} 0")) << fresh;
  EXPECT_EQ(fresh.find("quantile=\"0.99\"} 0\n"), std::string::npos) << "a fresh server reports p99 0";
  GenerationResult r;
  r.prompt_ids = {1, 2, 3, 4};
  r.ids = {5, 6, 7, 8, 9};
  r.finish_reason = FinishReason::kLength;
  r.timings.queue_ms = 30;
  r.timings.prefill_ms = 40;
  r.timings.ttft_ms = 80;
  r.timings.decode_ms = 40;  // 4 gaps of 10 ms
  m.observe_generation(r);
  EngineStats e;
  e.kv_bytes = 250;
  e.kv_budget_bytes = 1000;
  e.prefill_tokens = 30;
  e.prefix_reused_tokens = 10;
  const std::string text = m.prometheus_text(2, 5, e);
  const std::string l = "{model_name=\"stories\"}";
  EXPECT_TRUE(has_line(text, "vllm:num_requests_running" + l + " 2")) << text;
  EXPECT_TRUE(has_line(text, "vllm:num_requests_waiting" + l + " 5"));
  EXPECT_TRUE(has_line(text, "vllm:kv_cache_usage_perc" + l + " 0.25"));
  EXPECT_TRUE(has_line(text, "vllm:gpu_cache_usage_perc" + l + " 0.25"));
  EXPECT_TRUE(has_line(text, "vllm:prefix_cache_queries_total" + l + " 40"));
  EXPECT_TRUE(has_line(text, "vllm:prefix_cache_hits_total" + l + " 10"));
  EXPECT_TRUE(has_line(text, "vllm:prompt_tokens_total" + l + " 4"));
  EXPECT_TRUE(has_line(text, "vllm:generation_tokens_total" + l + " 5"));
  EXPECT_TRUE(has_line(text, "vllm:request_success_total{model_name=\"stories\",finished_reason=\"length\"} 1"));
  EXPECT_TRUE(has_line(text, "vllm:time_to_first_token_seconds_bucket{model_name=\"stories\",le=\"0.075\"} 0"));
  EXPECT_TRUE(has_line(text, "vllm:time_to_first_token_seconds_bucket{model_name=\"stories\",le=\"0.1\"} 1"));
  EXPECT_TRUE(has_line(text, "vllm:inter_token_latency_seconds_count" + l + " 4"));
  EXPECT_TRUE(has_line(text, "vllm:inter_token_latency_seconds_bucket{model_name=\"stories\",le=\"0.01\"} 4"));
  EXPECT_TRUE(has_line(text, "vllm:e2e_request_latency_seconds_sum" + l + " 0.12"));
  EXPECT_TRUE(has_line(text, "vllm:request_queue_time_seconds_sum" + l + " 0.03"));
  EXPECT_TRUE(has_line(text, "ogai_replica_info{replica_id=\"r1\"} 1"));
  EXPECT_NE(text.find("\nprocess_resident_memory_bytes "), std::string::npos);
  EXPECT_NE(text.find("\nprocess_cpu_seconds_total "), std::string::npos);
  EXPECT_NE(text.find("\nprocess_start_time_seconds "), std::string::npos);
}

}  // namespace
}  // namespace ogai::serve
