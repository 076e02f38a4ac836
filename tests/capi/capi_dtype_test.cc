// ogai_model_load_dtype: an Optimum / onnx-community folder's graph variant picked by
// transformers.js's dtype name (the folder tools/fixtures/optimum_export.py writes, the
// optimum_folders fixture), as the C++ API's LoadOptions::dtype picks it: the same greedy ids per
// variant; an unknown name, a variant the folder lacks and a dtype for a v1 package are refused
// naming it; NULL is the folder's own choice, as ogai_model_load.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ogai/ogai.h"
#include "ogai/ogai_c.h"

namespace {

std::string dtypes_folder() { return std::string(OGAI_BINARY_DIR) + "/optimum_folders/optimum-llama-dtypes"; }

// Greedy ids of 8 new tokens through the C API; empty (and a test failure) when a call fails.
std::vector<std::int32_t> c_greedy(const ogai_model* model) {
  ogai_options* options = nullptr;
  EXPECT_EQ(ogai_options_create(&options), OGAI_OK);
  EXPECT_EQ(ogai_options_set_max_new_tokens(options, 8), OGAI_OK);
  EXPECT_EQ(ogai_options_set_temperature(options, 0.0f), OGAI_OK);
  ogai_result* result = nullptr;
  std::vector<std::int32_t> out;
  if (ogai_generate(model, "hello world", options, nullptr, nullptr, &result) == OGAI_OK) {
    const int32_t* ids = nullptr;
    size_t count = 0;
    EXPECT_EQ(ogai_result_ids(result, &ids, &count), OGAI_OK);
    out.assign(ids, ids + count);
  } else {
    ADD_FAILURE() << ogai_last_error_message();
  }
  ogai_result_free(result);
  ogai_options_free(options);
  return out;
}

std::vector<std::int32_t> cpp_greedy(const std::string& dtype) {
  ogai::LoadOptions load;
  load.dtype = dtype;
  auto model = ogai::Model::load(dtypes_folder(), load);
  ogai::GenerationOptions o;
  o.max_new_tokens = 8;
  o.sampling.temperature = 0.0f;
  return model->generate("hello world", o).ids;
}

TEST(CapiDtype, EachVariantEqualsTheCppApi) {
  for (const char* dtype : {"fp32", "fp16", "q8", "q4"}) {
    SCOPED_TRACE(dtype);
    ogai_model* model = nullptr;
    ASSERT_EQ(ogai_model_load_dtype(dtypes_folder().c_str(), "cpu", dtype, &model), OGAI_OK)
        << ogai_last_error_message();
    const std::vector<std::int32_t> ids = c_greedy(model);
    ogai_model_free(model);
    EXPECT_EQ(ids.size(), 8u);
    EXPECT_EQ(ids, cpp_greedy(dtype));
  }
}

TEST(CapiDtype, NullIsTheFoldersOwnChoice) {
  ogai_model* model = nullptr;
  ASSERT_EQ(ogai_model_load_dtype(dtypes_folder().c_str(), nullptr, nullptr, &model), OGAI_OK)
      << ogai_last_error_message();
  EXPECT_EQ(c_greedy(model), cpp_greedy(""));
  ogai_model_free(model);
}

TEST(CapiDtype, RefusalsNameTheDtype) {
  ogai_model* model = nullptr;
  EXPECT_EQ(ogai_model_load_dtype(dtypes_folder().c_str(), nullptr, "q5", &model), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ogai_last_error_message()).find("'q5'"), std::string::npos) << ogai_last_error_message();
  EXPECT_NE(ogai_model_load_dtype(dtypes_folder().c_str(), nullptr, "bnb4", &model), OGAI_OK);
  EXPECT_NE(std::string(ogai_last_error_message()).find("bnb4"), std::string::npos) << ogai_last_error_message();
  const std::string stories = std::string(OGAI_BINARY_DIR) + "/packages/stories260k";
  EXPECT_NE(ogai_model_load_dtype(stories.c_str(), nullptr, "q4", &model), OGAI_OK);
  EXPECT_NE(std::string(ogai_last_error_message()).find("dtype"), std::string::npos) << ogai_last_error_message();
  EXPECT_EQ(model, nullptr);  // untouched by the failures
}

}  // namespace
