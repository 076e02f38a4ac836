// serve/embeddings/embeddings_api.h: base64 against RFC 4648's test vectors, the answer's JSON (floats that
// read back to the very float32 values, base64 of their little-endian bytes), and the request's
// accepted shapes and refusals (each a 400 naming the field).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "serve/common/api_error.h"
#include "serve/embeddings/embeddings_api.h"

namespace ogai::serve {
namespace {

std::string b64(std::string_view s) {
  return base64_encode({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
}

TEST(EmbeddingsApi, Base64IsRfc4648) {
  EXPECT_EQ(b64(""), "");
  EXPECT_EQ(b64("f"), "Zg==");
  EXPECT_EQ(b64("fo"), "Zm8=");
  EXPECT_EQ(b64("foo"), "Zm9v");
  EXPECT_EQ(b64("foob"), "Zm9vYg==");
  EXPECT_EQ(b64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(b64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(b64("\xff\xfe\xfd"), "//79");
}

TEST(EmbeddingsApi, ResponseFloatsReadBackExactly) {
  const std::vector<std::vector<float>> v{{0.1f, -1e-7f, 3.4028235e38f, 0.0f}, {1.0f / 3.0f}};
  const auto doc = nlohmann::json::parse(embeddings_response(v, false, "m\"x", 7));
  EXPECT_EQ(doc["object"], "list");
  EXPECT_EQ(doc["model"], "m\"x");
  EXPECT_EQ(doc["usage"], (nlohmann::json{{"prompt_tokens", 7}, {"total_tokens", 7}}));
  ASSERT_EQ(doc["data"].size(), 2u);
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(doc["data"][i]["object"], "embedding");
    EXPECT_EQ(doc["data"][i]["index"], i);
    ASSERT_EQ(doc["data"][i]["embedding"].size(), v[i].size());
    for (std::size_t k = 0; k < v[i].size(); ++k)
      EXPECT_EQ(static_cast<float>(doc["data"][i]["embedding"][k].get<double>()), v[i][k]);
  }
  const auto base = nlohmann::json::parse(embeddings_response(v, true, "m", 7));
  const float one[] = {1.0f / 3.0f};
  EXPECT_EQ(base["data"][1]["embedding"], base64_encode({reinterpret_cast<const std::uint8_t*>(one), sizeof one}));
  EXPECT_EQ(base["data"][1]["embedding"], "q6qqPg==");  // 0x3eaaaaab, little-endian
  const std::vector<std::vector<float>> bad{{std::numeric_limits<float>::quiet_NaN()}};
  EXPECT_THROW(embeddings_response(bad, false, "m", 1), ApiError);
}

TEST(EmbeddingsApi, ReadsEveryInputShape) {
  auto r = parse_embeddings_request(R"({"model":"m","input":"hi","user":"u"})", {});
  EXPECT_EQ(r.texts, std::vector<std::string>{"hi"});
  EXPECT_TRUE(r.ids.empty());
  EXPECT_FALSE(r.base64);
  r = parse_embeddings_request(R"({"model":"m","input":["a","b"],"encoding_format":"base64","dimensions":4})", {});
  EXPECT_EQ(r.texts, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(r.base64);
  EXPECT_EQ(r.dimensions, 4);
  r = parse_embeddings_request(R"({"model":"m","input":[1,2,3],"extra":1})", {});
  EXPECT_EQ(r.ids, (std::vector<std::vector<std::int32_t>>{{1, 2, 3}}));
  EXPECT_EQ(r.unknown_fields, std::vector<std::string>{"extra"});
  r = parse_embeddings_request(R"({"model":"m","input":[[1],[2,3]],"encoding_format":"float"})", {});
  EXPECT_EQ(r.ids, (std::vector<std::vector<std::int32_t>>{{1}, {2, 3}}));
}

void expect_refused(const std::string& body, const std::string& param, const std::string& says) {
  try {
    parse_embeddings_request(body, {});
    ADD_FAILURE() << "accepted " << body;
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 400) << body;
    EXPECT_EQ(e.param, param) << body;
    EXPECT_NE(e.message.find(says), std::string::npos) << e.message;
  }
}

TEST(EmbeddingsApi, RefusesMalformedRequests) {
  expect_refused(R"([1])", "", "object");
  expect_refused(R"({"input":"a"})", "model", "required");
  expect_refused(R"({"model":"m"})", "input", "required");
  expect_refused(R"({"model":"m","input":""})", "input", "empty");
  expect_refused(R"({"model":"m","input":[]})", "input", "at least one");
  expect_refused(R"({"model":"m","input":[""]})", "input", "input[0] must not be empty");
  expect_refused(R"({"model":"m","input":["a",1]})", "input", "input[1]");
  expect_refused(R"({"model":"m","input":[[1],"a"]})", "input", "input[1]");
  expect_refused(R"({"model":"m","input":[[1],[]]})", "input", "input[1] must not be empty");
  expect_refused(R"({"model":"m","input":[1,2.5]})", "input", "input[1] is 2.5");
  expect_refused(R"({"model":"m","input":[[1,-1]]})", "input", "input[0][1] is -1");
  expect_refused(R"({"model":"m","input":[3000000000]})", "input", "input[0]");
  expect_refused(R"({"model":"m","input":[true]})", "input", "input[0] is true");
  expect_refused(R"({"model":"m","input":7})", "input", "must be a string");
  expect_refused(R"({"model":"m","input":"a","encoding_format":"int8"})", "encoding_format", "'float' or 'base64'");
  expect_refused(R"({"model":"m","input":"a","encoding_format":1})", "encoding_format", "string");
  expect_refused(R"({"model":"m","input":"a","dimensions":0})", "dimensions", "at least 1");
  expect_refused(R"({"model":"m","input":"a","dimensions":"8"})", "dimensions", "integer");
  expect_refused(R"({"model":"m","input":"a","user":5})", "user", "string");
  std::string many = R"({"model":"m","input":[)";
  for (int i = 0; i < 2049; ++i) many += i ? ",\"a\"" : "\"a\"";
  expect_refused(many + "]}", "input", "2048");
}

}  // namespace
}  // namespace ogai::serve
