// Prometheus text of the server's metrics and the summaries' quantiles.
#include <gtest/gtest.h>

#include "serve/metrics.h"

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

}  // namespace
}  // namespace ogai::serve
