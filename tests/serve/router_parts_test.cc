// The router's request reading and metrics merging (src/serve/router/): which model a JSON or
// multipart body asks for, and one Prometheus exposition from the router's and its models'.
#include <gtest/gtest.h>

#include "serve/router/metrics_merge.h"
#include "serve/router/request_model.h"

namespace ogai::serve::router {
namespace {

TEST(RequestModel, ReadsTheTopLevelModelStringOnly) {
  EXPECT_EQ(json_model_field(R"({"model":"a","messages":[]})"), "a");
  EXPECT_EQ(json_model_field(R"({"messages":[{"model":"inner"}],"stream":true,"model":"outer"})"), "outer");
  EXPECT_EQ(json_model_field(R"({"x":{"model":"inner"}})"), std::nullopt);
  EXPECT_EQ(json_model_field(R"({"model":7})"), std::nullopt);
  EXPECT_EQ(json_model_field(R"({"model":null,"x":"a"})"), std::nullopt);
  EXPECT_EQ(json_model_field(R"([{"model":"a"}])"), std::nullopt);
  EXPECT_EQ(json_model_field("not json"), std::nullopt);
  EXPECT_EQ(json_model_field(""), std::nullopt);
  EXPECT_EQ(json_model_field(R"({"model":"caf\u00e9"})"), "caf\xc3\xa9");
}

TEST(RequestModel, StopsAtTheModelKeyOfATruncatedBody) {
  EXPECT_EQ(json_model_field(R"({"model":"a","messages":[{"role":"us)"), "a");
}

TEST(RequestModel, ReadsTheModelFieldOfAMultipartForm) {
  const std::string body =
      "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n"
      "RIFF....\r\n--XyZ\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper\r\n--XyZ--\r\n";
  EXPECT_EQ(multipart_model_field("multipart/form-data; boundary=XyZ", body), "whisper");
  EXPECT_EQ(multipart_model_field("multipart/form-data; boundary=Other", body), std::nullopt);
  http::Request request;
  request.fields = {{"Content-Type", "Multipart/Form-Data; boundary=XyZ"}};
  request.body = body;
  EXPECT_EQ(requested_model(request), "whisper");
  request.fields = {{"Content-Type", "application/json"}};
  request.body = R"({"model":"m"})";
  EXPECT_EQ(requested_model(request), "m");
}

TEST(MetricsMerge, AddsTheModelLabelFirst) {
  EXPECT_EQ(with_model_label("x_total 3", "a"), "x_total{model=\"a\"} 3");
  EXPECT_EQ(with_model_label("x{k=\"v\"} 3", "a"), "x{model=\"a\",k=\"v\"} 3");
  EXPECT_EQ(with_model_label("x{} 3", "a"), "x{model=\"a\"} 3");
  EXPECT_EQ(with_model_label("x 1", "q\"\\"), "x{model=\"q\\\"\\\\\"} 1");
}

TEST(MetricsMerge, OneFamilyPerNameTheRouterOwningItsOwn) {
  const std::string front =
      "# HELP http_total Requests.\n# TYPE http_total counter\nhttp_total{endpoint=\"/x\"} 4\n";
  const std::string model_a =
      "# HELP http_total Requests.\n# TYPE http_total counter\n"
      "# HELP gen_total Tokens.\n# TYPE gen_total counter\ngen_total 5\n"
      "# HELP lat Latency.\n# TYPE lat summary\nlat{quantile=\"0.5\"} 0.1\nlat_sum 1\nlat_count 2\n";
  const std::string model_b = "# HELP gen_total Tokens.\n# TYPE gen_total counter\ngen_total 7\n";
  const std::string merged = merge_model_metrics(front, {{"a", model_a}, {"b", model_b}});
  EXPECT_EQ(merged,
            "# HELP http_total Requests.\n# TYPE http_total counter\nhttp_total{endpoint=\"/x\"} 4\n"
            "# HELP gen_total Tokens.\n# TYPE gen_total counter\ngen_total{model=\"a\"} 5\ngen_total{model=\"b\"} 7\n"
            "# HELP lat Latency.\n# TYPE lat summary\nlat{model=\"a\",quantile=\"0.5\"} 0.1\nlat_sum{model=\"a\"} 1\n"
            "lat_count{model=\"a\"} 2\n");
}

}  // namespace
}  // namespace ogai::serve::router
