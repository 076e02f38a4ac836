// The C API on a looped workflow package (the conformance decoder fixture, no tokenizer): ids in,
// ids-as-text out, equal to the C++ API of the same library (itself checked against the
// interpreter by workflow_test), whole, streamed, seeded, through the engine, with finish reasons.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ogai/ogai.h"
#include "ogai/ogai_c.h"

namespace {

const std::string kDecoder = std::string(OGAI_SHARED_DIR) + "/conformance/metadata/fixtures/decoder";
const std::vector<int32_t> kPrompt{4, 5};

struct Pieces {
  std::string text;
  int count = 0;
  static int on_token(void* self, int32_t, const char* text, size_t length) {
    auto* p = static_cast<Pieces*>(self);
    p->text.append(text, length);
    ++p->count;
    return 1;
  }
};

std::vector<int32_t> ids_of(const ogai_result* r) {
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

TEST(CapiWorkflow, IdsInTextOutEqualTheCppApi) {
  ogai_model* model = nullptr;
  ASSERT_EQ(ogai_model_load(kDecoder.c_str(), nullptr, &model), OGAI_OK) << ogai_last_error_message();
  ogai_options* options = nullptr;
  ASSERT_EQ(ogai_options_create(&options), OGAI_OK);
  ogai_options_set_max_new_tokens(options, 5);
  ogai_options_set_temperature(options, 1.0f);
  ogai_options_set_seed(options, 7);
  Pieces pieces;
  ogai_result* result = nullptr;
  ASSERT_EQ(ogai_generate_ids(model, kPrompt.data(), kPrompt.size(), options, &Pieces::on_token, &pieces, &result),
            OGAI_OK)
      << ogai_last_error_message();
  ogai::GenerationOptions o;
  o.max_new_tokens = 5;
  o.sampling.temperature = 1.0f;
  o.sampling.seed = 7;
  const auto cpp = ogai::Model::load(kDecoder)->generate(kPrompt, o);
  EXPECT_EQ(ids_of(result), cpp.ids);
  EXPECT_EQ(ids_of(result), (std::vector<int32_t>{111, 1, 80, 49, 3}));
  EXPECT_EQ(text_of(result), "111 1 80 49 3");
  EXPECT_EQ(pieces.text, text_of(result));
  EXPECT_EQ(pieces.count, 5);
  ogai_finish_reason reason = OGAI_FINISH_CANCELLED;
  ASSERT_EQ(ogai_result_finish_reason(result, &reason), OGAI_OK);
  EXPECT_EQ(reason, OGAI_FINISH_LENGTH);
  ogai_result_free(result);

  // A text prompt needs a tokenizer: refused by name.
  result = nullptr;
  EXPECT_EQ(ogai_generate(model, "hello", options, nullptr, nullptr, &result), OGAI_UNSUPPORTED);
  EXPECT_NE(std::string(ogai_last_error_message()).find("no tokenizer"), std::string::npos) << ogai_last_error_message();

  // Through the engine: two requests at once, each equal to its solo run.
  ogai_engine* engine = nullptr;
  ASSERT_EQ(ogai_engine_create(model, 0, &engine), OGAI_OK);
  ogai_request* a = nullptr;
  ogai_request* b = nullptr;
  Pieces streamed;
  ASSERT_EQ(ogai_engine_submit_ids(engine, kPrompt.data(), kPrompt.size(), options, &Pieces::on_token, &streamed, &a),
            OGAI_OK);
  ogai_options_set_seed(options, 8);
  ASSERT_EQ(ogai_engine_submit_ids(engine, kPrompt.data(), kPrompt.size(), options, nullptr, nullptr, &b), OGAI_OK);
  ogai_result* ra = nullptr;
  ogai_result* rb = nullptr;
  ASSERT_EQ(ogai_request_wait(a, &ra), OGAI_OK) << ogai_last_error_message();
  ASSERT_EQ(ogai_request_wait(b, &rb), OGAI_OK) << ogai_last_error_message();
  EXPECT_EQ(ids_of(ra), cpp.ids);
  EXPECT_EQ(streamed.text, text_of(ra));
  o.sampling.seed = 8;
  EXPECT_EQ(ids_of(rb), ogai::Model::load(kDecoder)->generate(kPrompt, o).ids);
  ogai_result_free(ra);
  ogai_result_free(rb);
  ogai_request_free(a);
  ogai_request_free(b);
  ogai_engine_free(engine);
  ogai_options_free(options);
  ogai_model_free(model);
}

}  // namespace
