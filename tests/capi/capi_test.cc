// The C API (include/ogai/ogai_c.h) through libogai.so: every entry point against the C++ API of
// the same library on the stories260k package, and the error paths (NULL arguments, a missing
// package, an unknown execution provider, option values out of range, a second wait).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "ogai/ogai.h"
#include "ogai/ogai_c.h"

namespace {

const std::string kStories = std::string(OGAI_BINARY_DIR) + "/packages/stories260k";
const char* kPrompt = "Once upon a time";

std::string last_error() { return ogai_last_error_message(); }

// Owners of C handles, so that a failing assertion does not leak.
struct Options {
  ogai_options* p = nullptr;
  Options() { EXPECT_EQ(ogai_options_create(&p), OGAI_OK); }
  ~Options() { ogai_options_free(p); }
};
struct Result {
  ogai_result* p = nullptr;
  ~Result() { ogai_result_free(p); }
};

std::vector<std::int32_t> ids_of(const ogai_result* r) {
  const int32_t* ids = nullptr;
  size_t count = 0;
  EXPECT_EQ(ogai_result_ids(r, &ids, &count), OGAI_OK);
  return {ids, ids + count};
}

std::string text_of(const ogai_result* r) {
  const char* text = nullptr;
  size_t length = 0;
  EXPECT_EQ(ogai_result_text(r, &text, &length), OGAI_OK);
  return {text, length};
}

ogai_finish_reason finish_of(const ogai_result* r) {
  ogai_finish_reason reason = OGAI_FINISH_LENGTH;
  EXPECT_EQ(ogai_result_finish_reason(r, &reason), OGAI_OK);
  return reason;
}

// Appends every streamed piece to a std::string; cancels once `limit` tokens were seen (0 = never).
struct Collector {
  std::string text;
  int tokens = 0;
  int limit = 0;
  static int on_token(void* self, int32_t, const char* text, size_t length) {
    auto* c = static_cast<Collector*>(self);
    c->text.append(text, length);
    return ++c->tokens == c->limit ? 0 : 1;
  }
};

class CapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(ogai_model_load(kStories.c_str(), nullptr, &model_), OGAI_OK) << last_error();
    cpp_ = ogai::Model::load(kStories);
  }
  static void TearDownTestSuite() {
    ogai_model_free(model_);
    model_ = nullptr;
    cpp_.reset();
  }

  static ogai::GenerationResult cpp_greedy(int max_new_tokens) {
    ogai::GenerationOptions o;
    o.max_new_tokens = max_new_tokens;
    o.sampling.temperature = 0.0f;
    return cpp_->generate(kPrompt, o);
  }

  static ogai_model* model_;
  static std::shared_ptr<const ogai::Model> cpp_;
};
ogai_model* CapiTest::model_ = nullptr;
std::shared_ptr<const ogai::Model> CapiTest::cpp_;

TEST(CapiLibrary, VersionAndNames) {
  EXPECT_STREQ(ogai_version(), OGAI_VERSION_STRING);
  EXPECT_EQ(std::to_string(OGAI_VERSION_MAJOR) + "." + std::to_string(OGAI_VERSION_MINOR) + "." +
                std::to_string(OGAI_VERSION_PATCH),
            OGAI_VERSION_STRING);
  EXPECT_STREQ(ogai_status_name(OGAI_OK), "ok");
  EXPECT_STREQ(ogai_status_name(OGAI_NOT_FOUND), "not_found");
  EXPECT_STREQ(ogai_status_name(static_cast<ogai_status>(99)), "unknown");
  EXPECT_STREQ(ogai_finish_reason_name(OGAI_FINISH_EOS), "eos");
  EXPECT_STREQ(ogai_finish_reason_name(static_cast<ogai_finish_reason>(42)), "unknown");
}

TEST(CapiLibrary, MissingPackageNamesThePath) {
  const std::string missing = (std::filesystem::temp_directory_path() / "ogai-no-such-package").string();
  ogai_model* model = reinterpret_cast<ogai_model*>(0x1);  // untouched on failure
  ogai_status status = ogai_model_load(missing.c_str(), "cpu", &model);
  EXPECT_EQ(status, OGAI_NOT_FOUND);
  EXPECT_NE(last_error().find(missing), std::string::npos) << last_error();
  EXPECT_EQ(model, reinterpret_cast<ogai_model*>(0x1));
}

TEST(CapiLibrary, NullArgumentsNameTheParameter) {
  ogai_model* model = nullptr;
  EXPECT_EQ(ogai_model_load(nullptr, nullptr, &model), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "path: must not be NULL");
  EXPECT_EQ(ogai_model_load(kStories.c_str(), nullptr, nullptr), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "model: must not be NULL");
  int32_t* ids = nullptr;
  size_t count = 0;
  EXPECT_EQ(ogai_tokenize(nullptr, "x", 1, &ids, &count), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "model: must not be NULL");
  ogai_result* result = nullptr;
  EXPECT_EQ(ogai_generate(nullptr, "x", nullptr, nullptr, nullptr, &result), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(ogai_options_set_top_p(nullptr, 0.5f), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "options: must not be NULL");
  EXPECT_EQ(ogai_options_create(nullptr), OGAI_INVALID_ARGUMENT);
  const char* text = nullptr;
  EXPECT_EQ(ogai_result_text(nullptr, &text, nullptr), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "result: must not be NULL");
  ogai_finish_reason reason;
  EXPECT_EQ(ogai_result_finish_reason(nullptr, &reason), OGAI_INVALID_ARGUMENT);
  ogai_engine* engine = nullptr;
  EXPECT_EQ(ogai_engine_create(nullptr, 0, &engine), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "model: must not be NULL");
  EXPECT_EQ(ogai_engine_submit(nullptr, "x", nullptr, nullptr, nullptr, nullptr), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "engine: must not be NULL");
  EXPECT_EQ(ogai_request_wait(nullptr, &result), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(ogai_request_cancel(nullptr), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "request: must not be NULL");
  // The free functions accept NULL.
  ogai_model_free(nullptr);
  ogai_options_free(nullptr);
  ogai_result_free(nullptr);
  ogai_engine_free(nullptr);
  ogai_request_free(nullptr);
  ogai_ids_free(nullptr);
  ogai_string_free(nullptr);
}

TEST(CapiLibrary, UnknownExecutionProviderIsNamed) {
  ogai_model* model = nullptr;
  EXPECT_EQ(ogai_model_load(kStories.c_str(), "tpu", &model), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("'tpu'"), std::string::npos) << last_error();
  EXPECT_EQ(model, nullptr);
}

TEST(CapiLibrary, LastErrorIsPerThread) {
  ogai_options_create(nullptr);
  std::thread([] {
    ogai_model_load(nullptr, nullptr, nullptr);
    EXPECT_EQ(last_error(), "path: must not be NULL");
  }).join();
  EXPECT_EQ(last_error(), "options: must not be NULL");
}

TEST_F(CapiTest, TokenizeAndDetokenizeMatchTheCppApi) {
  int32_t* ids = nullptr;
  size_t count = 0;
  ASSERT_EQ(ogai_tokenize(model_, kPrompt, 1, &ids, &count), OGAI_OK) << last_error();
  std::vector<std::int32_t> c_ids(ids, ids + count);
  EXPECT_EQ(c_ids, cpp_->tokenize(kPrompt, true));
  char* text = nullptr;
  ASSERT_EQ(ogai_detokenize(model_, ids, count, 1, &text), OGAI_OK) << last_error();
  EXPECT_EQ(std::string(text), cpp_->detokenize(c_ids, true));
  ogai_string_free(text);
  ogai_ids_free(ids);
  ASSERT_EQ(ogai_detokenize(model_, nullptr, 0, 0, &text), OGAI_OK);
  EXPECT_STREQ(text, "");
  ogai_string_free(text);
  EXPECT_EQ(ogai_detokenize(model_, nullptr, 3, 0, &text), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "ids: must not be NULL");
}

TEST_F(CapiTest, GreedyGenerationMatchesTheCppApiAndStreams) {
  Options o;
  ASSERT_EQ(ogai_options_set_max_new_tokens(o.p, 20), OGAI_OK);
  ASSERT_EQ(ogai_options_set_temperature(o.p, 0.0f), OGAI_OK);
  Collector streamed;
  Result r;
  ASSERT_EQ(ogai_generate(model_, kPrompt, o.p, &Collector::on_token, &streamed, &r.p), OGAI_OK) << last_error();
  ogai::GenerationResult expected = cpp_greedy(20);
  EXPECT_EQ(ids_of(r.p), expected.ids);
  EXPECT_EQ(text_of(r.p), expected.text);
  EXPECT_EQ(streamed.text, expected.text);
  EXPECT_EQ(finish_of(r.p), OGAI_FINISH_LENGTH);
  const int32_t* prompt = nullptr;
  size_t count = 0;
  ASSERT_EQ(ogai_result_prompt_ids(r.p, &prompt, &count), OGAI_OK);
  EXPECT_EQ(std::vector<std::int32_t>(prompt, prompt + count), expected.prompt_ids);
}

TEST_F(CapiTest, CallbackReturningZeroCancels) {
  Options o;
  ogai_options_set_max_new_tokens(o.p, 20);
  ogai_options_set_temperature(o.p, 0.0f);
  Collector c;
  c.limit = 3;
  Result r;
  ASSERT_EQ(ogai_generate(model_, kPrompt, o.p, &Collector::on_token, &c, &r.p), OGAI_OK) << last_error();
  EXPECT_EQ(finish_of(r.p), OGAI_FINISH_CANCELLED);
  EXPECT_EQ(c.tokens, 3);
  EXPECT_EQ(ids_of(r.p), std::vector<std::int32_t>(cpp_greedy(3).ids));
}

TEST_F(CapiTest, StopStringEndsBeforeIt) {
  const std::string greedy = cpp_greedy(20).text;
  ASSERT_GT(greedy.size(), 12u);
  const std::string stop = greedy.substr(8, 4);
  Options o;
  ogai_options_set_max_new_tokens(o.p, 20);
  ogai_options_set_temperature(o.p, 0.0f);
  ASSERT_EQ(ogai_options_add_stop(o.p, stop.c_str()), OGAI_OK);
  EXPECT_EQ(ogai_options_add_stop(o.p, nullptr), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "stop: must not be NULL");
  Result r;
  ASSERT_EQ(ogai_generate(model_, kPrompt, o.p, nullptr, nullptr, &r.p), OGAI_OK) << last_error();
  EXPECT_EQ(finish_of(r.p), OGAI_FINISH_STOP);
  EXPECT_EQ(text_of(r.p), greedy.substr(0, greedy.find(stop)));
}

TEST_F(CapiTest, SeededSamplingMatchesTheCppApi) {
  Options o;
  ogai_options_set_max_new_tokens(o.p, 16);
  ogai_options_set_temperature(o.p, 1.0f);
  ogai_options_set_top_k(o.p, 20);
  ogai_options_set_top_p(o.p, 0.9f);
  ogai_options_set_seed(o.p, 7);
  Result r;
  ASSERT_EQ(ogai_generate(model_, kPrompt, o.p, nullptr, nullptr, &r.p), OGAI_OK) << last_error();
  ogai::GenerationOptions cpp;
  cpp.max_new_tokens = 16;
  cpp.sampling.temperature = 1.0f;
  cpp.sampling.top_k = 20;
  cpp.sampling.top_p = 0.9f;
  cpp.sampling.seed = 7;
  EXPECT_EQ(ids_of(r.p), cpp_->generate(kPrompt, cpp).ids);
}

TEST_F(CapiTest, OptionValuesOutOfRangeAreNamed) {
  struct Case {
    const char* name;
    void (*set)(ogai_options*);
  };
  const Case cases[] = {
      {"top_p", [](ogai_options* o) { ogai_options_set_top_p(o, 1.5f); }},
      {"temperature", [](ogai_options* o) { ogai_options_set_temperature(o, -1.0f); }},
      {"top_k", [](ogai_options* o) { ogai_options_set_top_k(o, -2); }},
      {"max_new_tokens", [](ogai_options* o) { ogai_options_set_max_new_tokens(o, -3); }},
  };
  for (const Case& c : cases) {
    Options o;
    c.set(o.p);
    ogai_result* r = nullptr;
    EXPECT_EQ(ogai_generate(model_, kPrompt, o.p, nullptr, nullptr, &r), OGAI_INVALID_ARGUMENT) << c.name;
    EXPECT_NE(last_error().find(c.name), std::string::npos) << last_error();
    EXPECT_EQ(r, nullptr);
  }
}

// Issue 26 item 9: every sampling field by name (penalties included), truncation, response formats
// and log-probabilities, each equal to the C++ API with the same options.
TEST_F(CapiTest, SamplingFieldsByNameMatchTheCppApi) {
  Options o;
  ogai_options_set_max_new_tokens(o.p, 48);
  ogai_options_set_seed(o.p, 3);
  ASSERT_EQ(ogai_options_set_sampling(o.p, "temperature", 0.9), OGAI_OK);
  ASSERT_EQ(ogai_options_set_sampling(o.p, "top_k", 30.0), OGAI_OK);
  ASSERT_EQ(ogai_options_set_sampling(o.p, "repetition_penalty", 2.0), OGAI_OK);
  ASSERT_EQ(ogai_options_set_sampling(o.p, "presence_penalty", 0.5), OGAI_OK);
  ASSERT_EQ(ogai_options_set_sampling(o.p, "frequency_penalty", 0.25), OGAI_OK);
  Result r;
  ASSERT_EQ(ogai_generate(model_, kPrompt, o.p, nullptr, nullptr, &r.p), OGAI_OK) << last_error();
  ogai::GenerationOptions cpp;
  cpp.max_new_tokens = 48;
  cpp.sampling.seed = 3;
  cpp.sampling.temperature = 0.9f;
  cpp.sampling.top_k = 30;
  cpp.sampling.repetition_penalty = 2.0f;
  cpp.sampling.presence_penalty = 0.5f;
  cpp.sampling.frequency_penalty = 0.25f;
  EXPECT_EQ(ids_of(r.p), cpp_->generate(kPrompt, cpp).ids);
  cpp.sampling.repetition_penalty.reset();  // the penalties reached the sampler: without them it differs
  cpp.sampling.presence_penalty.reset();
  cpp.sampling.frequency_penalty.reset();
  EXPECT_NE(ids_of(r.p), cpp_->generate(kPrompt, cpp).ids);
  EXPECT_EQ(ogai_options_set_sampling(o.p, "warmth", 1.0), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("'warmth' is not a sampling field"), std::string::npos) << last_error();
}

TEST_F(CapiTest, TruncationAndResponseFormats) {
  Options o;
  ogai_options_set_max_new_tokens(o.p, 4);
  ogai_options_set_temperature(o.p, 0.0f);
  std::string longer;
  for (int i = 0; i < 400; ++i) longer += "Once upon a time ";
  ogai_result* failed = nullptr;
  EXPECT_EQ(ogai_generate(model_, longer.c_str(), o.p, nullptr, nullptr, &failed), OGAI_INVALID_ARGUMENT);
  ASSERT_EQ(ogai_options_set_truncate_prompt(o.p, 1), OGAI_OK);
  Result cut;
  ASSERT_EQ(ogai_generate(model_, longer.c_str(), o.p, nullptr, nullptr, &cut.p), OGAI_OK) << last_error();
  EXPECT_EQ(ids_of(cut.p).size(), 4u);

  Options f;
  ogai_options_set_max_new_tokens(f.p, 40);
  ogai_options_set_temperature(f.p, 0.0f);
  ASSERT_EQ(ogai_options_set_response_format(f.p, "regex", "(cat|dog)s?"), OGAI_OK);
  Result r;
  ASSERT_EQ(ogai_generate(model_, kPrompt, f.p, nullptr, nullptr, &r.p), OGAI_OK) << last_error();
  EXPECT_TRUE(text_of(r.p) == "cat" || text_of(r.p) == "cats" || text_of(r.p) == "dog" || text_of(r.p) == "dogs")
      << text_of(r.p);
  ASSERT_EQ(ogai_options_set_response_format(f.p, "json_schema", R"({"type":"object","properties":{"n":)"
                                             R"({"type":"integer"}},"required":["n"]})"), OGAI_OK);
  Result j;
  ASSERT_EQ(ogai_generate(model_, kPrompt, f.p, nullptr, nullptr, &j.p), OGAI_OK) << last_error();
  EXPECT_EQ(text_of(j.p).rfind("{\"n\":", 0), 0u) << text_of(j.p);
  EXPECT_EQ(ogai_options_set_response_format(f.p, "xml", "x"), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(ogai_options_set_response_format(f.p, "regex", nullptr), OGAI_INVALID_ARGUMENT);
  ASSERT_EQ(ogai_options_set_response_format(f.p, "json_schema", R"({"items":{"$dynamicRef":"#m"}})"), OGAI_OK);
  ogai_result* refused = nullptr;
  EXPECT_NE(ogai_generate(model_, kPrompt, f.p, nullptr, nullptr, &refused), OGAI_OK);
  EXPECT_NE(last_error().find("$dynamicRef"), std::string::npos) << last_error();
  ASSERT_EQ(ogai_options_set_response_format(f.p, "text", nullptr), OGAI_OK);
}

TEST_F(CapiTest, LogprobsMatchTheCppApi) {
  Options o;
  ogai_options_set_max_new_tokens(o.p, 6);
  ogai_options_set_temperature(o.p, 0.0f);
  Result plain;
  ASSERT_EQ(ogai_generate(model_, kPrompt, o.p, nullptr, nullptr, &plain.p), OGAI_OK);
  float lp = 0;
  EXPECT_EQ(ogai_result_logprob(plain.p, 0, &lp), OGAI_INVALID_ARGUMENT);  // not asked for
  ASSERT_EQ(ogai_options_set_logprobs(o.p, 3), OGAI_OK);
  Result r;
  ASSERT_EQ(ogai_generate(model_, kPrompt, o.p, nullptr, nullptr, &r.p), OGAI_OK) << last_error();
  ogai::GenerationOptions cpp;
  cpp.max_new_tokens = 6;
  cpp.sampling.temperature = 0.0f;
  cpp.logprobs = 3;
  const ogai::GenerationResult expected = cpp_->generate(kPrompt, cpp);
  ASSERT_EQ(expected.logprobs.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    ASSERT_EQ(ogai_result_logprob(r.p, i, &lp), OGAI_OK);
    EXPECT_EQ(lp, expected.logprobs[i].logprob);
    for (size_t k = 0; k < 3; ++k) {
      int32_t id = -1;
      ASSERT_EQ(ogai_result_top_logprob(r.p, i, k, &id, &lp), OGAI_OK);
      EXPECT_EQ(id, expected.logprobs[i].top[k].id);
      EXPECT_EQ(lp, expected.logprobs[i].top[k].logprob);
    }
  }
  int32_t id = 0;
  EXPECT_EQ(ogai_result_logprob(r.p, 6, &lp), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(ogai_result_top_logprob(r.p, 0, 3, &id, &lp), OGAI_INVALID_ARGUMENT);
}

TEST_F(CapiTest, EngineResultsEqualGenerateAndCancelWorks) {
  ogai_engine* engine = nullptr;
  ASSERT_EQ(ogai_engine_create(model_, 4, &engine), OGAI_OK) << last_error();
  Options o;
  ogai_options_set_max_new_tokens(o.p, 20);
  ogai_options_set_temperature(o.p, 0.0f);
  Collector streamed;
  ogai_request* a = nullptr;
  ogai_request* b = nullptr;
  ASSERT_EQ(ogai_engine_submit(engine, kPrompt, o.p, &Collector::on_token, &streamed, &a), OGAI_OK) << last_error();
  ASSERT_EQ(ogai_engine_submit(engine, kPrompt, o.p, nullptr, nullptr, &b), OGAI_OK) << last_error();
  Result ra, rb;
  ASSERT_EQ(ogai_request_wait(a, &ra.p), OGAI_OK) << last_error();
  ASSERT_EQ(ogai_request_wait(b, &rb.p), OGAI_OK) << last_error();
  ogai::GenerationResult expected = cpp_greedy(20);
  EXPECT_EQ(ids_of(ra.p), expected.ids);
  EXPECT_EQ(ids_of(rb.p), expected.ids);
  EXPECT_EQ(streamed.text, expected.text);
  ogai_result* again = nullptr;
  EXPECT_EQ(ogai_request_wait(a, &again), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("already waited"), std::string::npos) << last_error();

  ogai_options_set_max_new_tokens(o.p, 200);
  ogai_request* c = nullptr;
  ASSERT_EQ(ogai_engine_submit(engine, kPrompt, o.p, nullptr, nullptr, &c), OGAI_OK) << last_error();
  ASSERT_EQ(ogai_request_cancel(c), OGAI_OK);
  Result rc;
  ASSERT_EQ(ogai_request_wait(c, &rc.p), OGAI_OK) << last_error();
  EXPECT_EQ(finish_of(rc.p), OGAI_FINISH_CANCELLED);
  EXPECT_LT(ids_of(rc.p).size(), 200u);

  ogai_options_set_top_p(o.p, 2.0f);
  ogai_request* bad = nullptr;
  EXPECT_EQ(ogai_engine_submit(engine, kPrompt, o.p, nullptr, nullptr, &bad), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("top_p"), std::string::npos) << last_error();
  EXPECT_EQ(bad, nullptr);
  ogai_request_free(a);
  ogai_request_free(b);
  ogai_request_free(c);
  ogai_engine_free(engine);
}

TEST_F(CapiTest, EngineOptionOutOfRangeIsNamed) {
  ogai_engine* engine = nullptr;
  EXPECT_EQ(ogai_engine_create(model_, -1, &engine), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("max_sequences"), std::string::npos) << last_error();
  EXPECT_EQ(engine, nullptr);
}

TEST_F(CapiTest, FreeingARunningRequestStopsItsCallback) {
  ogai_engine* engine = nullptr;
  ASSERT_EQ(ogai_engine_create(model_, 0, &engine), OGAI_OK) << last_error();
  Options o;
  ogai_options_set_max_new_tokens(o.p, 200);
  ogai_options_set_temperature(o.p, 0.0f);
  auto* c = new Collector();
  ogai_request* r = nullptr;
  ASSERT_EQ(ogai_engine_submit(engine, kPrompt, o.p, &Collector::on_token, c, &r), OGAI_OK) << last_error();
  ogai_request_free(r);
  const int seen = c->tokens;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(c->tokens, seen);  // never called again once freed
  delete c;
  ogai_engine_free(engine);
}

TEST_F(CapiTest, EngineKeepsTheModelAlive) {
  ogai_model* own = nullptr;
  ASSERT_EQ(ogai_model_load(kStories.c_str(), "cpu", &own), OGAI_OK) << last_error();
  ogai_engine* engine = nullptr;
  ASSERT_EQ(ogai_engine_create(own, 1, &engine), OGAI_OK) << last_error();
  ogai_model_free(own);
  Options o;
  ogai_options_set_max_new_tokens(o.p, 5);
  ogai_options_set_temperature(o.p, 0.0f);
  ogai_request* r = nullptr;
  ASSERT_EQ(ogai_engine_submit(engine, kPrompt, o.p, nullptr, nullptr, &r), OGAI_OK) << last_error();
  Result res;
  ASSERT_EQ(ogai_request_wait(r, &res.p), OGAI_OK) << last_error();
  EXPECT_EQ(ids_of(res.p), cpp_greedy(5).ids);
  ogai_request_free(r);
  ogai_engine_free(engine);
}

}  // namespace
